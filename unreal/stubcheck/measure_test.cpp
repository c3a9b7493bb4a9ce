// unreal_measure: runs the measurement the Unreal plugin's Automation tests
// perform (examples/cpp/astral_bench.hpp: Astral.Recall.At10 and
// Astral.Latency.P50) against the real libastral, and checks what a C++
// compiler alone cannot:
//   - the `random` fixture regenerated in C++ equals the Go fixture
//     (astral_debug_fixture) bit for bit, and equals the .fvecs files of
//     `astral fixture` when given;
//   - parse_fvecs accepts what WriteFvecs writes and refuses malformed data;
//   - exact ground truth is the same serially and on threads, and the
//     one-query-per-call results equal astral_index_query_batch's;
//   - recall@k equals --expect-recall (the CTest passes `astral bench`'s)
//     and, with --reference, the constants the plugin checks against.
// Prints recall@k and p50 as the Automation tests report them.
#define ASTRAL_EXPERIMENTAL
#include "astral_bench.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace bench = astral::bench;

int failures = 0;

void expect(bool ok, const std::string &what) {
    if (!ok) {
        std::printf("FAIL: %s\n", what.c_str());
        failures++;
    }
}

bool fail_status(const char *what, astral::Status st) {
    std::printf("FAIL: %s: %s: %s\n", what, st.name(), astral::last_error().c_str());
    failures++;
    return false;
}

struct Args {
    std::size_t n = 5000, nq = 16, dim = bench::kReferenceDimension;
    int runs = 3;
    std::int32_t threads = 1;
    std::string base_path, queries_path;
    double expect_recall = -1;
    bool reference = false;
};

[[noreturn]] void usage(const std::string &why) {
    std::fprintf(stderr,
                 "unreal_measure: %s\n"
                 "usage: unreal_measure [--n N] [--nq NQ] [--dim D] [--runs R] [--threads T]\n"
                 "                      [--base B.fvecs --queries Q.fvecs] [--expect-recall X] [--reference]\n",
                 why.c_str());
    std::exit(2);
}

Args parse(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; i++) {
        const std::string f = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("missing value for " + f);
            return argv[++i];
        };
        if (f == "--n") a.n = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--nq") a.nq = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--dim") a.dim = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--runs") a.runs = std::atoi(value().c_str());
        else if (f == "--threads") a.threads = std::atoi(value().c_str());
        else if (f == "--base") a.base_path = value();
        else if (f == "--queries") a.queries_path = value();
        else if (f == "--expect-recall") a.expect_recall = std::atof(value().c_str());
        else if (f == "--reference") {
            a.reference = true;
            a.n = bench::kReferenceCount;
            a.nq = bench::kReferenceQueries;
            a.dim = bench::kReferenceDimension;
            a.runs = bench::kReferenceRuns;
        } else usage("unknown flag " + f);
    }
    if (a.base_path.empty() != a.queries_path.empty()) usage("--base and --queries go together");
    if (a.runs < 1 || a.dim < 1 || a.nq < 1 || a.n < bench::kReferenceK) usage("sizes must be positive");
    return a;
}

// The .fvecs layout WriteFvecs produces, for the parser's own checks.
std::vector<unsigned char> fvecs_bytes(const std::vector<float> &data, std::size_t dim) {
    std::vector<unsigned char> out;
    for (std::size_t off = 0; off < data.size(); off += dim) {
        const std::uint32_t d = static_cast<std::uint32_t>(dim);
        for (int b = 0; b < 4; b++) out.push_back(static_cast<unsigned char>(d >> (8 * b)));
        for (std::size_t i = 0; i < dim; i++) {
            std::uint32_t bits;
            std::memcpy(&bits, &data[off + i], sizeof bits);
            for (int b = 0; b < 4; b++) out.push_back(static_cast<unsigned char>(bits >> (8 * b)));
        }
    }
    return out;
}

void check_fvecs_parser() {
    const std::vector<float> rows = {1.0f, -2.5f, 3.25f, 0.0f, -0.0f, 1e-30f};
    std::vector<unsigned char> good = fvecs_bytes(rows, 3);
    std::vector<float> out;
    std::size_t dim = 0;
    std::string err;
    expect(bench::parse_fvecs(good.data(), good.size(), out, dim, err) && dim == 3 &&
               std::memcmp(out.data(), rows.data(), rows.size() * sizeof(float)) == 0,
           "parse_fvecs round trip: " + err);

    auto refuses = [&](std::vector<unsigned char> bad, const char *why, const char *want) {
        std::string e;
        const bool ok = bench::parse_fvecs(bad.data(), bad.size(), out, dim, e);
        expect(!ok && e.find(want) != std::string::npos && out.empty() && dim == 0,
               std::string("parse_fvecs refuses ") + why + " (got \"" + e + "\")");
    };
    refuses({}, "empty input", "no records");
    refuses({3, 0}, "a truncated header", "truncated header");
    std::vector<unsigned char> cut = good;
    cut.pop_back();
    refuses(cut, "a truncated record", "not whole records");
    std::vector<unsigned char> mixed = good;
    mixed[16] = 2; // record 1 claims dimension 2
    refuses(mixed, "mixed dimensions", "record 1: dimension 2");
    refuses({0, 0, 0, 0}, "dimension 0", "out of range");
    refuses({0xff, 0xff, 0xff, 0xff}, "a negative dimension", "out of range");
    refuses({0x01, 0x00, 0x01, 0x00}, "a dimension above the limit", "out of range");
}

bool load_fvecs_fixture(const Args &a, bench::Fixture &out) {
    std::vector<unsigned char> base, queries;
    std::string err;
    if (!bench::read_file(a.base_path, base, err) || !bench::read_file(a.queries_path, queries, err) ||
        !bench::fixture_from_fvecs(base.data(), base.size(), queries.data(), queries.size(), out, err)) {
        expect(false, "reading the .fvecs fixture: " + err);
        return false;
    }
    return true;
}

int run(const Args &a) {
    check_fvecs_parser();

    // The fixture: regenerated here, compared with the Go recipe's bits.
    bench::Fixture f = bench::random_fixture(a.n, a.nq, a.dim);
    const std::uint64_t hash = bench::fixture_hash(f);
    bench::Fixture go;
    go.dimension = a.dim;
    go.base.resize(f.base.size());
    go.queries.resize(f.queries.size());
    astral::Status st = astral_debug_fixture("random", a.n, a.nq, a.dim, go.base.data(), go.queries.data());
    if (!st) return fail_status("astral_debug_fixture", st), 1;
    const bool same_as_go = go.base == f.base && go.queries == f.queries &&
                            std::memcmp(go.base.data(), f.base.data(), f.base.size() * sizeof(float)) == 0 &&
                            std::memcmp(go.queries.data(), f.queries.data(), f.queries.size() * sizeof(float)) == 0;
    std::printf("fixture random: n %zu, nq %zu, dim %zu; hash 0x%016" PRIx64
                "; identical to the Go recipe (astral_debug_fixture): %s\n",
                a.n, a.nq, a.dim, hash, same_as_go ? "yes" : "NO");
    expect(same_as_go, "the C++ random fixture differs from the Go recipe");
    if (a.reference) {
        expect(hash == bench::kReferenceRandomHash, "reference fixture hash differs from kReferenceRandomHash");
    }
    if (!a.base_path.empty()) {
        bench::Fixture files;
        if (!load_fvecs_fixture(a, files)) return 1;
        const bool same = files.dimension == f.dimension && files.base == f.base && files.queries == f.queries;
        std::printf("fixture from %s + %s: identical to the generated one: %s\n", a.base_path.c_str(),
                    a.queries_path.c_str(), same ? "yes" : "NO");
        expect(same, "the .fvecs fixture differs from the generated one");
        expect(bench::fixture_hash(files) == hash, "fixture_hash of the .fvecs fixture");
    }

    // Ground truth: threads must not change it.
    const std::uint32_t k = bench::kReferenceK;
    const bench::Truth truth = bench::exact_top_k(f, k);
    const bench::Truth serial = bench::exact_top_k(f, k, [](std::size_t count, const auto &body) {
        for (std::size_t i = 0; i < count; i++) body(i);
    });
    expect(truth.ids == serial.ids && truth.counts == serial.counts, "exact_top_k differs between threads and serial");

    // The index, as the Automation tests build it: flat, cosine, E5M2.
    AstralIndexOptions opts = astral::index_options(static_cast<std::uint32_t>(a.dim));
    opts.kind = ASTRAL_KIND_FLAT;
    astral::Index index;
    if (st = astral::Index::create(opts, index); !st) return fail_status("creating the index", st), 1;
    if (st = bench::add_fixture(index, f); !st) return fail_status("adding the fixture", st), 1;
    AstralStats stats;
    if (st = index.stats(stats); !st) return fail_status("stats", st), 1;

    double recall = 0;
    bench::Results results;
    if (st = bench::measure_recall(index, f, truth, recall, results); !st) return fail_status("measure_recall", st), 1;
    // Another path through the library must give the same bits.
    std::vector<AstralResult> batch(a.nq * k);
    std::vector<std::uint32_t> batch_counts(a.nq);
    if (st = index.query_batch(f.queries, k, batch, batch_counts); !st) return fail_status("query_batch", st), 1;
    expect(batch_counts == results.counts &&
               std::memcmp(batch.data(), results.hits.data(), batch.size() * sizeof(AstralResult)) == 0,
           "one query per call differs from astral_index_query_batch");

    bench::LatencyReport latency;
    bench::Results last;
    if (st = bench::measure_latency(index, f, k, a.runs, latency, last); !st) return fail_status("measure_latency", st), 1;
    expect(std::memcmp(last.hits.data(), results.hits.data(), last.hits.size() * sizeof(AstralResult)) == 0,
           "results changed between passes");
    expect(latency.samples == a.nq * static_cast<std::size_t>(a.runs) && latency.median.p50 > 0,
           "latency samples");

    std::printf("index flat, kernel %s, %u workers + caller\n", stats.kernel, stats.thread_count);
    std::printf("recall@%u %.6f", k, recall);
    if (a.expect_recall >= 0) std::printf(" (expected %.6f)", a.expect_recall);
    std::printf("\n");
    std::printf("p50 %.1f us (p95 %.1f, p99 %.1f, mean %.1f; the run with the median p50 of %d); "
                "p50 of all %zu samples %.1f us\n",
                latency.median.p50, latency.median.p95, latency.median.p99, latency.median.mean, latency.runs,
                latency.samples, latency.p50_all);
    if (a.expect_recall >= 0) {
        expect(std::fabs(recall - a.expect_recall) < 1e-9, "recall differs from the expected value");
    }
    if (a.reference) {
        expect(std::fabs(recall - bench::kReferenceRandomRecall) < 1e-9,
               "reference recall differs from kReferenceRandomRecall");
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const Args a = parse(argc, argv);
    if (!astral::version_compatible()) {
        std::fprintf(stderr, "unreal_measure: library %u does not serve header %s\n", astral_version_number(),
                     ASTRAL_VERSION_STRING);
        return 1;
    }
    AstralInit init = astral::init_defaults();
    init.thread_count = a.threads;
    if (astral::Status st = astral::init(init); !st) return fail_status("init", st), 1;
    const int rc = run(a);
    (void)astral::shutdown();
    std::printf("unreal_measure: %s\n", rc == 0 && failures == 0 ? "PASS" : "FAIL");
    return rc == 0 && failures == 0 ? 0 : 1;
}
