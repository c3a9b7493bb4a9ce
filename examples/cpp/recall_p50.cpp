// recall_p50: recall@k and p50 latency of one query at a time through the C
// ABI, on a benchmark fixture (docs/BENCHMARKS.md): the numbers the Unreal Automation
// tests report. C++17, using astral.hpp.
//
// The fixture is read from .fvecs files written by `astral fixture`
// (--base B.fvecs --queries Q.fvecs), or generated inside the library
// (--data random|spectral|clustered, bit-identical to `astral fixture`).
//
// Method (docs/BENCHMARKS.md): one untimed warm pass, then --runs timed passes over
// the queries, one query per call; each run's p50 is taken and the run with
// the median p50 is reported. Each query is timed through the C path
// (steady_clock around astral_index_query) and, right before or after it
// in turn, through the Go API on the same index (astral_debug_go_query_pass:
// Go's own clock around astral.Index.Query, queries and results in Go
// memory): the two p50s are comparable because they share the machine's
// state from moment to moment. --check fails the program when the C p50 is
// more than 5 % + 2 us above the Go p50 (both over every sample of every
// run), when the two paths' results
// differ, or when --expect-recall is given and differs.
//
// The fixture, ground truth, recall and latency statistics come from
// astral_bench.hpp, which the Unreal plugin's Automation tests share.
#define ASTRAL_EXPERIMENTAL
#include "astral_bench.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace bench = astral::bench;
using bench::Latency;

struct Args {
    std::string data = "random", base_path, queries_path;
    std::size_t n = 100000, nq = 64, dim = 384;
    std::uint32_t k = 10;
    std::int32_t threads = ASTRAL_THREADS_AUTO;
    std::uint32_t kind = ASTRAL_KIND_FLAT;
    int runs = 21;
    bool check = false;
    double expect_recall = -1;
};

[[noreturn]] void usage(const char *why) {
    std::fprintf(stderr,
                 "recall_p50: %s\n"
                 "usage: recall_p50 [--data random|spectral|clustered] [--n N] [--nq NQ] [--dim D]\n"
                 "                  [--base B.fvecs --queries Q.fvecs] [--k K] [--threads T|auto]\n"
                 "                  [--kind flat|auto] [--runs R] [--check] [--expect-recall X]\n",
                 why);
    std::exit(2);
}

Args parse(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; i++) {
        std::string f = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value for " + f).c_str());
            return argv[++i];
        };
        if (f == "--data") a.data = value();
        else if (f == "--base") a.base_path = value();
        else if (f == "--queries") a.queries_path = value();
        else if (f == "--n") a.n = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--nq") a.nq = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--dim") a.dim = std::strtoull(value().c_str(), nullptr, 10);
        else if (f == "--k") a.k = static_cast<std::uint32_t>(std::strtoul(value().c_str(), nullptr, 10));
        else if (f == "--runs") a.runs = std::atoi(value().c_str());
        else if (f == "--check") a.check = true;
        else if (f == "--expect-recall") a.expect_recall = std::atof(value().c_str());
        else if (f == "--threads") {
            std::string v = value();
            a.threads = v == "auto" ? ASTRAL_THREADS_AUTO : std::atoi(v.c_str());
        } else if (f == "--kind") {
            std::string v = value();
            if (v == "flat") a.kind = ASTRAL_KIND_FLAT;
            else if (v == "auto") a.kind = ASTRAL_KIND_AUTO;
            else usage("--kind is flat or auto");
        } else usage(("unknown flag " + f).c_str());
    }
    if (a.base_path.empty() != a.queries_path.empty()) usage("--base and --queries go together");
    if (a.runs < 1 || a.k < 1) usage("--runs and --k must be positive");
    return a;
}

bool fail(const char *what, astral::Status st) {
    std::fprintf(stderr, "recall_p50: %s: %s: %s\n", what, st.name(), astral::last_error().c_str());
    return false;
}

int run(const Args &a) {
    bench::Fixture f;
    std::string name = a.data;
    if (!a.base_path.empty()) {
        std::vector<unsigned char> base, queries;
        std::string err;
        if (!bench::read_file(a.base_path, base, err) || !bench::read_file(a.queries_path, queries, err) ||
            !bench::fixture_from_fvecs(base.data(), base.size(), queries.data(), queries.size(), f, err)) {
            std::fprintf(stderr, "recall_p50: %s\n", err.c_str());
            return 1;
        }
        name = a.base_path;
    } else {
        f.dimension = a.dim;
        f.base.resize(a.n * a.dim);
        f.queries.resize(a.nq * a.dim);
        astral::Status st = astral_debug_fixture(a.data.c_str(), a.n, a.nq, a.dim, f.base.data(), f.queries.data());
        if (!st) return fail("generating the fixture", st), 1;
    }
    const std::vector<float> &queries = f.queries;
    const std::size_t dim = f.dimension, n = f.count(), nq = f.query_count(), k = a.k;
    const bench::Truth truth = bench::exact_top_k(f, a.k);

    AstralIndexOptions opts = astral::index_options(static_cast<std::uint32_t>(dim));
    opts.kind = a.kind;
    astral::Index index;
    if (astral::Status st = astral::Index::create(opts, index); !st) return fail("creating the index", st), 1;
    if (astral::Status st = bench::add_fixture(index, f); !st) return fail("adding", st), 1; // id = row
    AstralStats stats;
    if (astral::Status st = index.stats(stats); !st) return fail("stats", st), 1;

    std::vector<AstralResult> cres(nq * k), gres(nq * k);
    std::vector<std::uint32_t> ccount(nq), gcount(nq);
    std::vector<std::uint64_t> gns(nq);
    std::vector<double> cus(nq), gus(nq);
    std::vector<Latency> cruns, gruns;
    std::vector<double> call, gall; // every timed sample of every run
    std::uint64_t mallocs = 0;

    // One query through the C ABI, timed here.
    auto cQuery = [&](std::size_t i) -> bool {
        astral::Status st = bench::timed_query(index, &queries[i * dim], dim, a.k, &cres[i * k], ccount[i], cus[i]);
        if (!st) return fail("query", st);
        return true;
    };
    // The same query through the Go API inside the library, timed there.
    auto goQuery = [&](std::size_t i) -> bool {
        astral::Status st = astral_debug_go_query_pass(index.handle(), &queries[i * dim], 1, dim, a.k,
                                                       &gres[i * k], k, &gcount[i], &gns[i]);
        if (!st) return fail("Go API query", st);
        gus[i] = double(gns[i]) / 1000.0;
        return true;
    };

    for (std::size_t i = 0; i < nq; i++) {
        if (!cQuery(i) || !goQuery(i)) return 1; // warm: untimed
    }
    for (int r = 0; r < a.runs; r++) {
        // Query by query, the two paths take turns going first, so machine
        // drift favours neither.
        for (std::size_t i = 0; i < nq; i++) {
            bool cFirst = (i + static_cast<std::size_t>(r)) % 2 == 0;
            if (cFirst && !cQuery(i)) return 1;
            if (!goQuery(i)) return 1;
            if (!cFirst && !cQuery(i)) return 1;
        }
        cruns.push_back(bench::summarize(cus));
        gruns.push_back(bench::summarize(gus));
        call.insert(call.end(), cus.begin(), cus.end());
        gall.insert(gall.end(), gus.begin(), gus.end());
    }
    // Go heap allocations of the C path alone, over one more pass.
    std::uint64_t m0 = astral_debug_go_mallocs();
    for (std::size_t i = 0; i < nq; i++) {
        if (!cQuery(i)) return 1;
    }
    mallocs = astral_debug_go_mallocs() - m0;

    // Ids and score bits: AstralResult's padding is not part of a result.
    bool same = gcount == ccount;
    for (std::size_t i = 0; same && i < cres.size(); i++) {
        same = cres[i].id == gres[i].id && std::memcmp(&cres[i].score, &gres[i].score, sizeof cres[i].score) == 0;
    }
    double recall = bench::recall_at_k(truth, cres.data(), ccount.data(), k);
    double goRecall = bench::recall_at_k(truth, gres.data(), gcount.data(), k);
    Latency c = bench::median_run(cruns), g = bench::median_run(gruns);
    // The comparison uses every sample of every run: the paired,
    // interleaved samples share the machine's state, and pooling them keeps
    // one noisy run (another process waking) from deciding it.
    double cp50 = bench::percentile(call, 0.5), gp50 = bench::percentile(gall, 0.5);
    double limit = gp50 * 1.05 + 2.0;

    std::printf("fixture %s: n %zu, nq %zu, dim %zu, k %zu; index %s, kernel %s, %u workers + caller\n",
                name.c_str(), n, nq, dim, k, a.kind == ASTRAL_KIND_FLAT ? "flat" : "auto", stats.kernel,
                stats.thread_count);
    std::printf("recall@%zu %.6f (C ABI)  %.6f (Go API)  results identical: %s\n", k, recall, goRecall,
                same ? "yes" : "NO");
    std::printf("p50 C ABI  %9.1f us  (p95 %.1f, p99 %.1f, mean %.1f; the run with the median p50 of %d)\n",
                c.p50, c.p95, c.p99, c.mean, a.runs);
    std::printf("p50 Go API %9.1f us  (p95 %.1f, p99 %.1f, mean %.1f; same process, query by query interleaved)\n",
                g.p50, g.p95, g.p99, g.mean);
    std::printf("p50 of all %zu samples: C ABI %.1f us, Go API %.1f us; C/Go %.4f; limit Go x 1.05 + 2 us = %.1f us: %s\n",
                call.size(), cp50, gp50, cp50 / gp50, limit, cp50 <= limit ? "within" : "ABOVE");
    std::printf("Go heap allocations per query through C: %.4f\n", double(mallocs) / double(nq));

    if (!a.check) return 0;
    // Allocations are printed, not checked: with workers, internal/pool parks
    // on channels, where the Go runtime may allocate a sudog (the Go API
    // pays the same); the C path's own zero is asserted by the C and Go
    // test suites on a serial runtime.
    bool ok = same && cp50 <= limit;
    if (a.expect_recall >= 0 && std::fabs(recall - a.expect_recall) > 1e-9) {
        std::printf("recall %.6f differs from the expected %.6f\n", recall, a.expect_recall);
        ok = false;
    }
    std::printf("check: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    Args a = parse(argc, argv);
    if (!astral::version_compatible()) {
        std::fprintf(stderr, "recall_p50: library %u does not serve header %s\n", astral_version_number(),
                     ASTRAL_VERSION_STRING);
        return 1;
    }
    AstralInit init = astral::init_defaults();
    init.thread_count = a.threads;
    if (astral::Status st = astral::init(init); !st) return fail("init", st), 1;
    int rc = run(a);
    (void)astral::shutdown();
    return rc;
}
