// recall_p50: recall@k and p50 latency of one query at a time through the C
// ABI, on a benchmark fixture (BENCH.md): the numbers the Unreal Automation
// tests report. C++17, using astral.hpp.
//
// The fixture is read from .fvecs files written by `astral fixture`
// (--base B.fvecs --queries Q.fvecs), or generated inside the library
// (--data random|spectral|clustered, bit-identical to `astral fixture`).
//
// Method (BENCH.md): one untimed warm pass, then --runs timed passes over
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
#define ASTRAL_EXPERIMENTAL
#include "astral.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

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

// readFvecs reads a TEXMEX .fvecs file: per vector an int32 dim, then dim floats.
bool readFvecs(const std::string &path, std::vector<float> &out, std::size_t &dim) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        std::perror(path.c_str());
        return false;
    }
    out.clear();
    dim = 0;
    std::int32_t d;
    bool ok = true;
    while (std::fread(&d, sizeof d, 1, f) == 1) {
        if (d < 1 || (dim != 0 && static_cast<std::size_t>(d) != dim)) {
            std::fprintf(stderr, "%s: bad record dimension %d\n", path.c_str(), d);
            ok = false;
            break;
        }
        dim = static_cast<std::size_t>(d);
        std::size_t at = out.size();
        out.resize(at + dim);
        if (std::fread(out.data() + at, sizeof(float), dim, f) != dim) {
            std::fprintf(stderr, "%s: truncated record\n", path.c_str());
            ok = false;
            break;
        }
    }
    std::fclose(f);
    return ok && dim != 0;
}

// exactTopK is internal/fixture.ExactTopK: float64 dot products summed in
// four lanes, then (s0 + s1) + (s2 + s3); best first, ties to the lower row.
std::vector<std::vector<std::int32_t>> exactTopK(const std::vector<float> &base,
                                                  const std::vector<float> &queries,
                                                  std::size_t dim, std::size_t k) {
    std::size_t n = base.size() / dim, nq = queries.size() / dim;
    k = std::min(k, n);
    std::vector<std::vector<std::int32_t>> truth(nq);
    auto one = [&](std::size_t qi) {
        std::vector<double> q(dim), scores(k);
        std::vector<std::int32_t> ids(k);
        for (std::size_t j = 0; j < dim; j++) q[j] = queries[qi * dim + j];
        std::size_t filled = 0;
        for (std::size_t row = 0; row < n; row++) {
            const float *a = &base[row * dim];
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            std::size_t i = 0;
            for (; i + 4 <= dim; i += 4) {
                s0 += double(a[i]) * q[i];
                s1 += double(a[i + 1]) * q[i + 1];
                s2 += double(a[i + 2]) * q[i + 2];
                s3 += double(a[i + 3]) * q[i + 3];
            }
            for (; i < dim; i++) s0 += double(a[i]) * q[i];
            double s = (s0 + s1) + (s2 + s3);
            if (k == 0 || (filled == k && s <= scores[k - 1])) continue;
            std::size_t pos = std::min(filled, k - 1);
            while (pos > 0 && scores[pos - 1] < s) {
                scores[pos] = scores[pos - 1];
                ids[pos] = ids[pos - 1];
                pos--;
            }
            scores[pos] = s;
            ids[pos] = static_cast<std::int32_t>(row);
            if (filled < k) filled++;
        }
        truth[qi].assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(filled));
    };
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; w++) {
        pool.emplace_back([&, w] {
            for (std::size_t qi = w; qi < nq; qi += workers) one(qi);
        });
    }
    for (auto &t : pool) t.join();
    return truth;
}

// recallAtK is internal/fixture.RecallAtK.
double recallAtK(const std::vector<std::vector<std::int32_t>> &truth,
                 const std::vector<AstralResult> &found, const std::vector<std::uint32_t> &counts,
                 std::size_t k) {
    std::size_t hits = 0;
    for (std::size_t q = 0; q < truth.size(); q++) {
        const auto &t = truth[q];
        std::vector<bool> used(t.size());
        for (std::uint32_t j = 0; j < std::min<std::size_t>(counts[q], k); j++) {
            for (std::size_t i = 0; i < t.size() && i < k; i++) {
                if (!used[i] && static_cast<std::uint64_t>(t[i]) == found[q * k + j].id) {
                    used[i] = true;
                    hits++;
                    break;
                }
            }
        }
    }
    return double(hits) / double(k * truth.size());
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    std::size_t i = static_cast<std::size_t>(std::ceil(p * double(v.size()))) - 1;
    return v[std::min(i, v.size() - 1)];
}

struct Run {
    double p50, p95, p99, mean;
};

Run summarize(const std::vector<double> &us) {
    double sum = 0;
    for (double x : us) sum += x;
    return {percentile(us, 0.50), percentile(us, 0.95), percentile(us, 0.99), sum / double(us.size())};
}

// medianRun is the run whose p50 is the median of the runs' p50s.
Run medianRun(std::vector<Run> runs) {
    std::sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.p50 < b.p50; });
    return runs[(runs.size() - 1) / 2];
}

bool fail(const char *what, astral::Status st) {
    std::fprintf(stderr, "recall_p50: %s: %s: %s\n", what, st.name(), astral::last_error().c_str());
    return false;
}

int run(const Args &a) {
    std::vector<float> base, queries;
    std::size_t dim = a.dim;
    std::string name = a.data;
    if (!a.base_path.empty()) {
        std::size_t qdim = 0;
        if (!readFvecs(a.base_path, base, dim) || !readFvecs(a.queries_path, queries, qdim)) return 1;
        if (qdim != dim) {
            std::fprintf(stderr, "recall_p50: base dimension %zu, queries %zu\n", dim, qdim);
            return 1;
        }
        name = a.base_path;
    } else {
        base.resize(a.n * dim);
        queries.resize(a.nq * dim);
        astral::Status st = astral_debug_fixture(a.data.c_str(), a.n, a.nq, dim, base.data(), queries.data());
        if (!st) return fail("generating the fixture", st), 1;
    }
    const std::size_t n = base.size() / dim, nq = queries.size() / dim, k = a.k;
    auto truth = exactTopK(base, queries, dim, k);

    AstralIndexOptions opts = astral::index_options(static_cast<std::uint32_t>(dim));
    opts.kind = a.kind;
    astral::Index index;
    if (astral::Status st = astral::Index::create(opts, index); !st) return fail("creating the index", st), 1;
    std::vector<std::uint64_t> ids(n);
    for (std::size_t i = 0; i < n; i++) ids[i] = i; // id = row, as `astral bench` does
    if (astral::Status st = index.add(ids, base); !st) return fail("adding", st), 1;
    AstralStats stats;
    if (astral::Status st = index.stats(stats); !st) return fail("stats", st), 1;

    std::vector<AstralResult> cres(nq * k), gres(nq * k);
    std::vector<std::uint32_t> ccount(nq), gcount(nq);
    std::vector<std::uint64_t> gns(nq);
    std::vector<double> cus(nq), gus(nq);
    std::vector<Run> cruns, gruns;
    std::vector<double> call, gall; // every timed sample of every run
    std::uint64_t mallocs = 0;

    // One query through the C ABI, timed here.
    auto cQuery = [&](std::size_t i) -> bool {
        auto t0 = std::chrono::steady_clock::now();
        astral::Status st = index.query(astral::Span<const float>(&queries[i * dim], dim), a.k,
                                        astral::Span<AstralResult>(&cres[i * k], k), ccount[i]);
        auto t1 = std::chrono::steady_clock::now();
        if (!st) return fail("query", st);
        cus[i] = std::chrono::duration<double, std::micro>(t1 - t0).count();
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
        cruns.push_back(summarize(cus));
        gruns.push_back(summarize(gus));
        call.insert(call.end(), cus.begin(), cus.end());
        gall.insert(gall.end(), gus.begin(), gus.end());
    }
    // Go heap allocations of the C path alone, over one more pass.
    std::uint64_t m0 = astral_debug_go_mallocs();
    for (std::size_t i = 0; i < nq; i++) {
        if (!cQuery(i)) return 1;
    }
    mallocs = astral_debug_go_mallocs() - m0;

    bool same = gcount == ccount && std::memcmp(cres.data(), gres.data(), cres.size() * sizeof cres[0]) == 0;
    double recall = recallAtK(truth, cres, ccount, k);
    double goRecall = recallAtK(truth, gres, gcount, k);
    Run c = medianRun(cruns), g = medianRun(gruns);
    // The comparison uses every sample of every run: the paired,
    // interleaved samples share the machine's state, and pooling them keeps
    // one noisy run (another process waking) from deciding it.
    double cp50 = percentile(call, 0.5), gp50 = percentile(gall, 0.5);
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
