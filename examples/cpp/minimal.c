/* minimal.c: the smallest complete Astral program (C99).
 * Stores three 4-dimensional vectors and finds the two nearest to a query. */
#include <stdio.h>

#include "astral.h"

static int check(AstralStatus status) {
    if (status != ASTRAL_OK) {
        char msg[256];
        astral_last_error(msg, sizeof msg);
        fprintf(stderr, "astral: %s: %s\n", astral_status_string(status), msg);
    }
    return status == ASTRAL_OK;
}

int main(void) {
    const uint64_t ids[3] = {10, 20, 30};
    const float vectors[3 * 4] = {
        1.0f, 0.0f, 0.0f, 0.0f,
        0.0f, 1.0f, 0.0f, 0.0f,
        0.7f, 0.7f, 0.0f, 0.0f,
    };
    const float query[4] = {0.9f, 0.1f, 0.0f, 0.0f};
    AstralIndexOptions options = {0};
    AstralIndex index = ASTRAL_INDEX_NONE;
    AstralResult results[2];
    uint32_t count = 0;
    int ok;

    if (!ASTRAL_VERSION_COMPATIBLE(astral_version_number())) {
        fprintf(stderr, "libastral %u does not serve header %s\n",
                (unsigned)astral_version_number(), ASTRAL_VERSION_STRING);
        return 1;
    }
    if (!check(astral_init(NULL))) { /* default worker count */
        return 1;
    }
    options.struct_size = sizeof options;
    options.dimension = 4; /* cosine, flat while small, E5M2: the defaults */
    ok = check(astral_index_create(&options, &index)) &&
         check(astral_index_add(index, ids, 3, vectors, 3 * 4)) &&
         check(astral_index_query(index, query, 4, 2, results, 2, &count));
    for (uint32_t i = 0; ok && i < count; i++) {
        printf("id %llu score %.3f\n", (unsigned long long)results[i].id, results[i].score);
    }
    astral_index_destroy(index);
    astral_shutdown();
    return ok ? 0 : 1;
}
