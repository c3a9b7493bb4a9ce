// hnswlib's filtered search on the data, filters and exact filtered truth
// that `astral bench --filter ... --export DIR` writes (internal/fixture's
// Export): the same records, tags, owner groups and id lists, so recall and
// latency compare with Astral's rows as ratios.
//
// hnswlib 0.7+ filters with a BaseFilterFunctor called per candidate; the
// Debian 0.6.2 headers have none, so there the non-matching records are
// marked deleted for the duration of a filter, which drives the very same
// search (deleted nodes are walked through but never admitted; the search
// runs until ef admitted). run.sh picks the functor when the header has it.
//
// usage: harness DIR [--m 16] [--ef-construction 200] [--ef 128,...]
//                    [--build-threads 2] [--runs 5] [--run-seconds 0.3]
//                    [--json FILE]
#include <hnswlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Filter {
    std::string spec, kind;
    uint64_t tag = 0, owner = 0;
    std::vector<uint64_t> ids;        // allow or deny list
    std::vector<char> match;          // per record
    size_t matches = 0;
    std::vector<std::vector<int32_t>> truth;  // per query, best first
};

struct Data {
    size_t n = 0, nq = 0, dim = 0, k = 0;
    std::string metric;
    std::vector<float> base, queries;
    std::vector<uint64_t> tags, owners;
    std::vector<Filter> filters;
};

std::vector<char> readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

std::vector<float> readFvecs(const std::string& path, size_t& dim) {
    auto buf = readFile(path);
    std::vector<float> out;
    size_t off = 0;
    dim = 0;
    while (off < buf.size()) {
        int32_t d;
        if (off + 4 > buf.size()) throw std::runtime_error(path + ": truncated");
        std::memcpy(&d, buf.data() + off, 4);
        if (d < 1 || (dim && (size_t)d != dim)) throw std::runtime_error(path + ": bad dim");
        dim = (size_t)d;
        if (off + 4 + 4 * dim > buf.size()) throw std::runtime_error(path + ": truncated");
        size_t at = out.size();
        out.resize(at + dim);
        std::memcpy(out.data() + at, buf.data() + off + 4, 4 * dim);
        off += 4 + 4 * dim;
    }
    return out;
}

std::vector<std::vector<int32_t>> readIvecs(const std::string& path) {
    auto buf = readFile(path);
    std::vector<std::vector<int32_t>> out;
    size_t off = 0;
    while (off < buf.size()) {
        int32_t d;
        if (off + 4 > buf.size()) throw std::runtime_error(path + ": truncated");
        std::memcpy(&d, buf.data() + off, 4);
        if (d < 0 || off + 4 + 4 * (size_t)d > buf.size()) throw std::runtime_error(path + ": truncated");
        std::vector<int32_t> l((size_t)d);
        std::memcpy(l.data(), buf.data() + off + 4, 4 * (size_t)d);
        out.push_back(std::move(l));
        off += 4 + 4 * (size_t)d;
    }
    return out;
}

std::vector<uint64_t> readU64(const std::string& path) {
    auto buf = readFile(path);
    if (buf.size() % 8) throw std::runtime_error(path + ": not whole uint64s");
    std::vector<uint64_t> out(buf.size() / 8);
    std::memcpy(out.data(), buf.data(), buf.size());
    return out;
}

Data load(const std::string& dir) {
    Data d;
    std::ifstream m(dir + "/filters.tsv");
    if (!m) throw std::runtime_error("cannot open " + dir + "/filters.tsv");
    std::string line;
    std::getline(m, line);
    const std::string magic = "# astral-scope 1 ";
    if (line.compare(0, magic.size(), magic) != 0) throw std::runtime_error("filters.tsv: not an astral-scope 1 export");
    std::istringstream head(line.substr(magic.size()));
    std::map<std::string, std::string> kv;
    for (std::string f; head >> f;) {
        auto eq = f.find('=');
        if (eq != std::string::npos) kv[f.substr(0, eq)] = f.substr(eq + 1);
    }
    d.n = std::stoull(kv.at("n"));
    d.nq = std::stoull(kv.at("nq"));
    d.k = std::stoull(kv.at("k"));
    d.metric = kv.at("metric");
    size_t dim = 0;
    d.base = readFvecs(dir + "/base.fvecs", dim);
    d.dim = std::stoull(kv.at("dim"));
    if (dim != d.dim || d.base.size() != d.n * d.dim) throw std::runtime_error("base.fvecs does not match the manifest");
    d.queries = readFvecs(dir + "/queries.fvecs", dim);
    if (dim != d.dim || d.queries.size() != d.nq * d.dim) throw std::runtime_error("queries.fvecs does not match the manifest");
    d.tags = readU64(dir + "/tags.u64");
    d.owners = readU64(dir + "/owners.u64");
    if (d.tags.size() != d.n || d.owners.size() != d.n) throw std::runtime_error("tags/owners do not match the manifest");
    std::getline(m, line);  // column header
    while (std::getline(m, line)) {
        if (line.empty()) continue;
        std::istringstream cols(line);
        Filter f;
        std::string tag, owner, ids, truth, matches;
        std::getline(cols, f.spec, '\t');
        std::getline(cols, f.kind, '\t');
        std::getline(cols, tag, '\t');
        std::getline(cols, owner, '\t');
        std::getline(cols, ids, '\t');
        std::getline(cols, truth, '\t');
        std::getline(cols, matches, '\t');
        f.tag = std::stoull(tag);
        f.owner = std::stoull(owner);
        if (ids != "-") f.ids = readU64(dir + "/" + ids);
        std::sort(f.ids.begin(), f.ids.end());
        f.match.assign(d.n, 0);
        for (size_t r = 0; r < d.n; r++) {
            bool ok = true;
            if (f.kind == "tags") ok = (d.tags[r] & f.tag) == f.tag;
            else if (f.kind == "owner") ok = d.owners[r] == f.owner;
            else if (f.kind == "allow") ok = std::binary_search(f.ids.begin(), f.ids.end(), (uint64_t)r);
            else if (f.kind == "deny") ok = !std::binary_search(f.ids.begin(), f.ids.end(), (uint64_t)r);
            else if (f.kind != "none") throw std::runtime_error("unknown filter kind " + f.kind);
            f.match[r] = ok;
            f.matches += ok;
        }
        if (f.matches != std::stoull(matches))
            throw std::runtime_error(f.spec + ": " + std::to_string(f.matches) + " records match, the manifest says " + matches);
        f.truth = readIvecs(dir + "/" + truth);
        if (f.truth.size() != d.nq) throw std::runtime_error(truth + ": wrong number of queries");
        d.filters.push_back(std::move(f));
    }
    return d;
}

void normalizeRows(std::vector<float>& v, size_t dim) {
    for (size_t off = 0; off < v.size(); off += dim) {
        double ss = 0;
        for (size_t i = 0; i < dim; i++) ss += (double)v[off + i] * v[off + i];
        if (ss == 0) continue;
        double norm = std::sqrt(ss);
        for (size_t i = 0; i < dim; i++) v[off + i] = (float)(v[off + i] / norm);
    }
}

// recall@k as internal/fixture.RecallAtK reckons it: the true rows found
// over the true rows wanted, min(k, |truth|) per query (1 if none wanted).
double recall(const std::vector<std::vector<int32_t>>& truth, const std::vector<std::vector<int64_t>>& found, size_t k) {
    size_t hits = 0, wanted = 0;
    for (size_t q = 0; q < truth.size(); q++) {
        size_t want = std::min(k, truth[q].size());
        wanted += want;
        std::vector<char> used(want, 0);
        for (size_t j = 0; j < std::min(k, found[q].size()); j++)
            for (size_t i = 0; i < want; i++)
                if (!used[i] && truth[q][i] == found[q][j]) { used[i] = 1; hits++; break; }
    }
    return wanted ? (double)hits / wanted : 1.0;
}

#ifdef HAVE_FILTER_FUNCTOR
struct MatchFilter : hnswlib::BaseFilterFunctor {
    const char* match;
    explicit MatchFilter(const char* m) : match(m) {}
    bool operator()(hnswlib::labeltype id) override { return match[id]; }
};
const char* kFilterAPI = "functor";
#else
const char* kFilterAPI = "deleted-marks";
#endif

struct Row {
    double recall, p50, p95, p99, mean;
};

double pct(const std::vector<double>& sorted, double p) {
    return sorted[(size_t)((double)(sorted.size() - 1) * p / 100)];
}

Row measure(hnswlib::HierarchicalNSW<float>& alg, const Data& d, const Filter& f, int runs, double runSeconds) {
    const size_t k = d.k;
    std::vector<std::vector<int64_t>> found(d.nq);
    const bool filtered = f.kind != "none";
#ifdef HAVE_FILTER_FUNCTOR
    MatchFilter functor(f.match.data());
    hnswlib::BaseFilterFunctor* allow = filtered ? &functor : nullptr;
    auto search = [&](const float* q) { return alg.searchKnn(q, k, allow); };
#else
    if (filtered)
        for (size_t r = 0; r < d.n; r++)
            if (!f.match[r]) alg.markDelete(r);
    auto search = [&](const float* q) { return alg.searchKnn(q, k); };
#endif
    for (size_t q = 0; q < d.nq; q++) {  // warm-up pass; records the results
        auto res = search(d.queries.data() + q * d.dim);
        found[q].assign(res.size(), -1);
        for (size_t j = res.size(); j-- > 0;) { found[q][j] = (int64_t)res.top().second; res.pop(); }
    }
    std::vector<Row> rs;
    std::vector<double> lat;
    for (int run = 0; run < runs; run++) {
        lat.clear();
        auto start = std::chrono::steady_clock::now();
        for (int pass = 0; pass == 0 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < runSeconds; pass++) {
            for (size_t q = 0; q < d.nq; q++) {
                auto t0 = std::chrono::steady_clock::now();
                auto res = search(d.queries.data() + q * d.dim);
                auto t1 = std::chrono::steady_clock::now();
                lat.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
                if (res.size() > k) throw std::runtime_error("more than k results");
            }
        }
        std::sort(lat.begin(), lat.end());
        double sum = 0;
        for (double v : lat) sum += v;
        rs.push_back({0, pct(lat, 50), pct(lat, 95), pct(lat, 99), sum / lat.size()});
    }
#ifndef HAVE_FILTER_FUNCTOR
    if (filtered)
        for (size_t r = 0; r < d.n; r++)
            if (!f.match[r]) alg.unmarkDelete(r);
#endif
    std::sort(rs.begin(), rs.end(), [](const Row& a, const Row& b) { return a.p50 < b.p50; });
    Row med = rs[rs.size() / 2];
    med.recall = recall(f.truth, found, k);
    return med;
}

std::vector<size_t> sizeList(const std::string& s) {
    std::vector<size_t> out;
    std::istringstream in(s);
    for (std::string f; std::getline(in, f, ',');) out.push_back(std::stoull(f));
    return out;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s DIR [--m 16] [--ef-construction 200] [--ef 128,...] [--build-threads 2] [--runs 5] [--run-seconds 0.3] [--json FILE]\n", argv[0]);
        return 2;
    }
    std::string dir = argv[1], jsonPath;
    size_t M = 16, efc = 200, buildThreads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<size_t> efs = {128};
    int runs = 5;
    double runSeconds = 0.3;
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) throw std::runtime_error("flag " + a + " needs a value");
        std::string v = argv[++i];
        if (a == "--m") M = std::stoull(v);
        else if (a == "--ef-construction") efc = std::stoull(v);
        else if (a == "--ef") efs = sizeList(v);
        else if (a == "--build-threads") buildThreads = std::stoull(v);
        else if (a == "--runs") runs = std::stoi(v);
        else if (a == "--run-seconds") runSeconds = std::stod(v);
        else if (a == "--json") jsonPath = v;
        else throw std::runtime_error("unknown flag " + a);
    }
    Data d = load(dir);
    std::unique_ptr<hnswlib::SpaceInterface<float>> space;
    if (d.metric == "cosine") {
        normalizeRows(d.base, d.dim);
        normalizeRows(d.queries, d.dim);
        space.reset(new hnswlib::InnerProductSpace(d.dim));
    } else if (d.metric == "dot") {
        space.reset(new hnswlib::InnerProductSpace(d.dim));
    } else if (d.metric == "l2") {
        space.reset(new hnswlib::L2Space(d.dim));
    } else {
        throw std::runtime_error("unknown metric " + d.metric);
    }
    const char* simd =
#if defined(USE_AVX512)
        "avx512";
#elif defined(USE_AVX)
        "avx";
#elif defined(USE_SSE)
        "sse";
#else
        "none";
#endif
    std::fprintf(stderr, "hnswlib (%s, filter: %s): building %zu × %zu, M %zu, efConstruction %zu, %zu threads...\n",
                 simd, kFilterAPI, d.n, d.dim, M, efc, buildThreads);
    hnswlib::HierarchicalNSW<float> alg(space.get(), d.n, M, efc, 100);
    auto t0 = std::chrono::steady_clock::now();
    if (d.n > 0) alg.addPoint(d.base.data(), 0);
    std::atomic<size_t> next{1};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < buildThreads; t++)
        pool.emplace_back([&] {
            for (size_t i; (i = next.fetch_add(1)) < d.n;) alg.addPoint(d.base.data() + i * d.dim, i);
        });
    for (auto& th : pool) th.join();
    double buildS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    FILE* js = jsonPath.empty() ? nullptr : std::fopen(jsonPath.c_str(), "w");
    if (!jsonPath.empty() && !js) throw std::runtime_error("cannot write " + jsonPath);
    std::printf("hnswlib %s, filter %s, %zu × %zu, %zu queries, k=%zu, M %zu, efC %zu, build %.1f s\n",
                simd, kFilterAPI, d.n, d.dim, d.nq, d.k, M, efc, buildS);
    std::printf("%-12s %11s %5s %9s %9s %9s %9s %9s\n", "filter", "selectivity", "ef", "recall@k", "p50 µs", "p95 µs", "p99 µs", "mean µs");
    for (size_t ef : efs) {
        alg.setEf(ef);
        for (const Filter& f : d.filters) {
            Row r = measure(alg, d, f, runs, runSeconds);
            double sel = d.n ? (double)f.matches / d.n : 1;
            std::printf("%-12s %11.4f %5zu %9.4f %9.1f %9.1f %9.1f %9.1f\n", f.spec.c_str(), sel, ef, r.recall, r.p50, r.p95, r.p99, r.mean);
            std::fflush(stdout);
            if (js)
                std::fprintf(js,
                             "{\"engine\": \"hnswlib\", \"simd\": \"%s\", \"filter_api\": \"%s\", \"filter\": \"%s\", \"selectivity\": %.6g, "
                             "\"m\": %zu, \"ef_construction\": %zu, \"ef\": %zu, \"k\": %zu, \"recall_at_k\": %.6g, "
                             "\"p50_us\": %.6g, \"p95_us\": %.6g, \"p99_us\": %.6g, \"mean_us\": %.6g, \"build_s\": %.6g}\n",
                             simd, kFilterAPI, f.kind == "none" ? "" : f.spec.c_str(), sel, M, efc, ef, d.k, r.recall, r.p50, r.p95,
                             r.p99, r.mean, buildS);
        }
    }
    if (js) std::fclose(js);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "harness: %s\n", e.what());
    return 1;
}
