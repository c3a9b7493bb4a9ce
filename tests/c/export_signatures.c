/* Fails to compile when a prototype in astral.h and the one cgo generated
 * for the //export disagree in any type. cgo's prototypes carry no const,
 * so const is defined away while astral.h is read; any other difference
 * is a "conflicting types" error. (check_exports.sh compares the names.) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ASTRAL_EXPERIMENTAL
#define const
#include "astral.h"
#undef const

#include "libastral.h" /* cgo's, from the same build */

int main(void) { return astral_version_number() == ASTRAL_VERSION_NUMBER ? 0 : 1; }
