/* The single-record calls and tag names through the C ABI (issue 18):
 * contains, clear, upsert, get_vector, set_tag_name, get_tag_name and
 * find_tag on flat, HNSW and auto indexes; tag names kept by clear and by
 * every way of saving and loading; every bad input with its status and
 * message. */
#include "check.h"

enum { DIM = 16, N = 300 };

static float base[N * DIM];
static uint64_t base_ids[N], base_tags[N], base_owners[N];

static void make_fixture(void) {
    test_fill(base, N * DIM, 41);
    for (int i = 0; i < N; i++) {
        base_ids[i] = (uint64_t)i + 1;
        base_tags[i] = (uint64_t)1 << (i % 5);
        base_owners[i] = (uint64_t)(i % 7);
    }
}

static AstralIndex make_index(uint32_t kind, uint32_t metric, uint64_t flat_limit) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.metric = metric;
    o.storage = ASTRAL_STORAGE_F32; /* exact vectors back */
    o.hnsw_m = 8;
    o.flat_limit_bytes = flat_limit;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add_ex(h, base_ids, N, base, N * DIM, base_tags, base_owners, NULL, NULL));
    return h;
}

static int is_stored(AstralIndex h, uint64_t id) {
    int c = 7;
    CHECK_OK(astral_index_contains(h, id, &c));
    CHECK(c == 0 || c == 1);
    return c;
}

/* The structure in use once an auto index's background switch is done: a
 * save settles it first (asked for its size, it writes nothing). */
static uint32_t kind_now(AstralIndex h) {
    AstralStats s = {0};
    size_t size = 0;
    AstralStatus st = astral_index_save_to_buffer(h, NULL, 0, &size);
    CHECK(st == ASTRAL_E_BUFFER_TOO_SMALL);
    s.struct_size = sizeof s;
    CHECK_OK(astral_index_stats(h, &s));
    return s.kind;
}

/* The nearest record to v: its id, or 0 for none. */
static uint64_t nearest(AstralIndex h, const float *v) {
    AstralResult r[1];
    uint32_t n = 0;
    CHECK_OK(astral_index_query(h, v, DIM, 1, r, 1, &n));
    return n == 1 ? r[0].id : 0;
}

static void test_records(uint32_t kind, uint64_t flat_limit, uint32_t want_kind) {
    AstralIndex h = make_index(kind, ASTRAL_METRIC_L2, flat_limit);
    float v[DIM], fresh[3 * DIM];
    uint64_t count = 0, tags = 0, owner = 0;
    int bad = 0;
    CHECK(kind_now(h) == want_kind);
    CHECK(is_stored(h, 1) && is_stored(h, N) && !is_stored(h, N + 1));
    for (int i = 0; i < N; i++) {
        CHECK_OK(astral_index_get_vector(h, base_ids[i], v, DIM));
        bad += memcmp(v, base + i * DIM, sizeof v) != 0; /* f32, L2: exact */
    }
    CHECK(bad == 0);

    /* Upsert: ids 5 and 6 replaced, N + 1 new, attributes and payloads with them. */
    uint64_t ids[3] = {5, 6, N + 1}, new_tags[3] = {1u << 20, 0, 3}, new_owners[3] = {42, 0, 42};
    const void *p[3] = {"five", NULL, "new"};
    uint32_t sizes[3] = {4, 0, 3};
    char buf[8];
    size_t size = 0;
    test_fill(fresh, 3 * DIM, 42);
    CHECK_OK(astral_index_upsert(h, ids, 3, fresh, 3 * DIM, new_tags, new_owners, p, sizes));
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N + 1);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(astral_index_get_vector(h, ids[i], v, DIM));
        CHECK(memcmp(v, fresh + i * DIM, sizeof v) == 0);
        CHECK_OK(astral_index_get_attributes(h, ids[i], &tags, &owner));
        CHECK(tags == new_tags[i] && owner == new_owners[i]);
        CHECK_OK(astral_index_get_payload(h, ids[i], buf, sizeof buf, &size));
        CHECK(size == sizes[i] && memcmp(buf, p[i] == NULL ? "" : p[i], size) == 0);
        CHECK(nearest(h, fresh + i * DIM) == ids[i] || want_kind == ASTRAL_KIND_HNSW);
    }
    /* Owner 42 holds exactly the two records given it. */
    AstralQueryOptions o = ASTRAL_QUERY_OPTIONS_INIT(10);
    AstralResult r[10];
    uint32_t n = 0;
    o.owner = 42;
    CHECK_OK(astral_index_query_ex(h, fresh, DIM, &o, r, 10, &n, NULL));
    CHECK(n == 2);
    /* Upsert with no attributes drops the old ones, payload included. */
    CHECK_OK(astral_index_upsert(h, ids, 1, fresh, DIM, NULL, NULL, NULL, NULL));
    CHECK_OK(astral_index_get_attributes(h, 5, &tags, &owner));
    CHECK(tags == 0 && owner == 0);
    CHECK_OK(astral_index_get_payload(h, 5, NULL, 0, &size));
    CHECK(size == 0);
    CHECK_OK(astral_index_upsert(h, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL));

    /* Clear: empty, tag names kept, an auto index flat again, same ids reusable. */
    CHECK_OK(astral_index_set_tag_name(h, 4, "Threat"));
    CHECK_OK(astral_index_clear(h));
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == 0 && !is_stored(h, 1));
    CHECK(nearest(h, base) == 0);
    CHECK(kind_now(h) == (kind == ASTRAL_KIND_HNSW ? ASTRAL_KIND_HNSW : ASTRAL_KIND_FLAT));
    CHECK_OK(astral_index_get_tag_name(h, 4, buf, sizeof buf, &size));
    CHECK(size == 6 && strcmp(buf, "Threat") == 0);
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_vector(h, 1, v, DIM), "id 1");
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    CHECK(is_stored(h, 1));
    CHECK_OK(astral_index_destroy(h));
}

static void test_cosine_vector(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT, ASTRAL_METRIC_COSINE, 0);
    float v[DIM];
    double norm = 0, dot = 0, base_norm = 0;
    CHECK_OK(astral_index_get_vector(h, 3, v, DIM));
    for (int c = 0; c < DIM; c++) {
        norm += (double)v[c] * v[c];
        dot += (double)v[c] * base[2 * DIM + c];
        base_norm += (double)base[2 * DIM + c] * base[2 * DIM + c];
    }
    /* The unit vector along the one added. */
    CHECK(fabs(norm - 1) < 1e-5);
    CHECK(fabs(dot - sqrt(base_norm)) < 1e-4 * sqrt(base_norm));
    CHECK_OK(astral_index_destroy(h));
}

static void test_tag_names(void) {
    AstralIndex h = make_index(ASTRAL_KIND_HNSW, ASTRAL_METRIC_L2, 0);
    char buf[ASTRAL_MAX_TAG_NAME + 1], name[ASTRAL_MAX_TAG_NAME + 2];
    size_t size = 99;
    uint32_t bit = 99;
    AstralStats s = {0};
    s.struct_size = sizeof s;
    CHECK_OK(astral_index_set_tag_name(h, 0, "Enemy"));
    CHECK_OK(astral_index_set_tag_name(h, 63, "Quest.Main"));
    CHECK_OK(astral_index_set_tag_name(h, 0, "Enemy")); /* the same again */
    CHECK_OK(astral_index_find_tag(h, "Quest.Main", &bit));
    CHECK(bit == 63);
    CHECK_OK(astral_index_get_tag_name(h, 0, buf, sizeof buf, &size));
    CHECK(size == 5 && strcmp(buf, "Enemy") == 0);
    CHECK_OK(astral_index_get_tag_name(h, 0, buf, 6, &size)); /* exactly the name and its NUL */
    CHECK(size == 5 && strcmp(buf, "Enemy") == 0);
    CHECK_OK(astral_index_get_tag_name(h, 1, buf, 1, &size)); /* no name */
    CHECK(size == 0 && buf[0] == 0);
    CHECK_OK(astral_index_stats(h, &s));
    CHECK(s.tag_name_count == 2);

    /* Saved and loaded every way: the names come back. */
    static unsigned char file[1 << 20];
    size_t len = 0;
    CHECK_OK(astral_index_save_to_buffer(h, file, sizeof file, &len));
    AstralIndex g = ASTRAL_INDEX_NONE;
    CHECK_OK(astral_index_load_from_memory(file, len, &g));
    CHECK_OK(astral_index_find_tag(g, "Enemy", &bit));
    CHECK(bit == 0);
    CHECK_OK(astral_index_get_tag_name(g, 63, buf, sizeof buf, &size));
    CHECK(size == 10 && strcmp(buf, "Quest.Main") == 0);
    CHECK_OK(astral_index_destroy(g));
    const char *path = "test_records.astral";
    CHECK_OK(astral_index_save(h, path));
    CHECK_OK(astral_index_load(path, &g));
    CHECK_OK(astral_index_find_tag(g, "Quest.Main", &bit));
    CHECK(bit == 63);
    /* Clear on a mapped index: the names stay, the file is let go. */
    CHECK_OK(astral_index_clear(g));
    CHECK_OK(astral_index_find_tag(g, "Enemy", &bit));
    CHECK_OK(astral_index_destroy(g));
    remove(path);

    /* Bad input: status and message, nothing changed. */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 64, "x"), "bit 64: want 0 to 63");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 5, "Enemy"), "already bit 0");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 5, "bad\xff"), "UTF-8");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 5, "new\nline"), "control character");
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 5, name), "longer than 64 bytes");
    name[ASTRAL_MAX_TAG_NAME] = 0; /* exactly the longest */
    CHECK_OK(astral_index_set_tag_name(h, 5, name));
    CHECK_OK(astral_index_get_tag_name(h, 5, buf, sizeof buf, &size));
    CHECK(size == ASTRAL_MAX_TAG_NAME && strcmp(buf, name) == 0);
    size = 99;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_get_tag_name(h, 0, buf, 5, &size), "capacity 5");
    CHECK(size == 5);
    size = 99;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_get_tag_name(h, 0, NULL, 0, &size), "capacity 0");
    CHECK(size == 5);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_tag_name(h, 64, buf, sizeof buf, &size), "bit 64");
    CHECK(size == 0);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_tag_name(h, 0, buf, sizeof buf, NULL), "out_size is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_tag_name(h, 0, NULL, 8, &size), "buffer is NULL");
    bit = 99;
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_find_tag(h, "Friend", &bit), "Friend");
    CHECK(bit == 0);
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_find_tag(h, "", &bit), "no tag bit");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_find_tag(h, NULL, &bit), "NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_find_tag(h, "Enemy", NULL), "NULL");
    /* NULL and "" clear. */
    CHECK_OK(astral_index_set_tag_name(h, 0, NULL));
    CHECK_OK(astral_index_set_tag_name(h, 63, ""));
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_find_tag(h, "Enemy", &bit), "Enemy");
    CHECK_OK(astral_index_stats(h, &s));
    CHECK(s.tag_name_count == 1);
    CHECK_OK(astral_index_destroy(h));
}

static void test_bad_input(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT, ASTRAL_METRIC_L2, 0);
    float v[DIM], nan_v[2 * DIM];
    uint64_t ids[2] = {1, 2}, count = 0;
    static unsigned char big[ASTRAL_MAX_PAYLOAD + 1];
    const void *p[2] = {"a", big};
    uint32_t sizes[2] = {1, ASTRAL_MAX_PAYLOAD + 1};
    int c = 7;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_contains(h, 1, NULL), "out_contains is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_get_vector(h, 1, NULL, DIM), "out_vector is NULL");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_get_vector(h, 1, v, DIM - 1), "value_count 15, index dimension is 16");
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_get_vector(h, N + 5, v, DIM), "id 305");
    /* Upsert checks as add_ex does; on failure nothing changes. */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert(h, ids, 2, base, 2 * DIM, NULL, NULL, p, sizes),
               "payload_sizes[1] = 4097 (id 2): at most 4096");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert(h, ids, 2, base, 2 * DIM, NULL, NULL, p, NULL),
               "payloads given without payload_sizes");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert(h, NULL, 2, base, 2 * DIM, NULL, NULL, NULL, NULL),
               "ids is NULL with count 2");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_upsert(h, ids, 2, NULL, 2 * DIM, NULL, NULL, NULL, NULL),
               "vectors is NULL");
    CHECK_FAIL(ASTRAL_E_DIMENSION, astral_index_upsert(h, ids, 2, base, 2 * DIM - 1, NULL, NULL, NULL, NULL),
               "31 values for 2 ids of dimension 16");
    CHECK_FAIL(ASTRAL_E_OUT_OF_MEMORY, astral_index_upsert(h, ids, SIZE_MAX, base, 2 * DIM, NULL, NULL, NULL, NULL),
               "too large");
    memcpy(nan_v, base + 5 * DIM, sizeof nan_v);
    nan_v[DIM + 3] = NAN;
    CHECK_FAIL(ASTRAL_E_NON_FINITE, astral_index_upsert(h, ids, 2, nan_v, 2 * DIM, NULL, NULL, NULL, NULL), "NaN");
    ids[1] = 1;
    CHECK_FAIL(ASTRAL_E_DUPLICATE_ID, astral_index_upsert(h, ids, 2, base + 5 * DIM, 2 * DIM, NULL, NULL, NULL, NULL),
               "repeated");
    CHECK_OK(astral_index_get_vector(h, 1, v, DIM));
    CHECK(memcmp(v, base, sizeof v) == 0);
    CHECK_OK(astral_index_count(h, &count));
    CHECK(count == N);
    /* A stale handle: every call says so. */
    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_contains(h, 1, &c), "stale");
    CHECK(c == 0);
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_clear(h), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_upsert(h, ids, 1, base, DIM, NULL, NULL, NULL, NULL), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_get_vector(h, 1, v, DIM), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_set_tag_name(h, 0, "x"), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_find_tag(h, "x", &sizes[0]), "stale");
}

int main(void) {
    CHECK_OK(astral_init(NULL));
    make_fixture();
    test_records(ASTRAL_KIND_FLAT, 0, ASTRAL_KIND_FLAT);
    test_records(ASTRAL_KIND_HNSW, 0, ASTRAL_KIND_HNSW);
    test_records(ASTRAL_KIND_AUTO, 0, ASTRAL_KIND_FLAT);
    /* 300 f32 records of 256 bytes pass a 4 KiB limit: a graph. */
    test_records(ASTRAL_KIND_AUTO, 4096, ASTRAL_KIND_HNSW);
    test_cosine_vector();
    test_tag_names();
    test_bad_input();
    CHECK_OK(astral_shutdown());
    return check_report("test_records");
}
