// astral.hpp: compiles as strict C++17 without exceptions or RTTI, and its
// RAII index, spans and statuses behave.
#define ASTRAL_EXPERIMENTAL
#include "astral.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

static int failures;
static int checks;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
                         astral::last_error().c_str());                                    \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static_assert(!std::is_copy_constructible_v<astral::Index>, "Index is move-only");
static_assert(!std::is_copy_assignable_v<astral::Index>, "Index is move-only");
static_assert(std::is_nothrow_move_constructible_v<astral::Index>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<astral::Index>, "moves never throw");
static_assert(sizeof(astral::Status) == sizeof(AstralStatus), "Status is the code");

static std::uint64_t live(AstralIndex h) {
    std::uint64_t n = 0;
    return astral_index_count(h, &n) == ASTRAL_OK ? 1 : 0;
}

int main() {
    CHECK(astral::version_compatible());
    CHECK(astral::init(1).ok());
    CHECK(astral::init(1).code() == ASTRAL_E_INVALID_ARGUMENT); // already
    CHECK(astral::last_error().find("already initialized") != std::string::npos);

    constexpr std::uint32_t dim = 4;
    astral::Index a;
    CHECK(!a.valid());
    CHECK(astral::Index::create(dim, a).ok());
    CHECK(a.valid() && a.dimension() == dim);
    const AstralIndex first = a.handle();

    std::vector<std::uint64_t> ids = {1, 2, 3};
    std::vector<float> v = {1, 0, 0, 0, 0, 1, 0, 0, 0.7f, 0.7f, 0, 0};
    CHECK(a.add(ids, v).ok());
    std::array<float, dim> q = {0.9f, 0.1f, 0, 0};
    std::array<AstralResult, 3> out{};
    std::uint32_t n = 0;
    CHECK(a.query(q, 2, out, n).ok() && n == 2 && out[0].id == 1 && out[1].id == 3);

    // Spans from arrays, containers and pointer + size alike; errors as statuses.
    float raw[dim] = {0, 1, 0, 0};
    CHECK(a.query(raw, 1, astral::Span<AstralResult>(out.data(), 1), n).ok() && n == 1 && out[0].id == 2);
    astral::Status st = a.query(astral::Span<const float>(raw, 3), 1, out, n);
    CHECK(st == astral::Status(ASTRAL_E_DIMENSION) && !st && std::strcmp(st.name(), "dimension mismatch") == 0);
    CHECK(a.query(q, 4, out, n).code() == ASTRAL_E_BUFFER_TOO_SMALL);
    CHECK(a.add(ids, v).code() == ASTRAL_E_DUPLICATE_ID);
    CHECK(astral::last_error().rfind("astral_index_add: ", 0) == 0);

    // Batch: rows of dim; a ragged size is refused before anything is read.
    std::vector<float> two(q.begin(), q.end());
    two.insert(two.end(), std::begin(raw), std::end(raw));
    std::array<AstralResult, 4> bout{};
    std::array<std::uint32_t, 2> counts{};
    CHECK(a.query_batch(two, 2, bout, counts).ok() && counts[0] == 2 && counts[1] == 2 && bout[2].id == 2);
    CHECK(a.query_batch(astral::Span<const float>(two.data(), 7), 2, bout, counts).code() == ASTRAL_E_DIMENSION);

    std::uint64_t count = 0;
    AstralStats stats;
    CHECK(a.count(count).ok() && count == 3);
    CHECK(a.stats(stats).ok() && stats.count == 3 && stats.dimension == dim);
    CHECK(a.remove(astral::Span<const std::uint64_t>(ids.data(), 1)).ok());
    CHECK(a.count(count).ok() && count == 2);

    // Moving transfers ownership; destruction destroys exactly once.
    astral::Index b = std::move(a);
    CHECK(!a.valid() && b.handle() == first && live(first));
    astral::Index c;
    CHECK(astral::Index::create(dim, c).ok());
    const AstralIndex second = c.handle();
    c = std::move(b); // destroys the index c held
    CHECK(!live(second) && live(first) && c.handle() == first);
    {
        astral::Index scoped = std::move(c);
    }
    CHECK(!live(first));
    CHECK(c.reset().ok()); // empty: a no-op

    astral::Index d;
    CHECK(astral::Index::create(dim, d).ok());
    AstralIndex kept = d.release();
    CHECK(!d.valid() && live(kept));
    CHECK(astral_index_destroy(kept) == ASTRAL_OK);

    // An HNSW index through the wrapper, and its parameters checked.
    AstralIndexOptions o = astral::index_options(dim);
    o.kind = ASTRAL_KIND_HNSW;
    CHECK(astral::Index::create(o, d).ok() && d.valid());
    o.hnsw_m = 1;
    astral::Index bad;
    CHECK(astral::Index::create(o, bad).code() == ASTRAL_E_INVALID_ARGUMENT && !bad.valid());
    CHECK(astral::last_error().find("hnsw_m 1") != std::string::npos);

    // An IVF index through the builder (it scans exactly until it trains),
    // and its parameters checked.
    {
        astral::Index iv;
        CHECK(astral::Index::create(astral::IndexOptions(dim).kind(ASTRAL_KIND_IVF).ivf(16, 4, 7), iv).ok());
        CHECK(iv.add(ids, v).ok());
        CHECK(iv.query(q, 2, out, n).ok() && n == 2);
        AstralStats is;
        CHECK(iv.stats(is).ok() && is.kind == ASTRAL_KIND_IVF);
        CHECK(is.ivf_partitions == 0 && is.ivf_largest_partition == 0); // not trained yet
        CHECK(iv.query(q, astral::QueryOptions(2).nprobe(16), out, n).ok() && n == 2);
        CHECK(astral::QueryOptions(2).nprobe(5).get().nprobe == 5);
        astral::Index ibad;
        CHECK(astral::Index::create(astral::IndexOptions(dim).kind(ASTRAL_KIND_IVF).ivf(16, 17), ibad).code() ==
              ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::last_error().find("ivf_nprobe 17") != std::string::npos);
        // An auto index's IVF limit through the builder.
        CHECK(astral::IndexOptions(dim).ivf_limit_records(ASTRAL_IVF_LIMIT_NEVER).get().ivf_limit_records == -1);
        astral::Index never;
        CHECK(astral::Index::create(astral::IndexOptions(dim).ivf_limit_records(ASTRAL_IVF_LIMIT_NEVER), never).ok());
        CHECK(never.add(ids, v).ok());
        AstralStats ns;
        CHECK(never.stats(ns).ok() && ns.kind == ASTRAL_KIND_FLAT);
    }

    // The options builder: storage kind and rerank copy, checked by the library.
    {
        const astral::IndexOptions defaults(dim);
        const AstralIndexOptions &plain = defaults;
        CHECK(plain.struct_size == sizeof(AstralIndexOptions) && plain.dimension == dim);
        CHECK(plain.storage == ASTRAL_STORAGE_DEFAULT && plain.rerank_storage == 0 && plain.rerank_factor == 0);

        astral::Index r;
        CHECK(astral::Index::create(astral::IndexOptions(dim)
                                        .kind(ASTRAL_KIND_FLAT)
                                        .metric(ASTRAL_METRIC_COSINE)
                                        .storage(ASTRAL_STORAGE_INT8)
                                        .rerank(ASTRAL_STORAGE_F32),
                                    r)
                  .ok());
        CHECK(r.add(ids, v).ok());
        CHECK(r.query(q, 2, out, n).ok() && n == 2 && out[0].id == 1 && out[1].id == 3);
        AstralStats rs;
        CHECK(r.stats(rs).ok() && rs.storage == ASTRAL_STORAGE_INT8 && rs.rerank_storage == ASTRAL_STORAGE_F32 &&
              rs.rerank_factor == ASTRAL_DEFAULT_RERANK_FACTOR);
        float self[dim] = {1, 0, 0, 0};
        CHECK(r.query(self, 1, out, n).ok() && n == 1 && out[0].id == 1 && out[0].score > 0.99999f &&
              out[0].score < 1.00001f);

        astral::IndexOptions opts(dim);
        opts.storage(ASTRAL_STORAGE_F16).rerank(ASTRAL_STORAGE_F16, ASTRAL_MAX_RERANK_FACTOR).hnsw(8, 16, 32);
        CHECK(opts.get().storage == ASTRAL_STORAGE_F16 && opts.get().rerank_factor == 64 && opts.get().hnsw_m == 8);
        CHECK(astral::Index::create(opts, r).ok());
        CHECK(r.stats(rs).ok() && rs.rerank_storage == ASTRAL_STORAGE_F16 && rs.rerank_factor == 64);
        CHECK(astral::Index::create(opts.rerank(ASTRAL_STORAGE_F16, 65), bad).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::last_error().find("rerank_factor 65") != std::string::npos);
        CHECK(astral::Index::create(opts.rerank(ASTRAL_STORAGE_INT8), bad).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::last_error().find("rerank_storage 3") != std::string::npos);
        CHECK(astral::Index::create(opts.rerank(0, 4), bad).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::last_error().find("without a rerank_storage") != std::string::npos);
        CHECK(astral::Index::create(opts.rerank(0).storage(6), bad).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::Index::create(opts.storage(ASTRAL_STORAGE_E4M3), r).ok());
    }

    // Saved and loaded three ways: the same answers, the dimension from the file.
    {
        astral::Index h;
        CHECK(astral::Index::create(astral::IndexOptions(dim).kind(ASTRAL_KIND_HNSW), h).ok());
        CHECK(h.add(ids, v).ok());
        std::size_t size = 0;
        CHECK(h.save({}, size).code() == ASTRAL_E_BUFFER_TOO_SMALL && size > 0);
        std::vector<unsigned char> file(size);
        CHECK(h.save(file, size).ok() && size == file.size());
        const char *path = "test_hpp.idx";
        CHECK(h.save(path).ok());
        std::array<AstralResult, 3> want{}, got{};
        std::uint32_t wn = 0, gn = 0;
        CHECK(h.query(q, 3, want, wn).ok() && wn == 3);
        astral::Index m, f, g;
        CHECK(astral::Index::load_from_memory(file.data(), file.size(), m).ok() && m.dimension() == dim);
        CHECK(astral::Index::load(path, f).ok() && f.dimension() == dim && f.verify_loaded().ok());
        CHECK(astral::Index::load(path, g, ASTRAL_LOAD_VERIFY_IN_BACKGROUND).ok() && g.dimension() == dim);
        for (astral::Index *x : {&m, &f, &g}) {
            CHECK(x->query(q, 3, got, gn).ok() && gn == wn);
            CHECK(std::memcmp(got.data(), want.data(), sizeof want) == 0);
        }
        CHECK(g.verify_loaded().ok());
        // Damage: the out index is left as it was.
        file[file.size() / 2] ^= 1;
        const AstralIndex kept = m.handle();
        CHECK(astral::Index::load_from_memory(file.data(), file.size(), m).code() == ASTRAL_E_CORRUPT);
        CHECK(m.handle() == kept && live(kept));
        CHECK(astral::Index::load("no/such/file.idx", m).code() == ASTRAL_E_IO && m.handle() == kept);
        std::remove(path);
    }

    // Scoped search: attributes at add, set_tags, payloads, filtered queries.
    {
        astral::Index s;
        CHECK(astral::Index::create(astral::IndexOptions(dim).kind(ASTRAL_KIND_FLAT), s).ok());
        std::vector<std::uint64_t> sids = {1, 2, 3, 4};
        std::vector<float> sv = {1, 0, 0, 0, 0.9f, 0.1f, 0, 0, 0.8f, 0.2f, 0, 0, 0, 1, 0, 0};
        std::vector<std::uint64_t> tags = {1, 2, 1 | 2, 4}, owners = {7, 7, 8, 0};
        const std::string note = "the player lied";
        std::vector<const void *> payloads = {note.data(), nullptr, nullptr, nullptr};
        std::vector<std::uint32_t> sizes = {static_cast<std::uint32_t>(note.size()), 0, 0, 0};
        CHECK(s.add(sids, sv, tags, owners, payloads, sizes).ok());
        // Spans of the wrong length are refused before the library is called.
        CHECK(s.add(sids, sv, astral::Span<const std::uint64_t>(tags.data(), 3)).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(s.add(sids, sv, tags, owners, payloads).code() == ASTRAL_E_INVALID_ARGUMENT);

        std::array<AstralResult, 4> r{};
        std::uint32_t sn = 0, plan = 99;
        CHECK(s.query(q, astral::QueryOptions(4).owner(7), r, sn, plan).ok() && sn == 2 && r[0].id == 2 &&
              r[1].id == 1 && plan <= ASTRAL_PLAN_GRAPH);
        const std::uint64_t self[] = {1};
        CHECK(s.query(q, astral::QueryOptions(4).any_tags(1).deny(self), r, sn).ok() && sn == 1 && r[0].id == 3);
        std::vector<std::uint64_t> none;
        CHECK(s.query(q, astral::QueryOptions(4).allow(none), r, sn).ok() && sn == 0); // empty allowlist
        CHECK(s.query(q, astral::QueryOptions(4).allow(none).no_allowlist(), r, sn).ok() && sn == 4);
        const std::uint64_t allowed[] = {4, 2, 4};
        CHECK(s.query(q, astral::QueryOptions(4).allow(allowed).no_tags(2), r, sn, plan).ok() && sn == 1 &&
              r[0].id == 4 && plan == ASTRAL_PLAN_DIRECT);
        CHECK(s.query(q, astral::QueryOptions(4).owner(1234), r, sn).ok() && sn == 0); // no such owner
        std::array<AstralResult, 4> w{};
        std::uint32_t wn = 0;
        AstralBudgetReport report{};
        CHECK(s.query(q, astral::QueryOptions(4).any_tags(1), r, sn, plan).ok());
        CHECK(s.query_within(q, astral::QueryOptions(4).any_tags(1), 60000000, w, wn, report).ok() && wn == sn &&
              std::memcmp(w.data(), r.data(), sn * sizeof r[0]) == 0 && report.complete == 1 &&
              report.covered == 1.0 && report.plan == plan && report.struct_size == sizeof report);
        CHECK(s.query_within(q, astral::QueryOptions(4), 60000000, w, wn).ok() && wn == 4);
        CHECK(s.query_within(q, astral::QueryOptions(4), 0, w, wn).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(s.query(q, astral::QueryOptions(0), r, sn).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(astral::last_error().find("k = 0") != std::string::npos);

        std::array<AstralResult, 8> br{};
        std::array<std::uint32_t, 2> bc{};
        CHECK(s.query_batch(two, astral::QueryOptions(4).all_tags(1), br, bc, plan).ok() && bc[0] == 2 && bc[1] == 2);
        CHECK(br[0].id == 1 && br[1].id == 3 && br[4].id == 3);

        CHECK(s.set_tags(astral::Span<const std::uint64_t>(sids.data(), 1), astral::Span<const std::uint64_t>(&tags[3], 1)).ok());
        std::uint64_t t = 0, o = 0;
        CHECK(s.attributes(1, t, o).ok() && t == 4 && o == 7);
        CHECK(s.set_tags(sids, astral::Span<const std::uint64_t>(tags.data(), 1)).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(s.attributes(99, t, o).code() == ASTRAL_E_NOT_FOUND);

        std::vector<unsigned char> p;
        CHECK(s.payload(1, p).ok() && std::string(p.begin(), p.end()) == note);
        CHECK(s.payload(2, p).ok() && p.empty());
        CHECK(s.payload(99, p).code() == ASTRAL_E_NOT_FOUND && p.empty());
        std::size_t size = 0;
        CHECK(s.payload(1, {}, size).code() == ASTRAL_E_BUFFER_TOO_SMALL && size == note.size());

        AstralStats ss;
        CHECK(s.stats(ss).ok() && ss.payload_count == 1 && ss.payload_bytes == note.size() && ss.owner_count == 2);
        CHECK(ss.scan_queries + ss.direct_queries + ss.graph_queries >= 5);

        // Memory ranking: times and importances at add, touch, set_importance.
        {
            astral::Index m;
            CHECK(astral::Index::create(astral::IndexOptions(dim).kind(ASTRAL_KIND_FLAT), m).ok());
            std::vector<std::int64_t> times = {10, 20, 30, 40};
            std::vector<float> imps = {0, 0, 0, 3};
            CHECK(m.add_memories(sids, sv, {}, {}, {}, {}, times, imps).ok());
            CHECK(m.add_memories(sids, sv, {}, {}, {}, {}, astral::Span<const std::int64_t>(times.data(), 2), {})
                      .code() == ASTRAL_E_INVALID_ARGUMENT);
            std::uint32_t mn = 0;
            CHECK(m.query(q, astral::QueryOptions(4).rank(0, 0, 1, 1, 0), r, mn).ok() && mn == 4 && r[0].id == 4 &&
                  r[0].score == 3);
            CHECK(m.query(q, astral::QueryOptions(4).rank(0, 1, 0, 0.5, 40), r, mn).ok() && r[0].id == 4 &&
                  r[0].score == 1 && r[1].id == 3);
            const std::uint64_t first[] = {1};
            CHECK(m.touch(first, 40).ok() && m.set_importance(first, 9).ok());
            std::int64_t tm = 0;
            float im = 0;
            CHECK(m.memory(1, tm, im).ok() && tm == 40 && im == 9);
            CHECK(m.memory(99, tm, im).code() == ASTRAL_E_NOT_FOUND);
            CHECK(m.query(q, astral::QueryOptions(4).rank(0, 0, 1, 1, 0), r, mn).ok() && r[0].id == 1);
            CHECK(m.query(q, astral::QueryOptions(4).rank(1, 1, 0, 2, 0), r, mn).code() == ASTRAL_E_INVALID_ARGUMENT);
            // upsert_memories replaces the time and importance with the vector.
            const std::int64_t up_time[] = {-1};
            const float up_imp[] = {2};
            CHECK(m.upsert_memories(first, astral::Span<const float>(sv.data(), dim), {}, {}, {}, {}, up_time, up_imp).ok());
            CHECK(m.memory(1, tm, im).ok() && tm == -1 && im == 2);
            CHECK(m.upsert_memories(first, astral::Span<const float>(sv.data(), dim), {}, {}, {}, {}, times, {}).code() ==
                  ASTRAL_E_INVALID_ARGUMENT);
        }

        // Single records and tag names.
        bool in = false;
        CHECK(s.contains(1, in).ok() && in);
        CHECK(s.contains(99, in).ok() && !in);
        std::vector<float> v;
        CHECK(s.vector(1, v).ok() && v == std::vector<float>({1, 0, 0, 0}));
        CHECK(s.vector(99, v).code() == ASTRAL_E_NOT_FOUND && v.empty());
        std::array<float, 3> short_v{};
        CHECK(s.vector(1, short_v).code() == ASTRAL_E_DIMENSION);
        const std::uint64_t one[] = {4};
        const float along_x[] = {1, 0, 0, 0};
        const std::uint64_t new_tag[] = {1u << 9};
        CHECK(s.upsert(one, along_x, new_tag).ok());
        CHECK(s.attributes(4, t, o).ok() && t == (1u << 9) && o == 0);
        CHECK(s.upsert(one, along_x, astral::Span<const std::uint64_t>(tags.data(), 2)).code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(s.set_tag_name(9, "Rumour").ok());
        std::string name;
        CHECK(s.tag_name(9, name).ok() && name == "Rumour");
        CHECK(s.tag_name(8, name).ok() && name.empty());
        CHECK(s.tag_name(64, name).code() == ASTRAL_E_INVALID_ARGUMENT);
        std::uint32_t bit = 0;
        CHECK(s.find_tag("Rumour", bit).ok() && bit == 9);
        CHECK(s.find_tag("Gossip", bit).code() == ASTRAL_E_NOT_FOUND);
        CHECK(s.set_tag_name(10, "Rumour").code() == ASTRAL_E_INVALID_ARGUMENT);
        CHECK(s.clear().ok() && s.contains(1, in).ok() && !in);
        std::uint64_t left = 99;
        CHECK(s.count(left).ok() && left == 0);
        CHECK(s.find_tag("Rumour", bit).ok() && bit == 9); // names outlive clear
    }

    CHECK(astral::shutdown().ok());
    CHECK(astral::shutdown().code() == ASTRAL_E_NOT_INITIALIZED);
    if (failures != 0) {
        std::fprintf(stderr, "test_hpp: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    std::printf("test_hpp: all %d checks passed\n", checks);
    return 0;
}
