/* Mapped files and saved bytes (issue 16): a mapped index file truncated
 * by another process gives ASTRAL_E_IO, not a dead host; the same calls,
 * removes included, save the same bytes every time; astral_shutdown
 * unmaps the files of the indexes it ends. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "check.h"

enum { DIM = 16, N = 400, K = 10 };

static float base[N * DIM];
static uint64_t base_ids[N];

static AstralIndex make_index(uint32_t kind, uint32_t storage) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.metric = ASTRAL_METRIC_COSINE;
    o.storage = storage;
    o.hnsw_m = 8;
    CHECK_OK(astral_index_create(&o, &h));
    return h;
}

static unsigned char *save_buffer(AstralIndex h, size_t *size) {
    size_t need = 0;
    unsigned char *buf;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_save_to_buffer(h, NULL, 0, &need), "needs");
    buf = malloc(need);
    CHECK(buf != NULL);
    CHECK_OK(astral_index_save_to_buffer(h, buf, need, size));
    return buf;
}

static void temp_path(char *path, size_t n, const char *name) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, n, "%s/astral-mapsave-%ld-%s.idx", dir != NULL ? dir : "/tmp", (long)getpid(), name);
}

static void test_truncated_mapping(uint32_t kind) {
    char path[512];
    AstralIndex h = make_index(kind, ASTRAL_STORAGE_E5M2), m = ASTRAL_INDEX_NONE;
    AstralResult res[K];
    uint32_t count = 0;
    size_t size = 0;
    uint64_t id = 1;
    unsigned char *buf;
    temp_path(path, sizeof path, "truncated");
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    CHECK_OK(astral_index_save(h, path));
    CHECK_OK(astral_index_load(path, &m));
    CHECK_OK(astral_index_query(m, base, DIM, K, res, K, &count));
    CHECK(count == K && results_ordered(res, count, 0));
    /* Another process shrinks the file under the mapping. */
    CHECK(truncate(path, 4096) == 0);
    CHECK_FAIL(ASTRAL_E_IO, astral_index_query(m, base, DIM, K, res, K, &count), "faulted");
    CHECK_FAIL(ASTRAL_E_IO, astral_index_query(m, base, DIM, K, res, K, &count), "faulted");
    CHECK_FAIL(ASTRAL_E_IO, astral_index_add(m, &id, 1, base, DIM), "faulted");
    CHECK_FAIL(ASTRAL_E_IO, astral_index_save_to_buffer(m, NULL, 0, &size), "faulted");
    CHECK_OK(astral_index_destroy(m));
    /* Nothing else was hurt. */
    buf = save_buffer(h, &size);
    free(buf);
    CHECK_OK(astral_index_query(h, base, DIM, K, res, K, &count));
    CHECK_OK(astral_index_destroy(h));
    unlink(path);
}

/* One fixed sequence of calls; the last removes leave a fifth of a graph
 * tombstoned, which starts a compaction, and the save comes right after. */
static unsigned char *script(uint32_t kind, uint32_t storage, size_t *size) {
    AstralIndex h = make_index(kind, storage);
    unsigned char *buf;
    CHECK_OK(astral_index_add(h, base_ids, 300, base, 300 * DIM));
    for (int i = 300; i < N; i += 20) {
        CHECK_OK(astral_index_add(h, base_ids + i, 20, base + (size_t)i * DIM, 20 * DIM));
    }
    CHECK_OK(astral_index_remove(h, base_ids + 10, 40));
    CHECK_OK(astral_index_remove(h, base_ids + 100, 60));
    buf = save_buffer(h, size);
    CHECK_OK(astral_index_destroy(h));
    return buf;
}

static void test_deterministic_saves(uint32_t kind, uint32_t storage, int rounds) {
    size_t want_size = 0;
    unsigned char *want = script(kind, storage, &want_size);
    int differ = 0;
    for (int r = 0; r < rounds; r++) {
        size_t size = 0;
        unsigned char *got = script(kind, storage, &size);
        if (size != want_size || memcmp(got, want, size) != 0) {
            differ++;
        }
        free(got);
    }
    if (differ != 0) {
        fprintf(stderr, "kind %u storage %u: %d of %d saves differ from the first\n", (unsigned)kind,
                (unsigned)storage, differ, rounds);
    }
    CHECK(differ == 0);
    free(want);
}

/* Whether this process maps path (Linux: /proc/self/maps). */
static int maps_file(const char *path) {
    char line[1024];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        found = found || strstr(line, path) != NULL;
    }
    fclose(f);
    return found;
}

static void test_shutdown_unmaps(void) {
    char path[512];
    AstralIndex h = make_index(ASTRAL_KIND_FLAT, ASTRAL_STORAGE_E5M2), m = ASTRAL_INDEX_NONE;
    AstralResult res[K];
    uint32_t count = 0;
    temp_path(path, sizeof path, "shutdown");
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    CHECK_OK(astral_index_save(h, path));
    CHECK_OK(astral_index_load(path, &m));
    if (maps_file(path) < 0) {
        fprintf(stderr, "test_shutdown_unmaps: no /proc/self/maps, skipped\n");
    } else {
        CHECK(maps_file(path) == 1);
        CHECK_OK(astral_shutdown());
        CHECK(maps_file(path) == 0);
        CHECK_OK(astral_init(NULL));
        CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query(m, base, DIM, K, res, K, &count), "stale");
        CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_destroy(h), "stale");
    }
    unlink(path);
}

/* Under dot and L2 a vector longer than ASTRAL_MAX_NORM (FLT_MAX among
 * them) is refused: its scores could be +Inf. */
static void test_max_norm(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    AstralResult res[K];
    uint32_t count = 0;
    float v[DIM] = {0};
    uint64_t id = 7;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.metric = ASTRAL_METRIC_L2;
    o.storage = ASTRAL_STORAGE_F32;
    CHECK_OK(astral_index_create(&o, &h));
    v[2] = 3.4028234663852886e38f; /* FLT_MAX */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add(h, &id, 1, v, DIM), "MaxNorm");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, v, DIM, K, res, K, &count), "MaxNorm");
    v[2] = (float)ASTRAL_MAX_NORM;
    CHECK_OK(astral_index_add(h, &id, 1, v, DIM));
    v[2] = -(float)ASTRAL_MAX_NORM;
    CHECK_OK(astral_index_query(h, v, DIM, K, res, K, &count));
    CHECK(count == 1 && res[0].score == 4 * (float)ASTRAL_MAX_NORM * (float)ASTRAL_MAX_NORM);
    CHECK_OK(astral_index_destroy(h));
}

int main(void) {
    const uint32_t storages[] = {ASTRAL_STORAGE_E5M2, ASTRAL_STORAGE_E4M3, ASTRAL_STORAGE_INT8,
                                 ASTRAL_STORAGE_F16, ASTRAL_STORAGE_F32};
    for (int i = 0; i < N; i++) {
        base_ids[i] = 1000 + (uint64_t)i;
    }
    test_fill(base, N * DIM, 3);
    CHECK_OK(astral_init(NULL));
    test_truncated_mapping(ASTRAL_KIND_FLAT);
    test_truncated_mapping(ASTRAL_KIND_HNSW);
#ifdef ASTRAL_GO_ASAN
    /* The -asan library is about 40 times slower: one repeat per case runs
     * every save path through it; the plain build's repeats give the
     * background compaction its other timings. */
    const int graph_rounds = 1, flat_rounds = 1;
#else
    const int graph_rounds = 12, flat_rounds = 5;
#endif
    for (size_t s = 0; s < sizeof storages / sizeof storages[0]; s++) {
        test_deterministic_saves(ASTRAL_KIND_HNSW, storages[s], graph_rounds);
        test_deterministic_saves(ASTRAL_KIND_FLAT, storages[s], flat_rounds);
    }
    test_max_norm();
    test_shutdown_unmaps();
    CHECK_OK(astral_shutdown());
    return check_report("test_mapsave");
}
