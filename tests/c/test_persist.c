/* The persistence calls of the C ABI: save to a file and to a buffer, load
 * by mapping and from memory, each answering queries with the same bits as
 * the index saved (flat, HNSW, auto and IVF); damaged buffers (a flipped bit, truncation, garbage,
 * another format version) refused with their status and a message. */
#include "check.h"

enum { DIM = 16, N = 300, K = 10, NQ = 8 };

static float base[N * DIM];
static uint64_t base_ids[N];
static float queries[NQ * DIM];

static AstralIndex make_index(uint32_t kind, uint32_t metric) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.metric = metric;
    o.hnsw_m = 8;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    return h;
}

/* Every query's results, as astral_index_query_batch lays them out. */
static void answers(AstralIndex h, AstralResult *out, uint32_t *counts) {
    memset(out, 0, sizeof(AstralResult) * NQ * K);
    CHECK_OK(astral_index_query_batch(h, queries, NQ, DIM, K, out, NQ * K, counts));
}

/* Same results, bit for bit. */
static int same_answers(AstralIndex a, AstralIndex b) {
    AstralResult ra[NQ * K], rb[NQ * K];
    uint32_t ca[NQ], cb[NQ];
    answers(a, ra, ca);
    answers(b, rb, cb);
    return memcmp(ca, cb, sizeof ca) == 0 && memcmp(ra, rb, sizeof ra) == 0;
}

/* Saves h into a new malloc'ed buffer; *size gets its length. */
static unsigned char *save_buffer(AstralIndex h, size_t *size) {
    size_t need = 0, got = 0;
    unsigned char *buf;
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_save_to_buffer(h, NULL, 0, &need), "needs");
    CHECK(need > 128 && need % 64 == 0);
    buf = malloc(need);
    CHECK(buf != NULL);
    CHECK_FAIL(ASTRAL_E_BUFFER_TOO_SMALL, astral_index_save_to_buffer(h, buf, need - 1, &got),
               "needs");
    CHECK(got == need);
    CHECK_OK(astral_index_save_to_buffer(h, buf, need, &got));
    CHECK(got == need);
    *size = need;
    return buf;
}

/* CRC-32C, bit by bit: enough to forge a header in the version test. */
static uint32_t crc32c(const unsigned char *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) {
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* Recomputes the header checksum (bytes 124..127 over the header, which
 * is get32(buf + 16) bytes long, with the field taken as zero). */
static void reseal_header(unsigned char *buf) {
    uint32_t len = get32(buf + 16);
    put32(buf + 124, 0);
    put32(buf + 124, crc32c(buf, len));
}

static void test_round_trips(uint32_t kind, uint32_t metric) {
    const char *path = "test_persist.idx";
    AstralIndex h = make_index(kind, metric), mem = ASTRAL_INDEX_NONE, mapped = ASTRAL_INDEX_NONE;
    size_t size = 0;
    unsigned char *buf = save_buffer(h, &size);

    /* From memory: a copy, so the buffer may go at once. */
    CHECK_OK(astral_index_load_from_memory(buf, size, &mem));
    memset(buf, 0xA5, size);
    free(buf);
    CHECK(mem != ASTRAL_INDEX_NONE);
    CHECK(same_answers(h, mem));
    {
        AstralResult r[NQ * K];
        uint32_t counts[NQ];
        answers(mem, r, counts);
        for (int i = 0; i < NQ; i++) {
            CHECK(counts[i] == K && results_ordered(r + i * K, counts[i], metric == ASTRAL_METRIC_L2));
        }
    }

    /* To a file and back by mapping. */
    remove(path);
    CHECK_OK(astral_index_save(h, path));
    CHECK_OK(astral_index_load(path, &mapped));
    CHECK(same_answers(h, mapped));
    {
        AstralStats a, b;
        a.struct_size = sizeof a;
        b.struct_size = sizeof b;
        CHECK_OK(astral_index_stats(h, &a));
        CHECK_OK(astral_index_stats(mapped, &b));
        CHECK(a.count == b.count && a.kind == b.kind && a.metric == b.metric && a.dimension == b.dimension);
    }
    /* Mapped with the bulk's checks in the background: the same answers
     * before and after the check, which passes. */
    {
        AstralIndex bg = ASTRAL_INDEX_NONE;
        CHECK_OK(astral_index_load_ex(path, ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &bg));
        CHECK(same_answers(h, bg));
        CHECK_OK(astral_index_verify(bg));
        CHECK(same_answers(h, bg));
        CHECK_OK(astral_index_destroy(bg));
        CHECK_OK(astral_index_verify(mapped)); /* checked whole when loaded */
    }
    /* Saving over the file the mapped index reads is safe. */
    CHECK_OK(astral_index_save(mem, path));
    CHECK(same_answers(h, mapped));

    /* Writes to a loaded index: the first copies the mapping. */
    {
        uint64_t id = 5000, gone = base_ids[0];
        float v[DIM];
        AstralResult r[1];
        uint32_t n = 0;
        uint64_t count = 0;
        test_fill(v, DIM, 99);
        CHECK_OK(astral_index_add(mapped, &id, 1, v, DIM));
        CHECK_OK(astral_index_remove(mapped, &gone, 1));
        CHECK_OK(astral_index_query(mapped, v, DIM, 1, r, 1, &n));
        CHECK(n == 1 && r[0].id == 5000);
        CHECK_OK(astral_index_count(mapped, &count));
        CHECK(count == N);
        CHECK_OK(astral_index_add(mem, &id, 1, v, DIM));
        CHECK_OK(astral_index_remove(mem, &gone, 1));
    }
    CHECK_OK(astral_index_destroy(mapped));
    CHECK_OK(astral_index_destroy(mem));
    CHECK_OK(astral_index_destroy(h));
    remove(path);
}

/* An int8 index with an f16 rerank copy: a stored vector finds itself at
 * cosine ~1 (scored against the copy), and the index saved to a buffer and
 * loaded from memory keeps its storage kinds and answers with the same
 * bits, through a file too. */
static void test_rerank_round_trip(uint32_t kind) {
    const char *path = "test_persist_rerank.idx";
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE, mem = ASTRAL_INDEX_NONE, mapped = ASTRAL_INDEX_NONE;
    AstralStats a, b;
    AstralResult r[K];
    uint32_t n = 0;
    size_t size = 0;
    unsigned char *buf;

    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = kind;
    o.storage = ASTRAL_STORAGE_INT8;
    o.rerank_storage = ASTRAL_STORAGE_F16;
    o.hnsw_m = 8;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add(h, base_ids, N, base, N * DIM));
    for (int i = 0; i < N; i += 37) {
        CHECK_OK(astral_index_query(h, base + i * DIM, DIM, K, r, K, &n));
        CHECK(n == K && r[0].id == base_ids[i] && fabsf(r[0].score - 1.0f) < 2e-3f);
        CHECK(results_ordered(r, n, 0));
    }

    buf = save_buffer(h, &size);
    CHECK_OK(astral_index_load_from_memory(buf, size, &mem));
    memset(buf, 0x5A, size);
    free(buf);
    CHECK(same_answers(h, mem));
    for (int i = 0; i < N; i += 37) {
        AstralResult rm[K];
        uint32_t nm = 0;
        CHECK_OK(astral_index_query(h, base + i * DIM, DIM, K, r, K, &n));
        CHECK_OK(astral_index_query(mem, base + i * DIM, DIM, K, rm, K, &nm));
        CHECK(n == nm && memcmp(r, rm, sizeof r) == 0);
    }
    a.struct_size = sizeof a;
    b.struct_size = sizeof b;
    CHECK_OK(astral_index_stats(h, &a));
    CHECK_OK(astral_index_stats(mem, &b));
    CHECK(b.storage == ASTRAL_STORAGE_INT8 && b.rerank_storage == ASTRAL_STORAGE_F16);
    CHECK(b.rerank_factor == ASTRAL_DEFAULT_RERANK_FACTOR && a.rerank_factor == b.rerank_factor);
    CHECK(a.count == b.count && a.kind == b.kind && a.bytes_per_vector == b.bytes_per_vector);

    remove(path);
    CHECK_OK(astral_index_save(mem, path));
    CHECK_OK(astral_index_load(path, &mapped));
    CHECK(same_answers(h, mapped));
    CHECK_OK(astral_index_destroy(mapped));
    CHECK_OK(astral_index_destroy(mem));
    CHECK_OK(astral_index_destroy(h));
    remove(path);
}

static void test_damage(void) {
    AstralIndex h = make_index(ASTRAL_KIND_HNSW, ASTRAL_METRIC_COSINE), out = 77;
    size_t size = 0;
    unsigned char *buf = save_buffer(h, &size);
    unsigned char *bad = malloc(size);
    CHECK(bad != NULL);

    /* A flipped bit in the header, in the section table, in the middle of
     * the graph, in the last section. */
    size_t spots[4] = {30, 130, size / 2, size - 70};
    for (int i = 0; i < 4; i++) {
        memcpy(bad, buf, size);
        bad[spots[i]] ^= 0x10;
        out = 77;
        CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(bad, size, &out), "astral: corrupt");
        CHECK(out == ASTRAL_INDEX_NONE);
    }
    memcpy(bad, buf, size);
    bad[size / 2] ^= 1;
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(bad, size, &out), "checksum");

    /* Truncated anywhere, or longer than the header says. */
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(buf, 0, &out), "truncated");
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(buf, 100, &out), "truncated");
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(buf, size - 1, &out), "truncated");
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(buf, size / 3, &out), "truncated");

    /* Not an index at all. */
    memset(bad, 0x41, size);
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(bad, size, &out), "not an Astral index");

    /* Another format version, with a valid header checksum. */
    memcpy(bad, buf, size);
    put32(bad + 8, 99);
    reseal_header(bad);
    CHECK_FAIL(ASTRAL_E_VERSION_MISMATCH, astral_index_load_from_memory(bad, size, &out), "version 99");

    /* The same damage through a file, loaded by mapping. */
    {
        const char *path = "test_persist_bad.idx";
        FILE *f;
        memcpy(bad, buf, size);
        bad[size / 2] ^= 4;
        f = fopen(path, "wb");
        CHECK(f != NULL);
        CHECK(fwrite(bad, 1, size, f) == size);
        fclose(f);
        CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load(path, &out), "checksum");
        CHECK(out == ASTRAL_INDEX_NONE);
        /* Checked in the background: the damage (in the graph's bulk) is
         * found by the check, and the index then refuses every use. */
        {
            AstralResult r[K];
            uint32_t n = 9;
            uint64_t id = 7;
            size_t need = 0;
            CHECK_OK(astral_index_load_ex(path, ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &out));
            AstralStatus early = astral_index_query(out, queries, DIM, K, r, K, &n);
            CHECK(early == ASTRAL_OK || early == ASTRAL_E_CORRUPT);
            CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_verify(out), "checksum");
            CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_query(out, queries, DIM, K, r, K, &n), "checksum");
            CHECK(n == 0);
            CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_add(out, &id, 1, queries, DIM), "checksum");
            CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_remove(out, &base_ids[0], 1), "checksum");
            CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_save_to_buffer(out, NULL, 0, &need), "checksum");
            CHECK_OK(astral_index_destroy(out));
        }
        remove(path);
        CHECK_FAIL(ASTRAL_E_IO, astral_index_load(path, &out), "no such file");
    }

    free(bad);
    free(buf);
    CHECK_OK(astral_index_destroy(h));
}

static void test_arguments(void) {
    AstralIndex h = make_index(ASTRAL_KIND_FLAT, ASTRAL_METRIC_L2), out = 5;
    unsigned char small[8];
    size_t size = 9;

    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_save(h, NULL), "path");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_save(h, ""), "path");
    CHECK_FAIL(ASTRAL_E_IO, astral_index_save(h, "no/such/dir/x.idx"), "no/such/dir");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_save_to_buffer(h, small, sizeof small, NULL), "out_size");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_save_to_buffer(h, NULL, 10, &size), "buf is NULL");
    CHECK(size == 0);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load(NULL, &out), "path");
    CHECK(out == ASTRAL_INDEX_NONE);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load("x.idx", NULL), "out_index");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load_ex(NULL, 0, &out), "path");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load_ex("x.idx", 6, &out), "unknown flags 0x6");
    CHECK(out == ASTRAL_INDEX_NONE);
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load_from_memory(NULL, 10, &out), "data is NULL");
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_load_from_memory(small, sizeof small, NULL), "out_index");
    CHECK_FAIL(ASTRAL_E_CORRUPT, astral_index_load_from_memory(NULL, 0, &out), "truncated");
    {
        uint64_t bytes = 9;
        int appended = 9;
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_last_save(h, NULL, &appended), "NULL");
        CHECK(appended == 0);
        CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_last_save(h, &bytes, NULL), "NULL");
        CHECK(bytes == 0);
        CHECK_OK(astral_index_last_save(h, &bytes, &appended));
        CHECK(bytes == 0 && appended == 0); /* no save yet */
    }

    CHECK_OK(astral_index_destroy(h));
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_save(h, "x.idx"), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_save_to_buffer(h, NULL, 0, &size), "stale");
    CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_verify(h), "stale");
    {
        uint64_t bytes;
        int appended;
        CHECK_FAIL(ASTRAL_E_STALE_HANDLE, astral_index_last_save(h, &bytes, &appended), "stale");
    }
}

static void test_not_initialized(void) {
    AstralIndex out = 5;
    unsigned char buf[256] = {0};
    size_t size = 3;
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_load("x.idx", &out), "astral_init");
    CHECK(out == ASTRAL_INDEX_NONE);
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_load_ex("x.idx", ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &out),
               "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_verify(((AstralIndex)1 << 32) | 1), "astral_init");
    {
        uint64_t bytes = 1;
        int appended = 1;
        CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_last_save(((AstralIndex)1 << 32) | 1, &bytes, &appended),
                   "astral_init");
        CHECK(bytes == 0 && appended == 0);
    }
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_load_from_memory(buf, sizeof buf, &out), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_index_save(((AstralIndex)1 << 32) | 1, "x.idx"), "astral_init");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED,
               astral_index_save_to_buffer(((AstralIndex)1 << 32) | 1, buf, sizeof buf, &size), "astral_init");
    CHECK(size == 0);
}

/* A trained ASTRAL_KIND_IVF index (4096 records, the training size of 4
 * partitions) saved to a buffer and a file loads back every way with the
 * same answers, bit for bit, and its kind. */
enum { IVF_N = 4096 };
static float ivf_base[IVF_N * DIM];
static uint64_t ivf_ids[IVF_N];

static void test_ivf_round_trip(void) {
    const char *path = "test_persist_ivf.idx";
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE, mem = ASTRAL_INDEX_NONE, mapped = ASTRAL_INDEX_NONE, bg = ASTRAL_INDEX_NONE;
    AstralStats st;
    size_t size = 0;
    unsigned char *buf;
    for (int i = 0; i < IVF_N; i++) {
        ivf_ids[i] = 1 + (uint64_t)i;
    }
    test_fill(ivf_base, IVF_N * DIM, 3);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.kind = ASTRAL_KIND_IVF;
    o.metric = ASTRAL_METRIC_L2;
    o.ivf_nlist = 4;
    o.ivf_nprobe = 2;
    o.ivf_seed = 9;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add(h, ivf_ids, IVF_N, ivf_base, IVF_N * DIM));
    buf = save_buffer(h, &size);
    CHECK_OK(astral_index_load_from_memory(buf, size, &mem));
    free(buf);
    CHECK(same_answers(h, mem));
    remove(path);
    CHECK_OK(astral_index_save(h, path));
    CHECK_OK(astral_index_load(path, &mapped));
    CHECK(same_answers(h, mapped));
    CHECK_OK(astral_index_load_ex(path, ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &bg));
    CHECK(same_answers(h, bg));
    CHECK_OK(astral_index_verify(bg));
    st.struct_size = sizeof st;
    CHECK_OK(astral_index_stats(mapped, &st));
    CHECK(st.kind == ASTRAL_KIND_IVF && st.count == IVF_N);
    CHECK_OK(astral_index_destroy(bg));
    CHECK_OK(astral_index_destroy(mapped));
    CHECK_OK(astral_index_destroy(mem));
    CHECK_OK(astral_index_destroy(h));
    remove(path);
}

int main(void) {
    for (int i = 0; i < N; i++) {
        base_ids[i] = 1000 + (uint64_t)i;
    }
    test_fill(base, N * DIM, 1);
    test_fill(queries, NQ * DIM, 2);

    test_not_initialized();
    CHECK_OK(astral_init(NULL));
    test_round_trips(ASTRAL_KIND_FLAT, ASTRAL_METRIC_COSINE);
    test_round_trips(ASTRAL_KIND_FLAT, ASTRAL_METRIC_DOT);
    test_round_trips(ASTRAL_KIND_HNSW, ASTRAL_METRIC_COSINE);
    test_round_trips(ASTRAL_KIND_HNSW, ASTRAL_METRIC_L2);
    test_round_trips(ASTRAL_KIND_AUTO, ASTRAL_METRIC_COSINE);
    test_round_trips(ASTRAL_KIND_IVF, ASTRAL_METRIC_COSINE); /* below its training size: flat sections */
    test_ivf_round_trip();
    test_rerank_round_trip(ASTRAL_KIND_FLAT);
    test_rerank_round_trip(ASTRAL_KIND_HNSW);
    test_damage();
    test_arguments();
    CHECK_OK(astral_shutdown());
    test_not_initialized();
    return check_report("test_persist");
}
