/* host.c: a program outside the tree, built against an installed Astral.
 * Initializes the runtime, creates an index, adds three vectors, queries,
 * and fails unless the nearest is the expected one. */
#include <stdio.h>

#include <astral.h>

static int check(const char *what, AstralStatus status) {
    if (status != ASTRAL_OK) {
        char msg[256];
        astral_last_error(msg, sizeof msg);
        fprintf(stderr, "host: %s: %s: %s\n", what, astral_status_string(status), msg);
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
        fprintf(stderr, "host: libastral %u does not serve header %s\n",
                (unsigned)astral_version_number(), ASTRAL_VERSION_STRING);
        return 1;
    }
    if (!check("init", astral_init(NULL))) {
        return 1;
    }
    options.struct_size = sizeof options;
    options.dimension = 4;
    ok = check("create", astral_index_create(&options, &index)) &&
         check("add", astral_index_add(index, ids, 3, vectors, 3 * 4)) &&
         check("query", astral_index_query(index, query, 4, 2, results, 2, &count));
    if (ok && (count != 2 || results[0].id != 10 || results[1].id != 30)) {
        fprintf(stderr, "host: query found %u hits, want ids 10 then 30\n", (unsigned)count);
        ok = 0;
    }
    if (ok) {
        printf("host (C): libastral %s, nearest id %llu score %.3f\n", ASTRAL_VERSION_STRING,
               (unsigned long long)results[0].id, results[0].score);
    }
    astral_index_destroy(index);
    astral_shutdown();
    return ok ? 0 : 1;
}
