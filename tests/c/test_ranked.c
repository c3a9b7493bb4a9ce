/* Memory ranking through the C ABI (issue 20): records added with times
 * and importances (astral_index_add_memories), replaced with them
 * (astral_index_upsert_memories), astral_index_touch and
 * astral_index_set_importance, astral_index_get_memory, ranked queries
 * whose order follows the ranking's terms, the first AstralQueryOptions
 * layout ranking by similarity, the attributes kept by a save and load,
 * and every bad input with its status and message. */
#include "check.h"

enum { DIM = 16, N = 400, K = 10 };

static float base[N * DIM];
static uint64_t base_ids[N];
static int64_t base_times[N];
static float base_imps[N];

/* Record i: id i + 1, time 1000 + (i * 7919) % N (distinct), importance
 * ((i * 104729) % N) / N (distinct). */
static void make_fixture(void) {
    test_fill(base, N * DIM, 31);
    for (int i = 0; i < N; i++) {
        base_ids[i] = (uint64_t)i + 1;
        base_times[i] = 1000 + (int64_t)((i * 7919) % N);
        base_imps[i] = (float)((i * 104729) % N) / (float)N;
    }
}

static AstralIndex make_index(uint32_t kind) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.metric = ASTRAL_METRIC_COSINE;
    o.hnsw_m = 8;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add_memories(h, base_ids, N, base, N * DIM, NULL, NULL, NULL, NULL, base_times,
                                       base_imps));
    return h;
}

static int same_results(const AstralResult *a, const AstralResult *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (a[i].id != b[i].id || memcmp(&a[i].score, &b[i].score, sizeof a[i].score) != 0) {
            return 0;
        }
    }
    return 1;
}

/* With only one term weighted, the results are the records with the
 * largest value of it, in its order. */
static void test_single_terms(uint32_t kind) {
    AstralIndex h = make_index(kind);
    AstralResult res[K];
    uint32_t n = 0;
    AstralQueryOptions o = ASTRAL_QUERY_OPTIONS_INIT(K);
    o.rank_recency = 1;
    o.rank_decay = 0.99;
    o.rank_now = 1000 + N;
    CHECK_OK(astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL));
    CHECK(n == K);
    for (uint32_t i = 0; i < n; i++) {
        int row = (int)res[i].id - 1;
        CHECK(base_times[row] == 1000 + N - 1 - (int64_t)i); /* newest first */
    }
    /* A touched record comes first, with recency 1. */
    uint64_t old = 0;
    for (int i = 0; i < N; i++) {
        if (base_times[i] == 1000) {
            old = base_ids[i];
        }
    }
    CHECK_OK(astral_index_touch(h, &old, 1, 1000 + N));
    CHECK_OK(astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL));
    CHECK(res[0].id == old && res[0].score == 1.0f);

    AstralQueryOptions imp = ASTRAL_QUERY_OPTIONS_INIT(K);
    imp.rank_importance = 2;
    CHECK_OK(astral_index_query_ex(h, base, DIM, &imp, res, K, &n, NULL));
    CHECK(n == K && results_ordered(res, n, 0));
    for (uint32_t i = 0; i < n; i++) {
        CHECK(res[i].score == 2 * (float)(N - 1 - (int)i) / (float)N);
    }
    CHECK_OK(astral_index_set_importance(h, &old, 1, 100));
    CHECK_OK(astral_index_query_ex(h, base, DIM, &imp, res, K, &n, NULL));
    CHECK(res[0].id == old && res[0].score == 200.0f);
    int64_t t = 0;
    float v = 0;
    CHECK_OK(astral_index_get_memory(h, old, &t, &v));
    CHECK(t == 1000 + N && v == 100.0f);

    /* Relevance alone, and the first layout, are a plain query (compared
     * field by field: AstralResult has padding). */
    AstralResult plain[K], ranked[K];
    uint32_t np = 0, nr = 0;
    CHECK_OK(astral_index_query(h, base + DIM, DIM, K, plain, K, &np));
    AstralQueryOptions rel = ASTRAL_QUERY_OPTIONS_INIT(K);
    rel.rank_relevance = 1;
    CHECK_OK(astral_index_query_ex(h, base + DIM, DIM, &rel, ranked, K, &nr, NULL));
    CHECK(np == nr && same_results(plain, ranked, nr));
    AstralQueryOptions v1 = o;
    v1.struct_size = 80;
    CHECK_OK(astral_index_query_ex(h, base + DIM, DIM, &v1, ranked, K, &nr, NULL));
    CHECK(np == nr && same_results(plain, ranked, nr));

    /* Saved and loaded, the times and importances stay. */
    size_t need = 0;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_save_to_buffer(h, NULL, 0, &need), "needs");
    unsigned char *buf = malloc(need);
    CHECK(buf != NULL);
    CHECK_OK(astral_index_save_to_buffer(h, buf, need, &need));
    AstralIndex loaded = ASTRAL_INDEX_NONE;
    CHECK_OK(astral_index_load_from_memory(buf, need, &loaded));
    CHECK_OK(astral_index_get_memory(loaded, old, &t, &v));
    CHECK(t == 1000 + N && v == 100.0f);
    CHECK_OK(astral_index_get_memory(loaded, base_ids[5], &t, &v));
    CHECK(t == base_times[5] && v == base_imps[5]);
    CHECK_OK(astral_index_destroy(loaded));
    free(buf);
    CHECK_OK(astral_index_destroy(h));
}

static void test_bad_input(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT);
    AstralResult res[K];
    uint32_t n = 0;
    uint64_t ids[2] = {1, 1};
    int64_t t = 5;
    float v = 5;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_touch(h, NULL, 1, 0), "ids is NULL");
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_touch(h, (uint64_t[]){1, 99999}, 2, 0), "id 99999");
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_touch(h, ids, 2, 0), "repeated");
    CHECK_FAIL(ASTRAL_E_OUT_OF_MEMORY, astral_index_touch(h, ids, SIZE_MAX, 0), "too large");
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_set_importance(h, ids, 1, NAN), "importance");
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_set_importance(h, ids, 1, INFINITY), "importance");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_importance(h, NULL, 3, 1), "ids is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_memory(h, 1, NULL, &v), "NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_memory(h, 1, &t, NULL), "NULL");
    CHECK(t == 0);
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_memory(h, 99999, &t, &v), "99999");
    CHECK(t == 0 && v == 0);
    CHECK_OK(astral_index_touch(h, NULL, 0, 7));
    CHECK_OK(astral_index_get_memory(h, 1, &t, &v));
    CHECK(t == base_times[0] && v == base_imps[0]);

    float bad_imps[2] = {1, NAN};
    uint64_t new_ids[2] = {5000, 5001};
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_add_memories(h, new_ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, NULL, bad_imps), "importance");
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_memory(h, 5000, &t, &v), "");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_add_memories(h, new_ids, 2, base, DIM, NULL, NULL, NULL, NULL, NULL, NULL), "values");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_memories(h, NULL, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, NULL, NULL), "NULL");
    CHECK_OK(astral_index_add_memories(h, new_ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, NULL, NULL));

    /* astral_index_upsert_memories: stored id 1 and new id 6000 replaced
     * or added with their times and importances in one call, all or
     * nothing. */
    uint64_t up_ids[2] = {1, 6000};
    int64_t up_times[2] = {-3, 77};
    float up_imps[2] = {9.5f, 0.25f};
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_upsert_memories(h, up_ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, up_times, bad_imps), "importance");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_upsert_memories(h, up_ids, 2, base, DIM, NULL, NULL, NULL, NULL, up_times, up_imps), "values");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert_memories(h, NULL, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, up_times, up_imps), "NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert_memories(h, up_ids, 2, NULL, 2 * DIM, NULL, NULL, NULL, NULL, up_times, up_imps), "NULL");
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_upsert_memories(h, ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, up_times, up_imps), "repeated");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert_memories(h, up_ids, 2, base, 2 * DIM, NULL, NULL, NULL, (uint32_t[]){0, 0}, up_times, up_imps), "payload");
    CHECK_OK(astral_index_get_memory(h, 1, &t, &v));
    CHECK(t == base_times[0] && v == base_imps[0]);
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_memory(h, 6000, &t, &v), "");
    CHECK_OK(astral_index_upsert_memories(h, up_ids, 2, base + DIM, 2 * DIM, NULL, NULL, NULL, NULL, up_times, up_imps));
    CHECK_OK(astral_index_get_memory(h, 1, &t, &v));
    CHECK(t == -3 && v == 9.5f);
    CHECK_OK(astral_index_get_memory(h, 6000, &t, &v));
    CHECK(t == 77 && v == 0.25f);
    CHECK_OK(astral_index_upsert_memories(h, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL));

    AstralQueryOptions o = ASTRAL_QUERY_OPTIONS_INIT(K);
    o.rank_recency = 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "decay");
    o.rank_decay = 1.5;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "decay");
    o.rank_decay = NAN;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "decay");
    o.rank_decay = 0.5;
    o.rank_importance = -1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "importance weight");
    o.rank_importance = INFINITY;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "importance weight");
    o.rank_importance = 0;
    o.rank_relevance = NAN;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "relevance weight");
    o.rank_relevance = 1;
    o.reserved2 = 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "reserved2");
    o.reserved2 = 0;
    o.reserved3 = 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "reserved3");
    o.reserved3 = 0;
    o.nprobe = (1u << 20) + 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL), "nprobe 1048577");
    o.nprobe = 3; /* a flat index ignores it */
    CHECK_OK(astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL));
    o.nprobe = 0;
    CHECK_OK(astral_index_query_ex(h, base, DIM, &o, res, K, &n, NULL));
    CHECK(n == K);

    AstralIndex stale = h;
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_touch(stale, ids, 1, 0), "");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_set_importance(stale, ids, 1, 0), "");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_get_memory(stale, 1, &t, &v), "");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_add_memories(stale, new_ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, NULL, NULL), "");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_upsert_memories(stale, up_ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL, up_times, up_imps), "");

    /* An L2 index does not rank. */
    AstralIndexOptions lo = {0};
    AstralIndex l2 = ASTRAL_INDEX_NONE;
    lo.struct_size = sizeof lo;
    lo.dimension = DIM;
    lo.metric = ASTRAL_METRIC_L2;
    CHECK_OK(astral_index_create(&lo, &l2));
    CHECK_OK(astral_index_add_memories(l2, base_ids, 20, base, 20 * DIM, NULL, NULL, NULL, NULL, base_times, base_imps));
    AstralQueryOptions io = ASTRAL_QUERY_OPTIONS_INIT(K);
    io.rank_importance = 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(l2, base, DIM, &io, res, K, &n, NULL), "l2");
    CHECK_OK(astral_index_destroy(l2));
}

int main(void) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    init.thread_count = 1;
    make_fixture();
    CHECK_OK(astral_init(&init));
    test_single_terms(ASTRAL_KIND_FLAT);
    test_single_terms(ASTRAL_KIND_HNSW);
    test_bad_input();
    CHECK_OK(astral_shutdown());
    return check_report("test_ranked");
}
