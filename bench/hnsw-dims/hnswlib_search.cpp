// Builds and saves hnswlib's graph as the anchors harness's hnsw_native
// module does (space 'ip' over normalized vectors, M 16, efConstruction
// 200, seed 100, the first point alone, the rest in an OpenMP loop), or
// loads one and searches it, for cache-sim.sh: run under a cache
// simulator, the search's share is the difference between two runs that
// search FIRST and a larger FIRST queries.
// usage: hnswlib_search build BASE.fvecs INDEX THREADS
//        hnswlib_search search INDEX QUERIES.fvecs EF FIRST
// search prints the hops (lists read, every level) and distance
// evaluations of its FIRST queries, one query a call, k 10.
#include <hnswlib.h>
#include <omp.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// readFvecs loads an .fvecs file into out, each row normalized, and returns
// the dimension (0 on error).
static int readFvecs(const char* path, std::vector<float>& out) {
    FILE* f = fopen(path, "rb");
    if (!f) { perror(path); return 0; }
    int dim = 0;
    for (;;) {
        int d;
        if (fread(&d, 4, 1, f) != 1) break;
        if (dim == 0) dim = d;
        if (d != dim || d <= 0) { fprintf(stderr, "%s: ragged fvecs\n", path); fclose(f); return 0; }
        size_t at = out.size();
        out.resize(at + d);
        if (fread(&out[at], 4, d, f) != (size_t)d) { fprintf(stderr, "%s: short fvecs\n", path); fclose(f); return 0; }
        double norm = 0;
        for (int j = 0; j < d; j++) norm += (double)out[at + j] * out[at + j];
        if (norm > 0) {
            float inv = (float)(1 / std::sqrt(norm));
            for (int j = 0; j < d; j++) out[at + j] *= inv;
        }
    }
    fclose(f);
    return dim;
}

// searchOne stays a call of its own so that a profile can find the search.
__attribute__((noinline)) static size_t searchOne(hnswlib::HierarchicalNSW<float>& alg, const float* q) {
    return alg.searchKnn(q, 10).size();
}

int main(int argc, char** argv) {
    if (argc == 5 && strcmp(argv[1], "build") == 0) {
        std::vector<float> data;
        int dim = readFvecs(argv[2], data);
        int threads = atoi(argv[4]);
        if (dim == 0 || threads < 1) return 1;
        int64_t n = (int64_t)(data.size() / dim);
        hnswlib::InnerProductSpace space(dim);
        hnswlib::HierarchicalNSW<float> alg(&space, n, 16, 200, 100);
        const float* p = data.data();
        alg.addPoint(p, 0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
        for (int64_t i = 1; i < n; i++) alg.addPoint(p + i * dim, (size_t)i);
        alg.saveIndex(argv[3]);
        printf("hnswlib: built %lld x %d, saved %s\n", (long long)n, dim, argv[3]);
        return 0;
    }
    if (argc == 6 && strcmp(argv[1], "search") == 0) {
        std::vector<float> queries;
        int dim = readFvecs(argv[3], queries);
        int ef = atoi(argv[4]);
        long first = atol(argv[5]);
        if (dim == 0 || ef < 1 || first < 1 || (size_t)first * dim > queries.size()) {
            fprintf(stderr, "bad queries, EF or FIRST\n");
            return 1;
        }
        hnswlib::InnerProductSpace space(dim);
        hnswlib::HierarchicalNSW<float> alg(&space, std::string(argv[2]));
        // Some hnswlib releases leave num_deleted_ uninitialized in
        // loadIndex and then search by the path for indexes with deletions
        // (another stop rule, a flag read for each admitted node); the
        // harness searches a graph it just built, so count them afresh.
        size_t deleted = 0;
        for (size_t i = 0; i < alg.cur_element_count; i++) deleted += alg.isMarkedDeleted((hnswlib::tableint)i);
        alg.num_deleted_ = deleted;
        alg.setEf(ef);
        alg.metric_hops = 0;
        alg.metric_distance_computations = 0;
        size_t found = 0;
        for (long i = 0; i < first; i++) found += searchOne(alg, queries.data() + i * dim);
        printf("hnswlib: %ld queries, ef %d, %zu results, hops %ld, evaluations %ld\n", first, ef, found,
               (long)alg.metric_hops, (long)alg.metric_distance_computations);
        return 0;
    }
    fprintf(stderr,
            "usage: hnswlib_search build BASE.fvecs INDEX THREADS\n"
            "       hnswlib_search search INDEX QUERIES.fvecs EF FIRST\n");
    return 2;
}
