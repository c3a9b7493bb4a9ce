/* Built only with ASTRAL_SANITIZE: passes astral_index_query a query buffer
 * shorter than the dimension it claims. AddressSanitizer must report the
 * library's read past it (the library is built with go build -asan); the
 * test passes when the report names Astral. */
#include <stdio.h>
#include <stdlib.h>

#include "astral.h"

int main(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    AstralResult r[1];
    uint32_t n = 0;
    float *q = malloc(32 * sizeof *q);
    if (q == NULL || astral_init(NULL) != ASTRAL_OK) {
        return 1;
    }
    o.struct_size = sizeof o;
    o.dimension = 64;
    if (astral_index_create(&o, &h) != ASTRAL_OK) {
        return 1;
    }
    for (int i = 0; i < 32; i++) {
        q[i] = 1.0f;
    }
    /* Claims 64 floats where there are 32: a host bug the library trusts. */
    printf("status %d: the overrun was not detected\n", (int)astral_index_query(h, q, 64, 1, r, 1, &n));
    free(q);
    astral_index_destroy(h);
    astral_shutdown();
    return 0;
}
