/* Scoped search through the C ABI (issue 17): records added with tags,
 * owners and payloads (astral_index_add_ex), filtered queries of every kind
 * on flat and HNSW indexes checked against a brute force computed here
 * from the same vectors, batch equal to single, set_tags, the payload
 * buffer protocol, attributes kept by every way of saving and loading, the
 * stats' counters, and every bad input with its status and message. */
#include <stddef.h>

#include "check.h"

enum { DIM = 16, N = 600, K = 10, NQ = 12, MAX_RESULTS = 64 };

static float base[N * DIM];
static uint64_t base_ids[N], base_tags[N], base_owners[N];
static char payload_text[N][24];
static const void *payload_ptrs[N];
static uint32_t payload_sizes[N];
static float queries[NQ * DIM];

/* Record i: id i + 1; tag bit i % 6, plus bit 10 on every third; owner
 * i % 20 (0: none); a payload on every fifth. */
static void make_fixture(void) {
    test_fill(base, N * DIM, 17);
    test_fill(queries, NQ * DIM, 18);
    for (int i = 0; i < N; i++) {
        base_ids[i] = (uint64_t)i + 1;
        base_tags[i] = (uint64_t)1 << (i % 6) | (i % 3 == 0 ? (uint64_t)1 << 10 : 0);
        base_owners[i] = (uint64_t)(i % 20);
        if (i % 5 == 0) {
            payload_sizes[i] = (uint32_t)snprintf(payload_text[i], sizeof payload_text[i], "memory of %d", i);
            payload_ptrs[i] = payload_text[i];
        }
    }
}

static AstralIndex make_index(uint32_t kind) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.metric = ASTRAL_METRIC_L2;
    o.storage = ASTRAL_STORAGE_F32; /* exact scores, comparable with the brute force */
    o.hnsw_m = 8;
    CHECK_OK(astral_index_create(&o, &h));
    return h;
}

static AstralIndex make_scoped_index(uint32_t kind) {
    AstralIndex h = make_index(kind);
    CHECK_OK(astral_index_add_ex(h, base_ids, N, base, N * DIM, base_tags, base_owners, payload_ptrs,
                                 payload_sizes));
    return h;
}

/* ---- brute force ---------------------------------------------------------- */

static int in_list(const uint64_t *ids, uint64_t n, uint64_t id) {
    for (uint64_t i = 0; i < n; i++) {
        if (ids[i] == id) {
            return 1;
        }
    }
    return 0;
}

/* Whether record i passes o's filter, by the header's definitions. */
static int passes(const AstralQueryOptions *o, const uint64_t *tags, int i) {
    uint64_t t = tags[i], id = base_ids[i];
    return (t & o->all_tags) == o->all_tags && (o->any_tags == 0 || (t & o->any_tags) != 0) &&
           (t & o->no_tags) == 0 && (o->owner == 0 || base_owners[i] == o->owner) &&
           (o->allow_ids == NULL || in_list(o->allow_ids, o->allow_count, id)) &&
           !in_list(o->deny_ids, o->deny_count, id);
}

static int record_of(uint64_t id) { return id >= 1 && id <= N ? (int)(id - 1) : -1; }

static double l2(const float *q, int i) {
    double d = 0;
    for (int j = 0; j < DIM; j++) {
        double x = (double)q[j] - (double)base[i * DIM + j];
        d += x * x;
    }
    return d;
}

typedef struct {
    double dist;
    uint64_t id;
} Scored;

static int by_dist(const void *a, const void *b) {
    const Scored *x = a, *y = b;
    if (x->dist != y->dist) {
        return x->dist < y->dist ? -1 : 1;
    }
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The exact filtered top k of q, in double; returns how many (k or fewer). */
static uint32_t brute_force(const float *q, const AstralQueryOptions *o, const uint64_t *tags, Scored *out) {
    static Scored all[N];
    uint32_t m = 0;
    for (int i = 0; i < N; i++) {
        if (passes(o, tags, i)) {
            all[m].dist = l2(q, i);
            all[m].id = base_ids[i];
            m++;
        }
    }
    qsort(all, m, sizeof all[0], by_dist);
    m = m < o->k ? m : o->k;
    memcpy(out, all, m * sizeof all[0]);
    return m;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-4 * (1 + fabs(b)); }

/* Checks one query's results against the brute force: the count, every
 * result passing the filter with its true distance, best first; for an
 * exact plan the brute force's ids (a swap only between distances equal
 * in float). Returns the results' recall. */
static double check_answer(const float *q, const AstralQueryOptions *o, const uint64_t *tags,
                           const AstralResult *r, uint32_t n, uint32_t plan, int exact) {
    Scored want[MAX_RESULTS];
    uint32_t m = brute_force(q, o, tags, want), hits = 0;
    int bad = 0;
    CHECK(n == m);
    CHECK(results_ordered(r, n, 1));
    for (uint32_t i = 0; i < n; i++) {
        int rec = record_of(r[i].id);
        bad += rec < 0 || !passes(o, tags, rec) || !close_to(r[i].score, l2(q, rec));
        for (uint32_t j = 0; j < m; j++) {
            hits += want[j].id == r[i].id;
        }
        if (exact && i < m && r[i].id != want[i].id) {
            bad += !close_to(r[i].score, want[i].dist) || rec < 0 || !close_to(l2(q, rec), want[i].dist);
        }
    }
    if (exact) {
        CHECK(plan != ASTRAL_PLAN_GRAPH);
    }
    CHECK(bad == 0);
    return m == 0 ? 1.0 : (double)hits / m;
}

/* The filters: every condition alone, combined, and ones matching nothing. */
static const uint64_t allow_list[] = {598, 4, 4, 77, 123, 5000, 250, 251, 252, 9, 300, 301, 302, 303,
                                      304, 305, 306, 310, 400, 1};
static const uint64_t deny_list[] = {5, 1, 9, 9, 77};
static const uint64_t absent_ids[] = {N + 100, N + 200};

enum { FILTERS = 12 };

static AstralQueryOptions filter_case(int c) {
    AstralQueryOptions o = ASTRAL_QUERY_OPTIONS_INIT(K);
    switch (c) {
    case 0: break; /* no filter */
    case 1: o.owner = 3; break;
    case 2: o.all_tags = (uint64_t)1 << 1 | (uint64_t)1 << 10; break;
    case 3: o.any_tags = (uint64_t)1 << 2 | (uint64_t)1 << 4; break;
    case 4: o.no_tags = (uint64_t)1 << 0 | (uint64_t)1 << 10; break;
    case 5: o.allow_ids = allow_list; o.allow_count = sizeof allow_list / sizeof allow_list[0]; break;
    case 6: o.deny_ids = deny_list; o.deny_count = sizeof deny_list / sizeof deny_list[0]; break;
    case 7:
        o.any_tags = (uint64_t)1 << 0 | (uint64_t)1 << 4 | (uint64_t)1 << 5;
        o.no_tags = (uint64_t)1 << 10;
        o.deny_ids = deny_list;
        o.deny_count = sizeof deny_list / sizeof deny_list[0];
        break;
    case 8: o.owner = (uint64_t)1 << 40; break; /* no such owner: 0 results, no error */
    case 9: o.allow_ids = allow_list; o.allow_count = 0; break; /* an empty allowlist matches nothing */
    case 10: o.allow_ids = absent_ids; o.allow_count = 2; break;
    case 11: o.all_tags = (uint64_t)1 << 5; o.k = 60; o.ef = 300; break;
    }
    return o;
}

/* Flat: every filter exact. HNSW: exact for the direct and scan plans; the
 * graph plan at recall >= 0.9 over all its queries. Batch equals single
 * bit for bit. */
static void test_filtered_queries(uint32_t kind) {
    AstralIndex h = make_scoped_index(kind);
    double recall = 0;
    int graph = 0;
    for (int c = 0; c < FILTERS; c++) {
        AstralQueryOptions o = filter_case(c);
        AstralResult r[MAX_RESULTS], b[NQ * MAX_RESULTS];
        uint32_t n = 99, plan = 99, bplan = 99, counts[NQ];
        CHECK_OK(astral_index_query_batch_ex(h, queries, NQ, DIM, &o, b, NQ * o.k, counts, &bplan));
        for (int q = 0; q < NQ; q++) {
            const float *v = queries + q * DIM;
            CHECK_OK(astral_index_query_ex(h, v, DIM, &o, r, MAX_RESULTS, &n, &plan));
            CHECK(plan <= ASTRAL_PLAN_GRAPH);
            if (kind == ASTRAL_KIND_FLAT) {
                CHECK(plan != ASTRAL_PLAN_GRAPH);
            }
            double got = check_answer(v, &o, base_tags, r, n, plan, plan != ASTRAL_PLAN_GRAPH);
            if (plan == ASTRAL_PLAN_GRAPH) {
                recall += got;
                graph++;
            }
            CHECK(counts[q] == n && plan == bplan);
            for (uint32_t i = 0; i < n; i++) {
                const AstralResult *x = &b[q * o.k + i];
                CHECK(x->id == r[i].id && memcmp(&x->score, &r[i].score, sizeof x->score) == 0);
            }
        }
        if (c == 5) {
            CHECK(plan == ASTRAL_PLAN_DIRECT); /* a small allowlist is scored directly */
        }
        if (c >= 8 && c <= 10) {
            CHECK(n == 0);
        }
    }
    if (graph > 0) {
        printf("kind %u: graph plan on %d queries, recall %.3f\n", kind, graph, recall / graph);
        CHECK(recall / graph >= 0.9);
    }
    CHECK_OK(astral_index_destroy(h));
}

/* An allowlist query equals the unfiltered query over a flat index holding
 * only those ids, bit for bit; in an HNSW index (direct plan) too. */
static void test_allowlist_equals_subset(void) {
    AstralIndex sub = make_index(ASTRAL_KIND_FLAT);
    uint64_t ids[32];
    float v[32 * DIM];
    uint64_t n_ids = 0;
    for (size_t i = 0; i < sizeof allow_list / sizeof allow_list[0]; i++) {
        int rec = record_of(allow_list[i]);
        if (rec >= 0 && !in_list(ids, n_ids, allow_list[i])) {
            ids[n_ids] = allow_list[i];
            memcpy(v + n_ids * DIM, base + rec * DIM, sizeof(float) * DIM);
            n_ids++;
        }
    }
    CHECK_OK(astral_index_add(sub, ids, n_ids, v, n_ids * DIM));
    for (uint32_t kind = ASTRAL_KIND_FLAT; kind <= ASTRAL_KIND_HNSW; kind++) {
        AstralIndex h = make_scoped_index(kind);
        AstralQueryOptions o = filter_case(5);
        for (int q = 0; q < NQ; q++) {
            AstralResult want[K], got[K];
            uint32_t wn = 0, gn = 0, plan = 99;
            CHECK_OK(astral_index_query(sub, queries + q * DIM, DIM, K, want, K, &wn));
            CHECK_OK(astral_index_query_ex(h, queries + q * DIM, DIM, &o, got, K, &gn, &plan));
            CHECK(wn == K && gn == wn);
            for (uint32_t i = 0; i < gn; i++) {
                CHECK(got[i].id == want[i].id && memcmp(&got[i].score, &want[i].score, sizeof got[i].score) == 0);
            }
        }
        CHECK_OK(astral_index_destroy(h));
    }
    CHECK_OK(astral_index_destroy(sub));
}

/* ---- attributes ----------------------------------------------------------- */

/* Every record's tags, owner and payload are what was added (tags: the
 * given array). */
static int attributes_are(AstralIndex h, const uint64_t *tags) {
    int bad = 0;
    for (int i = 0; i < N; i++) {
        uint64_t t = 1, o = 1;
        unsigned char buf[ASTRAL_MAX_PAYLOAD];
        size_t size = 99;
        bad += astral_index_get_attributes(h, base_ids[i], &t, &o) != ASTRAL_OK;
        bad += t != tags[i] || o != base_owners[i];
        bad += astral_index_get_payload(h, base_ids[i], buf, sizeof buf, &size) != ASTRAL_OK;
        bad += size != payload_sizes[i] || memcmp(buf, payload_text[i], size) != 0;
    }
    return bad == 0;
}

static void test_set_tags(void) {
    AstralIndex h = make_scoped_index(ASTRAL_KIND_FLAT);
    static uint64_t tags[N];
    uint64_t ids[50], new_tags[50];
    const uint64_t moved = (uint64_t)1 << 20;
    memcpy(tags, base_tags, sizeof tags);
    for (int i = 0; i < 50; i++) {
        ids[i] = base_ids[i * 7];
        new_tags[i] = moved | (uint64_t)i;
        tags[i * 7] = new_tags[i];
    }
    CHECK_OK(astral_index_set_tags(h, ids, new_tags, 50));
    CHECK(attributes_are(h, tags));
    AstralQueryOptions o = ASTRAL_QUERY_OPTIONS_INIT(K);
    o.all_tags = moved;
    for (int q = 0; q < NQ; q++) {
        AstralResult r[K];
        uint32_t n = 0, plan = 99;
        CHECK_OK(astral_index_query_ex(h, queries + q * DIM, DIM, &o, r, K, &n, &plan));
        check_answer(queries + q * DIM, &o, tags, r, n, plan, 1);
    }
    CHECK_OK(astral_index_set_tags(h, NULL, NULL, 0));

    /* All or nothing: an unknown or repeated id changes no record. */
    uint64_t bad_ids[3] = {ids[0], 99999, ids[1]}, bad_tags[3] = {1, 2, 3};
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_set_tags(h, bad_ids, bad_tags, 3), "id 99999");
    bad_ids[1] = ids[0];
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_set_tags(h, bad_ids, bad_tags, 3), "repeated");
    CHECK(attributes_are(h, tags));
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tags(h, NULL, bad_tags, 3), "ids is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tags(h, bad_ids, NULL, 3), "tags is NULL");
    CHECK_FAIL(ASTRAL_E_OUT_OF_MEMORY, astral_index_set_tags(h, bad_ids, bad_tags, SIZE_MAX), "too large");
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_set_tags(h, ids, new_tags, 1), "stale");
}

static void test_payloads(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT);
    static unsigned char big[ASTRAL_MAX_PAYLOAD + 1], buf[ASTRAL_MAX_PAYLOAD + 8];
    const void *p[3] = {big, NULL, "abc"};
    uint32_t sizes[3] = {ASTRAL_MAX_PAYLOAD, 0, 3};
    uint64_t ids[3] = {1, 2, 3}, t = 9, o = 9;
    size_t size = 99;
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (unsigned char)(i * 7);
    }
    CHECK_OK(astral_index_add_ex(h, ids, 3, base, 3 * DIM, NULL, NULL, p, sizes));
    CHECK_OK(astral_index_get_payload(h, 1, buf, sizeof buf, &size));
    CHECK(size == ASTRAL_MAX_PAYLOAD && memcmp(buf, big, size) == 0);
    CHECK_OK(astral_index_get_payload(h, 1, buf, ASTRAL_MAX_PAYLOAD, &size));
    CHECK(size == ASTRAL_MAX_PAYLOAD);
    /* Too small, or asking: nothing copied, the size needed reported. */
    memset(buf, 0xEE, sizeof buf);
    size = 99;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_get_payload(h, 1, buf, ASTRAL_MAX_PAYLOAD - 1, &size),
               "holds 4096 bytes");
    CHECK(size == ASTRAL_MAX_PAYLOAD && buf[0] == 0xEE);
    size = 0;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_get_payload(h, 3, NULL, 0, &size), "capacity 0");
    CHECK(size == 3);
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_get_payload(h, 3, buf, 2, &size), "capacity 2");
    CHECK(size == 3 && buf[0] == 0xEE);
    CHECK_OK(astral_index_get_payload(h, 3, buf, 3, &size));
    CHECK(size == 3 && memcmp(buf, "abc", 3) == 0);
    size = 99;
    CHECK_OK(astral_index_get_payload(h, 2, NULL, 0, &size)); /* no payload */
    CHECK(size == 0);
    CHECK_OK(astral_index_get_attributes(h, 2, &t, &o)); /* tags and owners NULL: 0 */
    CHECK(t == 0 && o == 0);

    size = 99;
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_payload(h, 4, buf, sizeof buf, &size), "id 4");
    CHECK(size == 0);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_payload(h, 1, buf, sizeof buf, NULL), "out_size is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_payload(h, 1, NULL, 8, &size), "buffer is NULL");
    t = o = 9;
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_attributes(h, 4, &t, &o), "id 4");
    CHECK(t == 0 && o == 0);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_attributes(h, 1, NULL, &o), "NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_attributes(h, 1, &t, NULL), "NULL");

    AstralStats s = {0};
    s.struct_size = sizeof s;
    CHECK_OK(astral_index_stats(h, &s));
    CHECK(s.payload_count == 2 && s.payload_bytes == ASTRAL_MAX_PAYLOAD + 3 && s.owner_count == 0);
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_get_payload(h, 1, buf, sizeof buf, &size), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_get_attributes(h, 1, &t, &o), "stale");
}

/* ---- bad input ------------------------------------------------------------ */

static void test_add_ex_bad_input(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT);
    static unsigned char big[ASTRAL_MAX_PAYLOAD + 1];
    const void *p[3] = {"a", big, "c"};
    uint32_t sizes[3] = {1, ASTRAL_MAX_PAYLOAD + 1, 1};
    uint64_t ids[3] = {1, 2, 3}, tags[3] = {1, 2, 3}, owners[3] = {7, 7, 8}, count = 99;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, ids, 3, base, 3 * DIM, tags, owners, p, sizes),
               "payload_sizes[1] = 4097 (id 2): at most 4096");
    sizes[1] = 5;
    p[1] = NULL;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, ids, 3, base, 3 * DIM, tags, owners, p, sizes),
               "payloads[1] is NULL with payload_sizes[1] = 5");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, ids, 3, base, 3 * DIM, tags, owners, p, NULL),
               "payloads given without payload_sizes");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, ids, 3, base, 3 * DIM, tags, owners, NULL, sizes),
               "payload_sizes given without payloads");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, NULL, 3, base, 3 * DIM, tags, owners, NULL, NULL),
               "ids is NULL with count 3");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_add_ex(h, ids, 3, NULL, 3 * DIM, tags, owners, NULL, NULL),
               "vectors is NULL");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_add_ex(h, ids, 3, base, 3 * DIM - 1, tags, owners, NULL, NULL),
               "47 values for 3 ids of dimension 16");
    CHECK_FAIL(ASTRAL_E_OUT_OF_MEMORY, astral_index_add_ex(h, ids, SIZE_MAX, base, 3 * DIM, tags, owners, NULL, NULL),
               "too large");
    /* All or nothing: a repeated id stores no record, tag, owner or payload. */
    ids[2] = 1;
    sizes[1] = 1;
    p[1] = "b";
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_add_ex(h, ids, 3, base, 3 * DIM, tags, owners, p, sizes),
               "repeated");
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == 0);
    AstralStats s = {0};
    s.struct_size = sizeof s;
    CHECK_OK(astral_index_stats(h, &s));
    CHECK(s.payload_count == 0 && s.payload_bytes == 0 && s.owner_count == 0);
    float nan_v[DIM] = {0};
    nan_v[3] = NAN;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_add_ex(h, ids, 1, nan_v, DIM, tags, owners, p, sizes), "NaN");
    CHECK_OK(astral_index_add_ex(h, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL));
    CHECK_OK(astral_index_add_ex(h, ids, 2, base, 2 * DIM, NULL, NULL, NULL, NULL)); /* no attributes */
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_add_ex(h, ids, 1, base, DIM, tags, NULL, NULL, NULL),
               "already stored");
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_add_ex(h, ids, 1, base, DIM, NULL, NULL, NULL, NULL), "stale");
}

static void test_query_ex_bad_input(void) {
    AstralIndex h = make_scoped_index(ASTRAL_KIND_FLAT);
    AstralQueryOptions good = ASTRAL_QUERY_OPTIONS_INIT(K), o;
    AstralResult r[K];
    uint32_t n, plan, counts[2] = {7, 7};
    float nan_q[DIM] = {0};
    const uint64_t one = 5;
    nan_q[0] = NAN;

#define FAILS(why)                                                                                       \
    do {                                                                                                 \
        n = 99;                                                                                          \
        plan = 99;                                                                                       \
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, queries, DIM, &o, r, K, &n, &plan), why); \
        CHECK(n == 0 && plan == 0);                                                                      \
        counts[0] = counts[1] = 7;                                                                       \
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT,                                                            \
                   astral_index_query_batch_ex(h, queries, 1, DIM, &o, r, K, counts, &plan), why);       \
        CHECK(counts[0] == 0 && counts[1] == 7 && plan == 0);                                            \
    } while (0)

    o = good, o.struct_size = 0;
    FAILS("struct_size 0");
    o = good, o.struct_size = (uint32_t)offsetof(AstralQueryOptions, rank_relevance) - 8; /* below the first layout */
    FAILS("struct_size");
    o = good, o.struct_size = 4097;
    FAILS("struct_size 4097");
    o = good, o.reserved = 1;
    FAILS("reserved is 1: must be 0");
    o = good, o.k = 0;
    FAILS("k = 0");
    o = good, o.k = ASTRAL_MAX_K + 1;
    FAILS("k = 1025");
    o = good, o.ef = 5000;
    FAILS("ef 5000");
    o = good, o.allow_count = 5;
    FAILS("allow_ids is NULL with allow_count 5");
    o = good, o.deny_count = 3;
    FAILS("deny_ids is NULL with deny_count 3");
    o = good, o.allow_ids = &one, o.allow_count = ASTRAL_MAX_FILTER_IDS + 1;
    FAILS("at most 268435456 ids");
    o = good, o.deny_ids = &one, o.deny_count = UINT64_MAX;
    FAILS("at most 268435456 ids");
#undef FAILS

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, queries, DIM, NULL, r, K, &n, &plan),
               "options is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_batch_ex(h, queries, 1, DIM, NULL, r, K, counts, &plan),
               "options is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, NULL, DIM, &good, r, K, &n, &plan), "query is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, queries, DIM, &good, NULL, K, &n, &plan),
               "results is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_ex(h, queries, DIM, &good, r, K, NULL, &plan),
               "out count is NULL");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query_ex(h, queries, DIM, &good, r, K - 1, &n, &plan),
               "results holds 9, k = 10 needs 10");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query_batch_ex(h, queries, 2, DIM, &good, r, K, counts, &plan),
               "2 queries x k = 10 need 20");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_query_ex(h, queries, DIM - 1, &good, r, K, &n, &plan),
               "query has 15 values");
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_query_ex(h, nan_q, DIM, &good, r, K, &n, &plan), "NaN");
    /* out_plan may be NULL; query_count 0 reads nothing. */
    CHECK_OK(astral_index_query_ex(h, queries, DIM, &good, r, K, &n, NULL));
    CHECK(n == K);
    CHECK_OK(astral_index_query_batch_ex(h, NULL, 0, DIM, &good, NULL, 0, NULL, NULL));

    /* A newer header's larger struct: its unknown tail is ignored. */
    {
        unsigned char roomy[sizeof(AstralQueryOptions) + 16];
        memset(roomy, 0xFF, sizeof roomy);
        memcpy(roomy, &good, sizeof good);
        ((AstralQueryOptions *)(void *)roomy)->struct_size = sizeof roomy;
        CHECK_OK(astral_index_query_ex(h, queries, DIM, (const AstralQueryOptions *)(void *)roomy, r, K, &n, &plan));
        CHECK(n == K);
    }
    /* A non-NULL deny_ids with deny_count 0 denies nothing. */
    o = good, o.deny_ids = &one;
    CHECK_OK(astral_index_query_ex(h, queries, DIM, &o, r, K, &n, &plan));
    CHECK(n == K);
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query_ex(h, queries, DIM, &good, r, K, &n, &plan), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query_batch_ex(h, queries, 1, DIM, &good, r, K, counts, &plan),
               "stale");
}

/* ---- frame budgets -------------------------------------------------------- */

/* A budget that cannot run out gives astral_index_query_ex's ids, score
 * bits, count and plan, reported complete; one of a microsecond still
 * gives sorted results with their true scores. */
static void test_query_within(uint32_t kind) {
    AstralIndex h = make_scoped_index(kind);
    for (int c = 0; c < FILTERS; c++) {
        AstralQueryOptions o = filter_case(c);
        for (int q = 0; q < NQ; q++) {
            const float *v = queries + q * DIM;
            AstralResult want[MAX_RESULTS], got[MAX_RESULTS];
            uint32_t wn = 0, gn = 99, plan = 99;
            AstralBudgetReport rep;
            memset(&rep, 0xAB, sizeof rep);
            rep.struct_size = sizeof rep;
            CHECK_OK(astral_index_query_ex(h, v, DIM, &o, want, MAX_RESULTS, &wn, &plan));
            CHECK_OK(astral_index_query_within(h, v, DIM, &o, UINT64_MAX, got, MAX_RESULTS, &gn, &rep));
            CHECK(gn == wn && memcmp(want, got, wn * sizeof want[0]) == 0);
            CHECK(rep.struct_size == sizeof rep && rep.complete == 1 && rep.covered == 1.0 && rep.plan == plan &&
                  rep.elapsed_ns > 0 && rep.reserved == 0);
            CHECK_OK(astral_index_query_within(h, v, DIM, &o, 60u * 1000 * 1000, got, MAX_RESULTS, &gn, NULL));
            CHECK(gn == wn && memcmp(want, got, wn * sizeof want[0]) == 0);

            /* 1 us: whatever was found, sorted and scored as the full query. */
            AstralQueryOptions all = o;
            AstralResult every[N];
            uint32_t en = 0;
            all.k = N;
            CHECK_OK(astral_index_query_ex(h, v, DIM, &all, every, N, &en, NULL));
            CHECK_OK(astral_index_query_within(h, v, DIM, &o, 1, got, MAX_RESULTS, &gn, &rep));
            CHECK(gn <= o.k && rep.covered >= 0.0 && rep.covered <= 1.0 && (rep.complete == 1) == (rep.covered == 1.0));
            for (uint32_t i = 0; i < gn; i++) {
                uint32_t j = 0;
                while (j < en && every[j].id != got[i].id) {
                    j++;
                }
                CHECK(j < en && memcmp(&every[j].score, &got[i].score, sizeof got[i].score) == 0);
                CHECK(i == 0 || got[i - 1].score < got[i].score ||
                      (got[i - 1].score == got[i].score && got[i - 1].id < got[i].id)); /* L2: lower first */
            }
        }
    }
    CHECK_OK(astral_index_destroy(h));
}

static void test_query_within_bad_input(void) {
    AstralIndex h = make_scoped_index(ASTRAL_KIND_FLAT);
    AstralQueryOptions good = ASTRAL_QUERY_OPTIONS_INIT(K), o;
    AstralResult r[K];
    AstralBudgetReport rep = {0};
    uint32_t n;
    float nan_q[DIM] = {0};
    nan_q[0] = NAN;
    rep.struct_size = sizeof rep;

    n = 99;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &good, 0, r, K, &n, &rep),
               "budget_us is 0");
    CHECK(n == 0);
    o = good, o.k = 0;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &o, 100, r, K, &n, &rep), "k = 0");
    o = good, o.struct_size = 4;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &o, 100, r, K, &n, &rep),
               "struct_size");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, NULL, 100, r, K, &n, &rep),
               "options is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, NULL, DIM, &good, 100, r, K, &n, &rep),
               "query is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &good, 100, NULL, K, &n, &rep),
               "results is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &good, 100, r, K, NULL, &rep),
               "out count is NULL");
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_query_within(h, queries, DIM, &good, 100, r, K - 1, &n, &rep),
               "results holds 9, k = 10 needs 10");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_query_within(h, queries, DIM - 1, &good, 100, r, K, &n, &rep),
               "query has 15 values");
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_query_within(h, nan_q, DIM, &good, 100, r, K, &n, &rep), "NaN");
    rep.struct_size = sizeof rep - 8;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &good, 100, r, K, &n, &rep),
               "struct_size");
    rep.struct_size = 4097;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_query_within(h, queries, DIM, &good, 100, r, K, &n, &rep),
               "struct_size 4097");
    /* A newer header's larger report: the tail past this library's is kept. */
    {
        unsigned char roomy[sizeof(AstralBudgetReport) + 16];
        memset(roomy, 0xEE, sizeof roomy);
        ((AstralBudgetReport *)(void *)roomy)->struct_size = sizeof roomy;
        CHECK_OK(astral_index_query_within(h, queries, DIM, &good, UINT64_MAX, r, K, &n,
                                           (AstralBudgetReport *)(void *)roomy));
        CHECK(n == K && ((AstralBudgetReport *)(void *)roomy)->complete == 1);
        for (size_t i = sizeof(AstralBudgetReport); i < sizeof roomy; i++) {
            CHECK(roomy[i] == 0xEE);
        }
    }
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_query_within(h, queries, DIM, &good, 100, r, K, &n, NULL), "stale");
}

/* ---- persistence and stats ------------------------------------------------ */

/* The same filtered answers, bit for bit, and the same attributes. */
static int same_scoped(AstralIndex a, AstralIndex b) {
    int bad = 0;
    for (int c = 0; c < FILTERS; c++) {
        AstralQueryOptions o = filter_case(c);
        static AstralResult ra[NQ * MAX_RESULTS], rb[NQ * MAX_RESULTS];
        uint32_t ca[NQ], cb[NQ], pa, pb;
        bad += astral_index_query_batch_ex(a, queries, NQ, DIM, &o, ra, NQ * o.k, ca, &pa) != ASTRAL_OK;
        bad += astral_index_query_batch_ex(b, queries, NQ, DIM, &o, rb, NQ * o.k, cb, &pb) != ASTRAL_OK;
        bad += memcmp(ca, cb, sizeof ca) != 0 || pa != pb;
        for (uint32_t i = 0; i < NQ * o.k; i++) {
            bad += ra[i].id != rb[i].id || memcmp(&ra[i].score, &rb[i].score, sizeof ra[i].score) != 0;
        }
    }
    return bad == 0 && attributes_are(b, base_tags);
}

static void test_save_load(void) {
    const char *path = "test_scoped.idx";
    for (uint32_t kind = ASTRAL_KIND_FLAT; kind <= ASTRAL_KIND_HNSW; kind++) {
        AstralIndex h = make_scoped_index(kind), mapped, bg, mem;
        AstralStats want = {0}, got = {0};
        size_t size = 0;
        CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_save_to_buffer(h, NULL, 0, &size), "needs");
        unsigned char *buf = malloc(size);
        CHECK(buf != NULL);
        CHECK_OK(astral_index_save_to_buffer(h, buf, size, &size));
        remove(path);
        CHECK_OK(astral_index_save(h, path));
        CHECK_OK(astral_index_load(path, &mapped));
        CHECK_OK(astral_index_load_ex(path, ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &bg));
        CHECK_OK(astral_index_verify(bg));
        CHECK_OK(astral_index_load_from_memory(buf, size, &mem));
        free(buf);
        want.struct_size = got.struct_size = sizeof want;
        CHECK_OK(astral_index_stats(h, &want));
        CHECK(want.payload_count == N / 5 && want.owner_count == 19);
        AstralIndex loaded[3] = {mapped, bg, mem};
        for (int i = 0; i < 3; i++) {
            CHECK(same_scoped(h, loaded[i]));
            CHECK_OK(astral_index_stats(loaded[i], &got));
            CHECK(got.payload_count == want.payload_count && got.payload_bytes == want.payload_bytes &&
                  got.owner_count == want.owner_count);
            CHECK_OK(astral_index_destroy(loaded[i]));
        }
        CHECK_OK(astral_index_destroy(h));
    }
    remove(path);
}

static uint64_t plan_count(const AstralStats *s, uint32_t plan) {
    return plan == ASTRAL_PLAN_SCAN ? s->scan_queries : plan == ASTRAL_PLAN_DIRECT ? s->direct_queries : s->graph_queries;
}

/* Each plan counts its queries; a batch once per ASTRAL_MAX_BATCH. */
static void test_plan_counters(void) {
    AstralIndex h = make_scoped_index(ASTRAL_KIND_HNSW);
    AstralStats before = {0}, after = {0};
    static AstralResult r[NQ * MAX_RESULTS];
    uint32_t n, plan, counts[NQ];
    before.struct_size = after.struct_size = sizeof before;
    for (int c = 0; c < FILTERS; c++) {
        AstralQueryOptions o = filter_case(c);
        CHECK_OK(astral_index_stats(h, &before));
        CHECK_OK(astral_index_query_ex(h, queries, DIM, &o, r, NQ * K, &n, &plan));
        CHECK_OK(astral_index_stats(h, &after));
        for (uint32_t p = ASTRAL_PLAN_SCAN; p <= ASTRAL_PLAN_GRAPH; p++) {
            CHECK(plan_count(&after, p) == plan_count(&before, p) + (p == plan));
        }
        CHECK_OK(astral_index_query_batch_ex(h, queries, NQ, DIM, &o, r, NQ * o.k, counts, &plan));
        CHECK_OK(astral_index_stats(h, &before));
        CHECK(before.scan_queries + before.direct_queries + before.graph_queries ==
              after.scan_queries + after.direct_queries + after.graph_queries + 1);
    }
    CHECK(after.direct_queries > 0 && after.graph_queries > 0);
    CHECK_OK(astral_index_destroy(h));
}

int main(void) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    init.thread_count = 1;
    make_fixture();
    CHECK_OK(astral_init(&init));
    test_filtered_queries(ASTRAL_KIND_FLAT);
    test_filtered_queries(ASTRAL_KIND_HNSW);
    test_allowlist_equals_subset();
    test_set_tags();
    test_payloads();
    test_add_ex_bad_input();
    test_query_ex_bad_input();
    test_query_within(ASTRAL_KIND_FLAT);
    test_query_within(ASTRAL_KIND_HNSW);
    test_query_within_bad_input();
    test_save_load();
    test_plan_counters();
    CHECK_OK(astral_shutdown());
    return check_report("test_scoped");
}
