// Times hnswlib's build as the anchors harness's hnsw_native module does
// (space 'ip', M 16, efConstruction 200, seed 100, the first point alone,
// the rest in an OpenMP loop, schedule(dynamic, 64)), for machines without
// that harness's Python packages. build-only.sh compiles and runs it.
// usage: hnswlib_build BASE.fvecs THREADS [REPEAT | count]
// With "count" it builds once through a space that counts its distance
// evaluations and prints them per inserted vector (hnsw/probe_test.go's
// TestProbeBuild counts Astral's); its time is not comparable.
#include <hnswlib.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// CountingSpace is the inner-product space with each distance counted,
// per thread.
static thread_local long long evaluations = 0;
static hnswlib::DISTFUNC<float> innerProduct;
static float countedInnerProduct(const void* a, const void* b, const void* dim) {
    evaluations++;
    return innerProduct(a, b, dim);
}
struct CountingSpace : hnswlib::SpaceInterface<float> {
    hnswlib::InnerProductSpace ip;
    explicit CountingSpace(size_t dim) : ip(dim) { innerProduct = ip.get_dist_func(); }
    size_t get_data_size() override { return ip.get_data_size(); }
    hnswlib::DISTFUNC<float> get_dist_func() override { return countedInnerProduct; }
    void* get_dist_func_param() override { return ip.get_dist_func_param(); }
};

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: hnswlib_build BASE.fvecs THREADS [REPEAT | count]\n"); return 2; }
    int threads = atoi(argv[2]);
    bool count = argc > 3 && strcmp(argv[3], "count") == 0;
    int repeat = argc > 3 && !count ? atoi(argv[3]) : 1;
    FILE* f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    std::vector<float> data;
    int dim = 0;
    for (;;) {
        int d;
        if (fread(&d, 4, 1, f) != 1) break;
        if (dim == 0) dim = d;
        if (d != dim) { fprintf(stderr, "ragged fvecs\n"); return 1; }
        size_t at = data.size();
        data.resize(at + d);
        if (fread(&data[at], 4, d, f) != (size_t)d) { fprintf(stderr, "short fvecs\n"); return 1; }
    }
    fclose(f);
    int64_t n = dim ? (int64_t)(data.size() / dim) : 0;
    if (n < 2) { fprintf(stderr, "too few vectors\n"); return 1; }
#if defined(__AVX512F__)
    const char* simd = "avx512";
#elif defined(__AVX__)
    const char* simd = "avx";
#else
    const char* simd = "sse";
#endif
    if (count) {
        CountingSpace space(dim);
        hnswlib::HierarchicalNSW<float> alg(&space, n, 16, 200, 100);
        const float* p = data.data();
        alg.addPoint(p, 0);
        long long total = evaluations;
#pragma omp parallel num_threads(threads) reduction(+ : total)
        {
            evaluations = 0;
#pragma omp for schedule(dynamic, 64)
            for (int64_t i = 1; i < n; i++) alg.addPoint(p + i * dim, (size_t)i);
            total += evaluations;
        }
        printf("hnswlib build n=%lld dim=%d threads=%d: %.1f distance evaluations per vector\n", (long long)n, dim,
               threads, (double)total / n);
        return 0;
    }
    for (int r = 0; r < repeat; r++) {
        hnswlib::InnerProductSpace space(dim);
        hnswlib::HierarchicalNSW<float> alg(&space, n, 16, 200, 100);
        const float* p = data.data();
        auto t0 = std::chrono::steady_clock::now();
        alg.addPoint(p, 0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
        for (int64_t i = 1; i < n; i++) alg.addPoint(p + i * dim, (size_t)i);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("hnswlib build n=%lld dim=%d threads=%d simd=%s: %.3f s\n", (long long)n, dim, threads, simd, s);
        fflush(stdout);
    }
    return 0;
}
