// astral.h compiles as strict C++17 on its own (extern "C", no C-only
// constructs), with the experimental declarations too.
#define ASTRAL_EXPERIMENTAL
#include "astral.h"

static_assert(sizeof(AstralResult) == 16, "AstralResult layout");
static_assert(ASTRAL_VERSION_COMPATIBLE(ASTRAL_VERSION_NUMBER), "a header serves itself");
