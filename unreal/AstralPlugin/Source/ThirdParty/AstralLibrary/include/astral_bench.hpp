// astral_bench.hpp: the reference measurement of docs/BENCHMARKS.md over astral.hpp,
// header-only C++17 with nothing beyond the standard library (a measuring
// harness beside the examples, not API: never installed): the benchmark
// fixtures (the `random` recipe regenerated here, or any fixture read from
// the .fvecs files `astral fixture` writes), exact ground truth, recall@k and
// the p50 latency of one query per call on a warm index.
//
// examples/cpp/recall_p50.cpp, the Unreal plugin's Automation tests and the
// CTest unreal_measure_* all run this code, so the numbers the engine prints
// come from code that is tested against the real library here.
//
// Hosts that route astral.hpp through a function table (ASTRAL_HPP_CALL)
// define it before including this header, as for astral.hpp.
#ifndef ASTRAL_BENCH_HPP
#define ASTRAL_BENCH_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "astral.hpp"

namespace astral {
namespace bench {

// The reference workload (DESIGN.md): 100,000 x 384 `random`, 64 queries,
// k 10; docs/BENCHMARKS.md's latency method takes 21 timed runs.
inline constexpr std::size_t kReferenceCount = 100000;
inline constexpr std::size_t kReferenceQueries = 64;
inline constexpr std::size_t kReferenceDimension = 384;
inline constexpr std::uint32_t kReferenceK = 10;
inline constexpr int kReferenceRuns = 21;

// fixture_hash of the reference `random` fixture as Go's internal/fixture
// generates it; the CTest unreal_measure_reference keeps it honest.
inline constexpr std::uint64_t kReferenceRandomHash = 0x6f47ef5d380cb5b2ull;
// recall@10 of a flat E5M2 cosine index on it, as `astral bench` reports
// (the same on every CPU and thread count: the kernels are bit-identical).
inline constexpr double kReferenceRandomRecall = 0.896875;

// ---- Fixtures ---------------------------------------------------------------

// Pcg is the generator of Go's math/rand/v2 (rand.NewPCG): a 128-bit LCG
// whose output goes through the DXSM permutation. Written with 64-bit
// arithmetic only, so MSVC (no __int128) gets the same bits.
class Pcg {
public:
    Pcg(std::uint64_t seed1, std::uint64_t seed2) noexcept : hi_(seed1), lo_(seed2) {}

    std::uint64_t next() noexcept {
        constexpr std::uint64_t mul_hi = 2549297995355413924ull, mul_lo = 4865540595714422341ull;
        constexpr std::uint64_t inc_hi = 6364136223846793005ull, inc_lo = 1442695040888963407ull;
        std::uint64_t hi, lo;
        mul64(lo_, mul_lo, hi, lo);
        hi += hi_ * mul_lo + lo_ * mul_hi;
        const std::uint64_t sum = lo + inc_lo;
        hi += inc_hi + (sum < lo ? 1u : 0u);
        lo_ = sum;
        hi_ = hi;
        hi ^= hi >> 32;
        hi *= 0xda942042e4dd58b5ull;
        hi ^= hi >> 48;
        return hi * (sum | 1u);
    }

    // Go's Rand.Float64: 53 random bits scaled into [0, 1).
    double float64() noexcept { return double(next() << 11 >> 11) / 9007199254740992.0; }

    // Go's Rand.NormFloat64: Marsaglia and Tsang's ziggurat, 128 strips.
    double norm_float64() noexcept;

private:
    static void mul64(std::uint64_t a, std::uint64_t b, std::uint64_t &hi, std::uint64_t &lo) noexcept {
        const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
        const std::uint64_t low = a0 * b0;
        const std::uint64_t mid = a1 * b0 + (low >> 32);
        const std::uint64_t mid2 = (mid & 0xffffffffu) + a0 * b1;
        hi = a1 * b1 + (mid >> 32) + (mid2 >> 32);
        lo = a * b;
    }

    std::uint64_t hi_, lo_;
};

namespace detail {

// The ziggurat's strip tables, computed by Marsaglia and Tsang's recipe
// (r = 3.442619855899, v = 9.91256303526217e-3) in double and rounded as Go
// stores them; every entry equals Go's tables (the CTest compares whole
// fixtures bit for bit, which draws from every strip).
struct Ziggurat {
    static constexpr double r = 3.442619855899;
    std::uint32_t kn[128];
    float wn[128];
    float fn[128];

    Ziggurat() noexcept {
        const double m1 = 2147483648.0, v = 9.91256303526217e-3;
        double dn = r, tn = r;
        const double q = v / std::exp(-0.5 * dn * dn);
        kn[0] = static_cast<std::uint32_t>((dn / q) * m1);
        kn[1] = 0;
        wn[0] = static_cast<float>(q / m1);
        wn[127] = static_cast<float>(dn / m1);
        fn[0] = 1.0f;
        fn[127] = static_cast<float>(std::exp(-0.5 * dn * dn));
        for (int i = 126; i >= 1; i--) {
            dn = std::sqrt(-2.0 * std::log(v / dn + std::exp(-0.5 * dn * dn)));
            kn[i + 1] = static_cast<std::uint32_t>((dn / tn) * m1);
            tn = dn;
            fn[i] = static_cast<float>(std::exp(-0.5 * dn * dn));
            wn[i] = static_cast<float>(dn / m1);
        }
    }
};

inline const Ziggurat &ziggurat() noexcept {
    static const Ziggurat tables; // thread-safe initialization (C++11)
    return tables;
}

} // namespace detail

inline double Pcg::norm_float64() noexcept {
    const detail::Ziggurat &z = detail::ziggurat();
    for (;;) {
        const std::uint64_t u = next();
        const std::int32_t j = static_cast<std::int32_t>(static_cast<std::uint32_t>(u));
        const std::size_t i = static_cast<std::size_t>((u >> 32) & 0x7f);
        double x = double(j) * double(z.wn[i]);
        const std::uint32_t abs_j = j < 0 ? 0u - static_cast<std::uint32_t>(j) : static_cast<std::uint32_t>(j);
        if (abs_j < z.kn[i]) {
            return x; // the common case, > 99 %
        }
        if (i == 0) {
            // The base strip's tail.
            for (;;) {
                x = -std::log(float64()) * (1.0 / detail::Ziggurat::r);
                const double y = -std::log(float64());
                if (y + y >= x * x) {
                    break;
                }
            }
            return j > 0 ? detail::Ziggurat::r + x : -detail::Ziggurat::r - x;
        }
        // float arithmetic as Go's, one rounding per statement so that no
        // compiler fuses the multiply and add.
        const float spread = z.fn[i - 1] - z.fn[i];
        const float scaled = static_cast<float>(float64()) * spread;
        const float level = z.fn[i] + scaled;
        if (level < static_cast<float>(std::exp(-0.5 * x * x))) {
            return x;
        }
    }
}

// Fixture is a benchmark fixture: stored vectors and queries, row-major.
struct Fixture {
    std::size_t dimension = 0;
    std::vector<float> base;    // count() rows
    std::vector<float> queries; // query_count() rows

    std::size_t count() const noexcept { return dimension != 0 ? base.size() / dimension : 0; }
    std::size_t query_count() const noexcept { return dimension != 0 ? queries.size() / dimension : 0; }
    const float *row(std::size_t i) const noexcept { return base.data() + i * dimension; }
    const float *query(std::size_t i) const noexcept { return queries.data() + i * dimension; }
};

// normalize scales a row to unit L2 norm as internal/fixture does: the sum
// of float64 squares in index order (each product of two floats is exact in
// double, so contraction into FMA cannot change it), then one division per
// component. A zero row stays zero.
inline void normalize(float *row, std::size_t dimension) noexcept {
    double ss = 0;
    for (std::size_t i = 0; i < dimension; i++) {
        const double v = row[i];
        ss += v * v;
    }
    if (ss == 0) {
        return;
    }
    const double norm = std::sqrt(ss);
    for (std::size_t i = 0; i < dimension; i++) {
        row[i] = static_cast<float>(double(row[i]) / norm);
    }
}

// fill_random writes rows of float(NormFloat64()) drawn in order from r,
// each row then normalized.
inline void fill_random(float *out, std::size_t rows, std::size_t dimension, Pcg r) noexcept {
    for (std::size_t i = 0; i < rows * dimension; i++) {
        out[i] = static_cast<float>(r.norm_float64());
    }
    for (std::size_t row = 0; row < rows; row++) {
        normalize(out + row * dimension, dimension);
    }
}

// random_fixture is the `random` recipe of internal/fixture (docs/BENCHMARKS.md):
// stored vectors from PCG(42, 1024), queries from PCG(7, 1024). Smaller
// counts give prefixes of larger fixtures.
inline Fixture random_fixture(std::size_t count = kReferenceCount, std::size_t query_count = kReferenceQueries,
                              std::size_t dimension = kReferenceDimension) {
    Fixture f;
    f.dimension = dimension;
    f.base.resize(count * dimension);
    f.queries.resize(query_count * dimension);
    fill_random(f.base.data(), count, dimension, Pcg(42, 1024));
    fill_random(f.queries.data(), query_count, dimension, Pcg(7, 1024));
    return f;
}

// fixture_hash is FNV-1a (64-bit) over the little-endian bytes of the
// dimension, the stored vectors and the queries: equal hashes mean the same
// fixture, bit for bit.
inline std::uint64_t fixture_hash(const Fixture &f) noexcept {
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&h](std::uint32_t word) {
        for (int b = 0; b < 4; b++) {
            h ^= (word >> (8 * b)) & 0xffu;
            h *= 1099511628211ull;
        }
    };
    mix(static_cast<std::uint32_t>(f.dimension));
    for (const std::vector<float> *part : {&f.base, &f.queries}) {
        for (float v : *part) {
            std::uint32_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            mix(bits);
        }
    }
    return h;
}

// Largest dimension a .fvecs record may declare (internal/fixture.MaxDim).
inline constexpr std::size_t kMaxFvecsDimension = 65536;

// parse_fvecs reads a TEXMEX .fvecs image: per vector a little-endian int32
// dimension, then that many little-endian float32. Every record must have
// the same dimension, 1 to kMaxFvecsDimension, and the data must end on a
// record boundary. Empty input is an error here (a fixture needs rows).
inline bool parse_fvecs(const void *data, std::size_t size, std::vector<float> &out, std::size_t &dimension,
                        std::string &error) {
    const unsigned char *p = static_cast<const unsigned char *>(data);
    auto word = [](const unsigned char *b) {
        return std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 |
               std::uint32_t(b[3]) << 24;
    };
    out.clear();
    dimension = 0;
    if (size == 0) {
        error = "fvecs: no records";
        return false;
    }
    if (size < 4) {
        error = "fvecs: truncated header";
        return false;
    }
    const std::int32_t d = static_cast<std::int32_t>(word(p));
    if (d < 1 || static_cast<std::size_t>(d) > kMaxFvecsDimension) {
        error = "fvecs: record 0: dimension " + std::to_string(d) + " out of range 1.." +
                std::to_string(kMaxFvecsDimension);
        return false;
    }
    const std::size_t dim = static_cast<std::size_t>(d), record = 4 + 4 * dim;
    if (size % record != 0) {
        error = "fvecs: " + std::to_string(size) + " bytes are not whole records of dimension " +
                std::to_string(dim);
        return false;
    }
    const std::size_t rows = size / record;
    out.resize(rows * dim);
    for (std::size_t r = 0; r < rows; r++) {
        const unsigned char *rec = p + r * record;
        if (word(rec) != static_cast<std::uint32_t>(dim)) {
            error = "fvecs: record " + std::to_string(r) + ": dimension " +
                    std::to_string(static_cast<std::int32_t>(word(rec))) + ", want " + std::to_string(dim);
            out.clear();
            return false;
        }
        for (std::size_t i = 0; i < dim; i++) {
            const std::uint32_t bits = word(rec + 4 + 4 * i);
            std::memcpy(&out[r * dim + i], &bits, sizeof bits);
        }
    }
    dimension = dim;
    return true;
}

// fixture_from_fvecs builds a fixture from two .fvecs images (stored
// vectors, queries) of the same dimension.
inline bool fixture_from_fvecs(const void *base, std::size_t base_size, const void *queries,
                               std::size_t queries_size, Fixture &out, std::string &error) {
    std::size_t base_dim = 0, query_dim = 0;
    if (!parse_fvecs(base, base_size, out.base, base_dim, error)) {
        error = "stored vectors: " + error;
        return false;
    }
    if (!parse_fvecs(queries, queries_size, out.queries, query_dim, error)) {
        error = "queries: " + error;
        return false;
    }
    if (base_dim != query_dim) {
        error = "stored vectors have dimension " + std::to_string(base_dim) + ", queries " +
                std::to_string(query_dim);
        return false;
    }
    out.dimension = base_dim;
    return true;
}

// read_file reads a whole file (hosts with their own file API, such as
// Unreal's FFileHelper, pass its bytes to parse_fvecs instead).
inline bool read_file(const std::string &path, std::vector<unsigned char> &out, std::string &error) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        error = path + ": cannot open";
        return false;
    }
    out.clear();
    unsigned char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        out.insert(out.end(), buf, buf + n);
    }
    const bool ok = std::ferror(f) == 0;
    std::fclose(f);
    if (!ok) {
        error = path + ": read error";
    }
    return ok;
}

// ---- Ground truth and recall -------------------------------------------

// Truth holds, per query, the ids (stored row numbers) of the k rows with
// the highest dot product, best first: query q's list is
// ids[q*k .. q*k + counts[q]).
struct Truth {
    std::uint32_t k = 0;
    std::vector<std::uint64_t> ids;
    std::vector<std::uint32_t> counts;
};

// exact_top_k_one is internal/fixture's topK for one query: float64 dot
// products summed in four lanes, then (s0 + s1) + (s2 + s3), over the
// original floats; ties go to the lower row. Every product of two floats is
// exact in double, so the sums are the same on every platform.
inline std::uint32_t exact_top_k_one(const Fixture &f, std::size_t query, std::uint32_t k, std::uint64_t *ids,
                                     std::vector<double> &scores, std::vector<double> &q64) {
    const std::size_t dim = f.dimension, n = f.count();
    const std::size_t kk = (std::min)(static_cast<std::size_t>(k), n);
    if (kk == 0) {
        return 0;
    }
    q64.assign(f.query(query), f.query(query) + dim);
    scores.assign(kk, 0.0);
    std::size_t filled = 0;
    for (std::size_t row = 0; row < n; row++) {
        const float *a = f.row(row);
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        std::size_t i = 0;
        for (; i + 4 <= dim; i += 4) {
            s0 += double(a[i]) * q64[i];
            s1 += double(a[i + 1]) * q64[i + 1];
            s2 += double(a[i + 2]) * q64[i + 2];
            s3 += double(a[i + 3]) * q64[i + 3];
        }
        for (; i < dim; i++) {
            s0 += double(a[i]) * q64[i];
        }
        const double s = (s0 + s1) + (s2 + s3);
        // Rows come in order, so an equal score never displaces an earlier row.
        if (filled == kk && s <= scores[kk - 1]) {
            continue;
        }
        std::size_t pos = (std::min)(filled, kk - 1);
        while (pos > 0 && scores[pos - 1] < s) {
            scores[pos] = scores[pos - 1];
            ids[pos] = ids[pos - 1];
            pos--;
        }
        scores[pos] = s;
        ids[pos] = row;
        if (filled < kk) {
            filled++;
        }
    }
    return static_cast<std::uint32_t>(filled);
}

// for_each_thread runs body(0 .. count-1) on std::thread workers, one per
// hardware thread. Hosts with a task system pass their own parallel-for to
// exact_top_k instead (Unreal: ParallelFor).
struct ForEachThread {
    template <class Body>
    void operator()(std::size_t count, const Body &body) const {
        const std::size_t workers =
            (std::min)(count, static_cast<std::size_t>((std::max)(1u, std::thread::hardware_concurrency())));
        std::atomic<std::size_t> next{0};
        std::vector<std::thread> pool;
        for (std::size_t w = 0; w < workers; w++) {
            pool.emplace_back([&] {
                for (std::size_t i = next++; i < count; i = next++) {
                    body(i);
                }
            });
        }
        for (std::thread &t : pool) {
            t.join();
        }
    }
};

// exact_top_k computes the truth of every query: for_each(count, body) must
// call body(i) once for each i in [0, count), in any order, on any threads.
template <class ForEach>
Truth exact_top_k(const Fixture &f, std::uint32_t k, ForEach &&for_each) {
    Truth t;
    t.k = k;
    const std::size_t nq = f.query_count();
    t.ids.assign(nq * k, 0);
    t.counts.assign(nq, 0);
    for_each(nq, [&](std::size_t q) {
        std::vector<double> scores, q64;
        t.counts[q] = exact_top_k_one(f, q, k, t.ids.data() + q * k, scores, q64);
    });
    return t;
}

inline Truth exact_top_k(const Fixture &f, std::uint32_t k) { return exact_top_k(f, k, ForEachThread{}); }

// recall_at_k is internal/fixture.RecallAtK: the mean over the queries of
// |found[:k] ∩ truth[:k]| / k, an id counted once. found holds query q's
// hits at found[q*stride .. q*stride + counts[q]).
inline double recall_at_k(const Truth &truth, const AstralResult *found, const std::uint32_t *counts,
                          std::size_t stride) {
    const std::size_t k = truth.k, nq = truth.counts.size();
    if (k == 0 || nq == 0) {
        return 0;
    }
    std::size_t hits = 0;
    std::vector<bool> used;
    for (std::size_t q = 0; q < nq; q++) {
        const std::uint64_t *t = truth.ids.data() + q * k;
        const std::size_t tn = (std::min)(static_cast<std::size_t>(truth.counts[q]), k);
        const std::size_t fn = (std::min)(static_cast<std::size_t>(counts[q]), k);
        used.assign(tn, false);
        for (std::size_t j = 0; j < fn; j++) {
            for (std::size_t i = 0; i < tn; i++) {
                if (!used[i] && t[i] == found[q * stride + j].id) {
                    used[i] = true;
                    hits++;
                    break;
                }
            }
        }
    }
    return double(hits) / double(k * nq);
}

// ---- Index and queries -------------------------------------------------

// add_fixture stores the fixture's rows under ids 0 .. count()-1, as
// `astral bench` does, so result ids are row numbers.
inline Status add_fixture(Index &index, const Fixture &f) {
    std::vector<std::uint64_t> ids(f.count());
    for (std::size_t i = 0; i < ids.size(); i++) {
        ids[i] = i;
    }
    return index.add(ids, f.base);
}

// timed_query runs one query through the C ABI and gives its wall time in
// microseconds (steady_clock around the call, nothing else inside).
inline Status timed_query(const Index &index, const float *query, std::size_t dimension, std::uint32_t k,
                          AstralResult *out, std::uint32_t &count, double &micros) noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    const Status st = index.query(Span<const float>(query, dimension), k, Span<AstralResult>(out, k), count);
    const auto t1 = std::chrono::steady_clock::now();
    micros = std::chrono::duration<double, std::micro>(t1 - t0).count();
    return st;
}

// Results holds one pass over the queries: query q's hits at
// hits[q*k .. q*k + counts[q]), its time in micros[q].
struct Results {
    std::uint32_t k = 0;
    std::vector<AstralResult> hits;
    std::vector<std::uint32_t> counts;
    std::vector<double> micros;
};

// query_each runs every query once, one per call.
inline Status query_each(const Index &index, const Fixture &f, std::uint32_t k, Results &out) {
    const std::size_t nq = f.query_count();
    out.k = k;
    out.hits.resize(nq * k);
    out.counts.assign(nq, 0);
    out.micros.assign(nq, 0.0);
    for (std::size_t q = 0; q < nq; q++) {
        Status st = timed_query(index, f.query(q), f.dimension, k, &out.hits[q * k], out.counts[q], out.micros[q]);
        if (!st) {
            return st;
        }
    }
    return Status();
}

// measure_recall: one pass over the queries, scored against truth.
inline Status measure_recall(const Index &index, const Fixture &f, const Truth &truth, double &recall,
                             Results &results) {
    Status st = query_each(index, f, truth.k, results);
    recall = st ? recall_at_k(truth, results.hits.data(), results.counts.data(), truth.k) : 0.0;
    return st;
}

// Latency of one run, in microseconds.
struct Latency {
    double p50 = 0, p95 = 0, p99 = 0, mean = 0;
};

// percentile is the nearest-rank percentile (docs/BENCHMARKS.md): the value at
// ceil(p * n) - 1 in sorted order.
inline double percentile(std::vector<double> v, double p) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const double rank = std::ceil(p * double(v.size()));
    const std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return v[(std::min)(i, v.size() - 1)];
}

inline Latency summarize(const std::vector<double> &micros) {
    double sum = 0;
    for (double x : micros) {
        sum += x;
    }
    return {percentile(micros, 0.50), percentile(micros, 0.95), percentile(micros, 0.99),
            micros.empty() ? 0.0 : sum / double(micros.size())};
}

// median_run is the run whose p50 is the median of the runs' p50s.
inline Latency median_run(std::vector<Latency> runs) {
    if (runs.empty()) {
        return Latency();
    }
    std::sort(runs.begin(), runs.end(), [](const Latency &a, const Latency &b) { return a.p50 < b.p50; });
    return runs[(runs.size() - 1) / 2];
}

// LatencyReport is docs/BENCHMARKS.md's latency figure: the run with the median p50,
// and the p50 over every timed sample of every run.
struct LatencyReport {
    Latency median;
    double p50_all = 0;
    std::size_t samples = 0;
    int runs = 0;
};

// measure_latency: one untimed warm pass, then runs timed passes over the
// queries, one query per call. last holds the final pass.
inline Status measure_latency(const Index &index, const Fixture &f, std::uint32_t k, int runs,
                              LatencyReport &out, Results &last) {
    out = LatencyReport();
    Status st = query_each(index, f, k, last); // warm: untimed
    std::vector<Latency> per_run;
    std::vector<double> all;
    for (int r = 0; st && r < runs; r++) {
        st = query_each(index, f, k, last);
        if (st) {
            per_run.push_back(summarize(last.micros));
            all.insert(all.end(), last.micros.begin(), last.micros.end());
        }
    }
    if (!st) {
        return st;
    }
    out.median = median_run(per_run);
    out.p50_all = percentile(all, 0.5);
    out.samples = all.size();
    out.runs = runs;
    return st;
}

} // namespace bench
} // namespace astral

#endif // ASTRAL_BENCH_HPP
