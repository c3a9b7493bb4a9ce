/* The C ABI test suite: every function with valid and invalid input, each
 * returning its documented status and a message. Single-threaded; the
 * concurrent cases are in test_threads.c. */
#include "check.h"

enum { DIM = 8, N = 100 };

static float base[N * DIM];
static uint64_t base_ids[N];

/* An index of DIM with the N base vectors, ids 1000 + i. */
static AstralIndex make_index(uint32_t metric) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.metric = metric;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK(h != ASTRAL_INDEX_NONE);
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    return h;
}

static void test_version_and_strings(void) {
    char buf[64];
    CHECK(astral_version_number() == ASTRAL_VERSION_NUMBER);
    CHECK(ASTRAL_VERSION_COMPATIBLE(astral_version_number()));
    CHECK(!ASTRAL_VERSION_COMPATIBLE(ASTRAL_VERSION_NUMBER + 1000000));
    CHECK(ASTRAL_VERSION_NUMBER == ASTRAL_VERSION_MAJOR * 1000000 + ASTRAL_VERSION_MINOR * 1000 +
                                       ASTRAL_VERSION_PATCH);
    snprintf(buf, sizeof buf, "%d.%d.%d", ASTRAL_VERSION_MAJOR, ASTRAL_VERSION_MINOR,
             ASTRAL_VERSION_PATCH);
    CHECK(strcmp(buf, ASTRAL_VERSION_STRING) == 0);

    /* Every code has its own static string; others are "unknown status". */
    for (AstralStatus s = ASTRAL_OK; s <= ASTRAL_E_UNSUPPORTED; s++) {
        const char *name = astral_status_string(s);
        CHECK(name != NULL && strcmp(name, "unknown status") != 0);
        for (AstralStatus t = ASTRAL_OK; t < s; t++) {
            CHECK(strcmp(name, astral_status_string(t)) != 0);
        }
    }
    CHECK(strcmp(astral_status_string(ASTRAL_OK), "ok") == 0);
    CHECK(strcmp(astral_status_string(ASTRAL_E_UNSUPPORTED + 1), "unknown status") == 0);
    CHECK(strcmp(astral_status_string(-1), "unknown status") == 0);
    CHECK(strcmp(astral_status_string(INT32_MAX), "unknown status") == 0);
}

static void test_before_init(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = 12345;
    AstralResult r[4];
    uint32_t n = 99, counts[1];
    uint64_t count = 7, id = 1;
    float q[DIM] = {0};
    AstralStats st;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    st.struct_size = sizeof st;

    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_create(&o, &h), "astral_init");
    CHECK(h == ASTRAL_INDEX_NONE);
    h = ((AstralIndex)1 << 32) | 1; /* what the first handle would be */
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_add(h, &id, 1, q, DIM), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_remove(h, &id, 1), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_query(h, q, DIM, 1, r, 4, &n), "astral_init");
    CHECK(n == 0);
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_query_batch(h, q, 1, DIM, 1, r, 4, counts),
               "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_count(h, &count), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_stats(h, &st), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_destroy(h), "astral_init");
    CHECK_OK(astral_index_destroy(ASTRAL_INDEX_NONE));
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_shutdown(), "not initialized");
}

static void test_last_error(void) {
    char buf[8];
    char big[1024];
    size_t full;
    /* Make a known failure, then read it back in every way. */
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_shutdown(), "not initialized");
    full = astral_last_error(big, sizeof big);
    CHECK(full == strlen(big) && full > sizeof buf);
    CHECK(strcmp(big, "astral_shutdown: not initialized") == 0);
    CHECK(astral_last_error(NULL, 0) == full);
    memset(buf, 'x', sizeof buf);
    CHECK(astral_last_error(buf, 0) == full);
    CHECK(buf[0] == 'x'); /* capacity 0: nothing written */
    CHECK(astral_last_error(buf, 1) == full);
    CHECK(buf[0] == '\0');
    CHECK(astral_last_error(buf, sizeof buf) == full);
    CHECK(buf[sizeof buf - 1] == '\0' && strncmp(buf, big, sizeof buf - 1) == 0);
    /* A success leaves the message alone. */
    CHECK(astral_version_number() != 0);
    astral_last_error(buf, sizeof buf);
    CHECK(strncmp(buf, big, sizeof buf - 1) == 0);
}

static void test_init(void) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    int32_t cpus[2] = {0, 0};
    unsigned char bigger[sizeof(AstralInit) + 16];
    AstralInit *grown = (AstralInit *)(void *)bigger;

    init.struct_size = (uint32_t)offsetof(AstralInit, max_procs) - 1; /* below the first layout */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "struct_size");
    init.struct_size = 0;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "struct_size 0");
    init.struct_size = sizeof init;
    init.thread_count = -2;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "thread count -2");
    init.thread_count = ASTRAL_MAX_THREADS + 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "thread count 257");
    init.thread_count = 1;
    init.flags = 0x10;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "unknown flags 0x10");
    init.flags = 0;
    init.cpus = cpus;
    init.cpu_count = 2;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "without ASTRAL_INIT_PIN_THREADS");
    init.flags = ASTRAL_INIT_PIN_THREADS;
    init.cpus = NULL;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "cpus is NULL");

    /* A struct from a newer header: the fields this library lacks are
     * ignored, set or not. */
    memset(bigger, 0, sizeof bigger);
    *grown = (AstralInit)ASTRAL_INIT_DEFAULTS;
    grown->struct_size = sizeof bigger;
    grown->thread_count = 0;
    bigger[sizeof bigger - 1] = 1;
    CHECK_OK(astral_init(grown));
    CHECK_OK(astral_shutdown());
    grown->struct_size = 4097;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(grown), "struct_size 4097");

#ifdef __linux__
    init.cpus = cpus;
    init.thread_count = 2;
    CHECK_OK(astral_init(&init)); /* both workers pinned to CPU 0 */
    CHECK_OK(astral_shutdown());
    cpus[1] = -1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "CPU -1");
#endif

    CHECK_OK(astral_init(NULL));
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(NULL), "already initialized");
    CHECK_OK(astral_shutdown());
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_shutdown(), "not initialized");
}

static void test_create(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = 77;
    unsigned char bigger[sizeof(AstralIndexOptions) + 8];
    AstralIndexOptions *grown = (AstralIndexOptions *)(void *)bigger;

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(NULL, &h), "options is NULL");
    CHECK(h == ASTRAL_INDEX_NONE);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(&o, NULL), "out_index is NULL");

#define CREATE_FAILS(field, value, want, why)      \
    do {                                           \
        AstralIndexOptions b = o;                  \
        b.field = value;                           \
        h = 77;                                    \
        CHECK_FAIL(want, astral_index_create(&b, &h), why); \
        CHECK(h == ASTRAL_INDEX_NONE);             \
    } while (0)
    CREATE_FAILS(struct_size, 4, ASTRAL_E_INVALID_ARGUMENT, "struct_size 4");
    CREATE_FAILS(dimension, 0, ASTRAL_E_INVALID_ARGUMENT, "dimension 0");
    CREATE_FAILS(dimension, ASTRAL_MAX_DIMENSION + 1, ASTRAL_E_INVALID_ARGUMENT, "dimension 4097");
    CREATE_FAILS(dimension, UINT32_MAX, ASTRAL_E_INVALID_ARGUMENT, "dimension 4294967295");
    CREATE_FAILS(metric, 4, ASTRAL_E_INVALID_ARGUMENT, "metric");
    CREATE_FAILS(metric, 0x101, ASTRAL_E_INVALID_ARGUMENT, "unknown metric 257"); /* not 1 when narrowed */
    CREATE_FAILS(kind, 0x100, ASTRAL_E_INVALID_ARGUMENT, "unknown index kind 256"); /* not AUTO */
    CREATE_FAILS(kind, 4, ASTRAL_E_INVALID_ARGUMENT, "unknown index kind 4");
    CREATE_FAILS(storage, 6, ASTRAL_E_INVALID_ARGUMENT, "unknown storage 6");
    CREATE_FAILS(storage, 0x103, ASTRAL_E_INVALID_ARGUMENT, "unknown storage 259"); /* not INT8 when narrowed */
    CREATE_FAILS(rerank_storage, ASTRAL_STORAGE_E5M2, ASTRAL_E_INVALID_ARGUMENT, "rerank_storage 1");
    CREATE_FAILS(rerank_storage, ASTRAL_STORAGE_INT8, ASTRAL_E_INVALID_ARGUMENT, "rerank_storage 3");
    CREATE_FAILS(rerank_storage, 6, ASTRAL_E_INVALID_ARGUMENT, "rerank_storage 6");
    CREATE_FAILS(rerank_storage, 0x104, ASTRAL_E_INVALID_ARGUMENT, "rerank_storage 260"); /* not F16 when narrowed */
    CREATE_FAILS(rerank_factor, 4, ASTRAL_E_INVALID_ARGUMENT, "rerank_factor 4 without a rerank_storage");
    CREATE_FAILS(hnsw_m, 1, ASTRAL_E_INVALID_ARGUMENT, "hnsw_m 1");
    CREATE_FAILS(hnsw_m, 129, ASTRAL_E_INVALID_ARGUMENT, "hnsw_m 129");
    CREATE_FAILS(hnsw_ef_construction, 8, ASTRAL_E_INVALID_ARGUMENT, "hnsw_ef_construction 8");
    CREATE_FAILS(hnsw_ef_construction, 4097, ASTRAL_E_INVALID_ARGUMENT, "hnsw_ef_construction");
    CREATE_FAILS(hnsw_ef_search, 4097, ASTRAL_E_INVALID_ARGUMENT, "hnsw_ef_search 4097");
    CREATE_FAILS(flat_limit_bytes, UINT64_MAX, ASTRAL_E_INVALID_ARGUMENT, "flat_limit_bytes");
#undef CREATE_FAILS
    {
        AstralIndexOptions b = o;
        b.kind = ASTRAL_KIND_IVF;
        b.ivf_nlist = 16;
        b.ivf_nprobe = 17;
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(&b, &h), "ivf_nprobe 17: want 1 to nlist (16)");
        CHECK(h == ASTRAL_INDEX_NONE);
        b.ivf_nlist = UINT32_MAX;
        b.ivf_nprobe = 0;
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(&b, &h), "ivf_nlist 4294967295");
        CHECK(h == ASTRAL_INDEX_NONE);
    }
    {
        AstralIndexOptions b = o;
        b.rerank_storage = ASTRAL_STORAGE_F16;
        b.rerank_factor = ASTRAL_MAX_RERANK_FACTOR + 1;
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(&b, &h), "rerank_factor 65: want 1 to 64");
        CHECK(h == ASTRAL_INDEX_NONE);
    }
    {
        /* A host built with the first layout (no rerank fields): whatever
         * follows its struct is not read. */
        AstralIndexOptions b = o;
        AstralStats s;
        b.struct_size = (uint32_t)offsetof(AstralIndexOptions, rerank_storage);
        b.storage = ASTRAL_STORAGE_INT8;
        b.rerank_storage = 99;
        b.rerank_factor = 1000;
        CHECK_OK(astral_index_create(&b, &h));
        s.struct_size = sizeof s;
        CHECK_OK(astral_index_stats(h, &s));
        CHECK(s.storage == ASTRAL_STORAGE_INT8 && s.rerank_storage == 0 && s.rerank_factor == 0);
        CHECK_OK(astral_index_destroy(h));
    }
    {
        /* HNSW parameters are validated for an HNSW index too. */
        AstralIndexOptions b = o;
        b.kind = ASTRAL_KIND_HNSW;
        b.hnsw_m = 200;
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_create(&b, &h), "hnsw_m 200");
    }

    /* A newer header's struct: its extra fields are ignored. */
    memset(bigger, 0, sizeof bigger);
    *grown = o;
    grown->struct_size = sizeof bigger;
    bigger[sizeof bigger - 2] = 1;
    CHECK_OK(astral_index_create(grown, &h));
    CHECK_OK(astral_index_destroy(h));

    /* Every valid combination of the enums, and the parameter bounds. */
    for (uint32_t metric = 0; metric <= ASTRAL_METRIC_L2; metric++) {
        for (uint32_t kind = 0; kind <= ASTRAL_KIND_FLAT; kind++) {
            AstralIndexOptions b = o;
            b.metric = metric;
            b.kind = kind;
            b.storage = metric % 2 ? ASTRAL_STORAGE_E5M2 : ASTRAL_STORAGE_DEFAULT;
            b.hnsw_m = 2;
            b.hnsw_ef_construction = 2;
            b.hnsw_ef_search = 4096;
            b.flat_limit_bytes = (uint64_t)INT64_MAX;
            CHECK_OK(astral_index_create(&b, &h));
            CHECK_OK(astral_index_destroy(h));
        }
    }
    /* Every storage kind, each with no rerank copy, an F16 and an F32 one
     * (rerank_factor 0, 1, the maximum), reported back by the stats. */
    for (uint32_t storage = 0; storage <= ASTRAL_STORAGE_F32; storage++) {
        static const uint32_t reranks[3] = {0, ASTRAL_STORAGE_F16, ASTRAL_STORAGE_F32};
        static const uint32_t factors[3] = {0, 1, ASTRAL_MAX_RERANK_FACTOR};
        for (int i = 0; i < 3; i++) {
            AstralIndexOptions b = o;
            AstralStats s;
            b.storage = storage;
            b.rerank_storage = reranks[i];
            b.rerank_factor = reranks[i] == 0 ? 0 : factors[storage % 3];
            CHECK_OK(astral_index_create(&b, &h));
            s.struct_size = sizeof s;
            CHECK_OK(astral_index_stats(h, &s));
            CHECK(s.storage == (storage == 0 ? ASTRAL_STORAGE_E5M2 : storage));
            CHECK(s.rerank_storage == reranks[i]);
            CHECK(s.rerank_factor == (reranks[i] == 0 ? 0 : b.rerank_factor == 0 ? ASTRAL_DEFAULT_RERANK_FACTOR : b.rerank_factor));
            CHECK_OK(astral_index_destroy(h));
        }
    }
    o.dimension = ASTRAL_MAX_DIMENSION;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_destroy(h));
}

static void test_handles(void) {
    AstralIndexOptions o = {0};
    AstralIndex a, b, c, forged[6];
    uint64_t count;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    CHECK_OK(astral_index_create(&o, &a));
    CHECK_OK(astral_index_create(&o, &b));
    CHECK(a != b);

    CHECK_OK(astral_index_destroy(b));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_destroy(b), "destroyed");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_count(b, &count), "destroyed");
    /* Its slot is reused under a new generation: b stays stale. */
    CHECK_OK(astral_index_create(&o, &c));
    CHECK(c != b && (c & 0xffffffffu) == (b & 0xffffffffu));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_count(b, &count), "stale");
    CHECK_OK(astral_index_count(c, &count));
    CHECK(count == 0);

    forged[0] = 1;                         /* generation 0: never issued */
    forged[1] = a + ((AstralIndex)2 << 32); /* a generation not reached */
    forged[2] = (a & 0xffffffffu) | ((AstralIndex)0xfffffffeu << 32);
    forged[3] = ((AstralIndex)1 << 32) | 0xffffffu; /* a slot never used */
    forged[4] = UINT64_MAX;
    forged[5] = (AstralIndex)(uintptr_t)&o; /* a pointer passed as a handle */
    for (int i = 0; i < 6; i++) {
        CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_count(forged[i], &count), "never issued");
        CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_destroy(forged[i]), "never issued");
    }
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_count(ASTRAL_INDEX_NONE, &count),
               "ASTRAL_INDEX_NONE");
    CHECK_OK(astral_index_destroy(ASTRAL_INDEX_NONE));

    /* Shutdown destroys what is left; handles from before stay stale in the
     * next session. */
    CHECK_OK(astral_shutdown());
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_count(a, &count), "astral_init");
    CHECK_OK(astral_init(NULL));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_count(a, &count), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_destroy(c), "stale");
}

static void test_add_remove(void) {
    AstralIndex h = make_index(ASTRAL_METRIC_DEFAULT);
    uint64_t count = 0, ids[3] = {1, 2, 3};
    float v[3 * DIM];
    test_fill(v, 3 * DIM, 99);

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add(h, NULL, 3, v, 3 * DIM), "ids is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add(h, ids, 3, NULL, 3 * DIM),
               "vectors is NULL");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_add(h, ids, 3, v, 3 * DIM - 1), "23 values for 3 ids");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_add(h, ids, 2, v, 3 * DIM), "dimension");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_add(h, ids, 3, NULL, 0), "dimension");
    v[5] = NAN;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_add(h, ids, 3, v, 3 * DIM), "NaN");
    v[5] = -INFINITY;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_add(h, ids, 3, v, 3 * DIM), "Inf");
    v[5] = 0.5f;
    ids[2] = 1;
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_add(h, ids, 3, v, 3 * DIM), "repeated");
    ids[2] = base_ids[7];
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_add(h, ids, 3, v, 3 * DIM), "already stored");
    CHECK_FAIL(ASTRAL_E_OUT_OF_MEMORY, astral_index_add(h, ids, SIZE_MAX, v, SIZE_MAX), "too large");
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N); /* failed adds store nothing */

    CHECK_OK(astral_index_add(h, NULL, 0, NULL, 0));
    ids[2] = 3;
    CHECK_OK(astral_index_add(h, ids, 3, v, 3 * DIM));
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N + 3);

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_remove(h, NULL, 1), "ids is NULL");
    ids[1] = 424242;
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_remove(h, ids, 3), "424242");
    ids[1] = 1;
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_remove(h, ids, 3), "repeated");
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N + 3); /* failed removes remove nothing */
    CHECK_OK(astral_index_remove(h, NULL, 0));
    ids[1] = 2;
    CHECK_OK(astral_index_remove(h, ids, 3));
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_remove(h, ids, 1), "id not found");
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N);
    /* Removed ids can be added again. */
    CHECK_OK(astral_index_add(h, ids, 3, v, 3 * DIM));
    CHECK_OK(astral_index_destroy(h));

    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_add(h, ids, 3, v, 3 * DIM), "destroyed");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_remove(h, ids, 3), "destroyed");
}

static void test_query(void) {
    AstralIndex h = make_index(ASTRAL_METRIC_COSINE);
    AstralResult r[ASTRAL_MAX_K + 1];
    uint32_t n = 0;
    float q[DIM];

    /* Each stored vector finds itself first. */
    for (int i = 0; i < N; i += 9) {
        CHECK_OK(astral_index_query(h, base + i * DIM, DIM, 5, r, 5, &n));
        CHECK(n == 5 && r[0].id == base_ids[i] && fabsf(r[0].score - 1.0f) < 0.05f);
        CHECK(results_ordered(r, n, 0));
    }
    /* k above the index size returns every vector. */
    test_fill(q, DIM, 5);
    CHECK_OK(astral_index_query(h, q, DIM, ASTRAL_MAX_K, r, ASTRAL_MAX_K + 1, &n));
    CHECK(n == N);
    CHECK(results_ordered(r, n, 0));
    for (uint32_t i = 0; i < n; i++) {
        CHECK(r[i].id >= 1000 && r[i].id < 1000 + N && r[i].score >= -1.01f && r[i].score <= 1.01f);
    }

    n = 42;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, NULL, DIM, 5, r, 5, &n), "query is NULL");
    CHECK(n == 0); /* *out_count is 0 on failure */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, q, DIM, 5, NULL, 5, &n), "results is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, q, DIM, 5, r, 5, NULL), "out count is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, q, DIM, 0, r, 5, &n), "k = 0");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(h, q, DIM, ASTRAL_MAX_K + 1, r, ASTRAL_MAX_K + 1, &n),
               "k = 1025");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query(h, q, DIM, 5, r, 4, &n), "results holds 4");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query(h, q, DIM, 5, r, 0, &n), "results holds 0");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_query(h, q, DIM - 1, 5, r, 5, &n), "7 values");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_query(h, q, SIZE_MAX, 5, r, 5, &n), "dimension is 8");
    q[3] = NAN;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_query(h, q, DIM, 5, r, 5, &n), "NaN");
    q[3] = INFINITY;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_query(h, q, DIM, 5, r, 5, &n), "Inf");
    CHECK(n == 0);

    CHECK_OK(astral_index_destroy(h));
    test_fill(q, DIM, 5);
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query(h, q, DIM, 5, r, 5, &n), "destroyed");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query(0, q, DIM, 5, r, 5, &n), "ASTRAL_INDEX_NONE");

    /* An empty index returns nothing, successfully. */
    {
        AstralIndexOptions o = {0};
        o.struct_size = sizeof o;
        o.dimension = DIM;
        CHECK_OK(astral_index_create(&o, &h));
        n = 9;
        CHECK_OK(astral_index_query(h, q, DIM, 5, r, 5, &n));
        CHECK(n == 0);
        CHECK_OK(astral_index_destroy(h));
    }
}

static void test_metrics(void) {
    AstralResult r[10];
    uint32_t n;
    /* L2: lower is closer, a stored vector is at distance ~0 from itself. */
    AstralIndex h = make_index(ASTRAL_METRIC_L2);
    CHECK_OK(astral_index_query(h, base + 4 * DIM, DIM, 10, r, 10, &n));
    CHECK(n == 10 && r[0].id == base_ids[4] && fabsf(r[0].score) < 0.05f);
    CHECK(results_ordered(r, n, 1));
    CHECK_OK(astral_index_destroy(h));
    /* Dot: higher is closer. */
    h = make_index(ASTRAL_METRIC_DOT);
    CHECK_OK(astral_index_query(h, base + 4 * DIM, DIM, 10, r, 10, &n));
    CHECK(n == 10);
    CHECK(results_ordered(r, n, 0));
    CHECK_OK(astral_index_destroy(h));
}

static void test_batch(void) {
    enum { NQ = 2 * ASTRAL_MAX_BATCH + 3, K = 7 };
    AstralIndex h = make_index(ASTRAL_METRIC_COSINE);
    static float qs[NQ * DIM];
    static AstralResult r[NQ * K], one[K];
    uint32_t counts[NQ], n;
    test_fill(qs, NQ * DIM, 11);

    /* The same results as one query at a time, bit for bit. */
    CHECK_OK(astral_index_query_batch(h, qs, NQ, DIM, K, r, NQ * K, counts));
    for (int i = 0; i < NQ; i++) {
        CHECK_OK(astral_index_query(h, qs + i * DIM, DIM, K, one, K, &n));
        CHECK(counts[i] == K && n == K);
        CHECK(memcmp(one, r + i * K, K * sizeof one[0]) == 0);
    }
    CHECK_OK(astral_index_query_batch(h, NULL, 0, 0, K, NULL, 0, NULL));

    counts[0] = 5;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch(h, NULL, NQ, DIM, K, r, NQ * K, counts),
               "query is NULL");
    CHECK(counts[0] == 0); /* out_counts are 0 on failure */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch(h, qs, NQ, DIM, K, NULL, NQ * K, counts),
               "results is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch(h, qs, NQ, DIM, K, r, NQ * K, NULL),
               "out count is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch(h, qs, NQ, DIM, 0, r, NQ * K, counts), "k = 0");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query_batch(h, qs, NQ, DIM, K, r, NQ * K - 1, counts),
               "need 245");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch(h, qs, SIZE_MAX, DIM, K, r, NQ * K, counts),
               "too large");
    /* Two rows of 4 are not one row of 8. */
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_query_batch(h, qs, 2, DIM / 2, K, r, NQ * K, counts), "4 values");
    /* A NaN in the last pass: nothing is reported for any query. */
    qs[(NQ - 1) * DIM + 2] = NAN;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_query_batch(h, qs, NQ, DIM, K, r, NQ * K, counts), "NaN");
    for (int i = 0; i < NQ; i++) {
        CHECK(counts[i] == 0);
    }
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query_batch(h, qs, 1, DIM, K, r, K, counts), "destroyed");
}

static void test_count_stats(void) {
    AstralIndex h = make_index(ASTRAL_METRIC_DEFAULT);
    AstralStats s;
    uint64_t count;
    unsigned char bigger[sizeof(AstralStats) + 16];
    AstralStats *grown = (AstralStats *)(void *)bigger;

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_count(h, NULL), "out_count is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_stats(h, NULL), "out_stats is NULL");
    memset(&s, 0xff, sizeof s);
    s.struct_size = 8;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_stats(h, &s), "struct_size 8");

    memset(&s, 0xff, sizeof s);
    s.struct_size = sizeof s;
    CHECK_OK(astral_index_stats(h, &s));
    CHECK(s.struct_size == sizeof s && s.dimension == DIM && s.count == N);
    CHECK(s.metric == ASTRAL_METRIC_COSINE && s.kind == ASTRAL_KIND_FLAT && s.storage == ASTRAL_STORAGE_E5M2);
    CHECK(s.bytes > 0 && s.bytes_per_vector >= DIM);
    CHECK(memchr(s.kernel, '\0', sizeof s.kernel) != NULL && strlen(s.kernel) > 0);
    CHECK(s.thread_count <= ASTRAL_MAX_THREADS);
    CHECK(s.rerank_storage == 0 && s.rerank_factor == 0);

    /* A host built with the first layout (80 bytes): nothing past it is written. */
    memset(bigger, 0xA5, sizeof bigger);
    grown->struct_size = (uint32_t)offsetof(AstralStats, rerank_storage);
    CHECK_OK(astral_index_stats(h, grown));
    CHECK(grown->count == N && grown->dimension == DIM);
    for (size_t i = offsetof(AstralStats, rerank_storage); i < sizeof bigger; i++) {
        CHECK(bigger[i] == 0xA5);
    }

    /* A newer host's bigger struct: the tail this library does not know
     * is left as the host had it. */
    memset(bigger, 0xff, sizeof bigger);
    grown->struct_size = sizeof bigger;
    CHECK_OK(astral_index_stats(h, grown));
    CHECK(grown->count == N && grown->struct_size == sizeof bigger);
    for (size_t i = sizeof(AstralStats); i < sizeof bigger; i++) {
        CHECK(bigger[i] == 0xff);
    }

    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N);
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_stats(h, &s), "destroyed");
}

static void test_experimental(void) {
    enum { NQ = 5, K = 4 };
    AstralIndex h = make_index(ASTRAL_METRIC_COSINE);
    AstralResult c[NQ * K], g[NQ * K];
    uint32_t cn[NQ], gn[NQ];
    uint64_t ns[NQ];
    float f[10 * DIM], fq[2 * DIM];

    /* The Go API's results equal the C path's. */
    CHECK_OK(astral_index_query_batch(h, base, NQ, DIM, K, c, NQ * K, cn));
    CHECK_OK(astral_debug_go_query_pass(h, base, NQ, DIM, K, g, NQ * K, gn, ns));
    /* Ids and score bits, not memcmp: AstralResult's 4 padding bytes are
       not part of a result and the library need not write them. */
    CHECK(memcmp(cn, gn, sizeof cn) == 0);
    for (size_t i = 0; i < NQ * K; i++) {
        CHECK(c[i].id == g[i].id && memcmp(&c[i].score, &g[i].score, sizeof c[i].score) == 0);
    }
    CHECK(ns[0] > 0);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_debug_go_query_pass(h, base, NQ, DIM, K, g, NQ * K, gn, NULL),
               "out_ns is NULL");

    CHECK_OK(astral_debug_fixture("random", 10, 2, DIM, f, fq));
    CHECK(fabsf(f[0]) <= 1.0f && f[0] != 0.0f);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_debug_fixture("nope", 10, 2, DIM, f, fq), "unknown fixture");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_debug_fixture(NULL, 10, 2, DIM, f, fq), "name is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_debug_fixture("random", 10, 2, DIM, NULL, fq), "NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_debug_fixture("random", 10, 2, 0, f, fq), "dimension 0");
    CHECK_OK(astral_index_destroy(h));
}

/* Queries from a C thread allocate nothing on the Go heap. Measured on a
 * serial runtime: with workers, internal/pool parks on channels and the Go
 * runtime may allocate a sudog there (the Go API pays that too). */
static void test_no_go_allocation(void) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    AstralResult r[10];
    uint32_t n;
    uint64_t before, after;
    int failed = 0;
    init.thread_count = 0;
    CHECK_OK(astral_init(&init));
    AstralIndex h = make_index(ASTRAL_METRIC_COSINE);
    for (int i = 0; i < 50; i++) {
        CHECK_OK(astral_index_query(h, base + (i % N) * DIM, DIM, 10, r, 10, &n));
    }
    before = astral_debug_go_mallocs();
    for (int i = 0; i < 5000; i++) {
        failed |= astral_index_query(h, base + (i % N) * DIM, DIM, 10, r, 10, &n) != ASTRAL_OK;
    }
    after = astral_debug_go_mallocs();
    CHECK(!failed);
    printf("Go heap allocations over 5000 queries from a C thread: %llu\n",
           (unsigned long long)(after - before));
#ifdef ASTRAL_GO_ASAN
    printf("(not checked: the library is built with go build -asan)\n");
#else
    CHECK(after == before);
#endif
    CHECK_OK(astral_index_destroy(h));
    CHECK_OK(astral_shutdown());
}

int main(void) {
    for (int i = 0; i < N; i++) {
        base_ids[i] = 1000 + (uint64_t)i;
    }
    test_fill(base, N * DIM, 1);

    test_version_and_strings();
    test_before_init();
    test_last_error();
    test_init();

    CHECK_OK(astral_init(NULL));
    test_create();
    test_handles();
    test_add_remove();
    test_query();
    test_metrics();
    test_batch();
    test_count_stats();
    test_experimental();
    CHECK_OK(astral_shutdown());

    test_before_init(); /* after shutdown, the same */
    test_no_go_allocation();
    return check_report("test_capi");
}
