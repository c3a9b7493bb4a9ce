/* The host's floating-point mode cannot change results (issue 16).
 *
 * A child process sets a mode (FTZ, DAZ or both) before it dlopens
 * libastral and calls astral_init, as a game engine may: the Go runtime's
 * threads inherit the mode of the thread that created them. It then runs
 * every kind, metric and storage on data with tiny and denormal values,
 * with the calling thread in each mode in turn, and prints one hash of the
 * ids, score bits and saved bytes per case. The parent runs the children
 * (the tainted load three times) and requires every hash to equal the one
 * of a clean load called in the default mode.
 *
 *   test_fpenv LIBASTRAL.so                 the check
 *   test_fpenv LIBASTRAL.so MXCSR MODES     one child: load under MXCSR, run
 *                                           the first MODES calling modes
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASTRAL_TYPES_ONLY
#include "astral.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

enum { DIM = 12, ROWS = 800, QUERIES = 40, K = 10 };
#define MODE_FTZ 0x8000u
#define MODE_DAZ 0x0040u
#define MODE_DEFAULT 0x1F80u

static struct {
    AstralStatus (*init)(const AstralInit *);
    AstralStatus (*shutdown)(void);
    AstralStatus (*create)(const AstralIndexOptions *, AstralIndex *);
    AstralStatus (*destroy)(AstralIndex);
    AstralStatus (*add)(AstralIndex, const uint64_t *, size_t, const float *, size_t);
    AstralStatus (*query)(AstralIndex, const float *, size_t, uint32_t, AstralResult *, size_t,
                          uint32_t *);
    AstralStatus (*query_batch)(AstralIndex, const float *, size_t, size_t, uint32_t,
                                AstralResult *, size_t, uint32_t *);
    AstralStatus (*save_to_buffer)(AstralIndex, void *, size_t, size_t *);
    size_t (*last_error)(char *, size_t);
} api;

static void *need(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (f == NULL) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return f;
}

static void load(const char *path) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(2);
    }
    /* A data pointer to a function pointer: POSIX allows it, ISO C does not. */
    *(void **)&api.init = need(lib, "astral_init");
    *(void **)&api.shutdown = need(lib, "astral_shutdown");
    *(void **)&api.create = need(lib, "astral_index_create");
    *(void **)&api.destroy = need(lib, "astral_index_destroy");
    *(void **)&api.add = need(lib, "astral_index_add");
    *(void **)&api.query = need(lib, "astral_index_query");
    *(void **)&api.query_batch = need(lib, "astral_index_query_batch");
    *(void **)&api.save_to_buffer = need(lib, "astral_index_save_to_buffer");
    *(void **)&api.last_error = need(lib, "astral_last_error");
}

static void ok(AstralStatus st, const char *what) {
    if (st != ASTRAL_OK) {
        char msg[512];
        api.last_error(msg, sizeof msg);
        fprintf(stderr, "%s: status %d: %s\n", what, (int)st, msg);
        exit(1);
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

/* rows of every magnitude a mode could change: ordinary, tiny (products
 * underflow), denormal, and a denormal component among ordinary ones. */
static void fill(float *v, size_t count, uint64_t seed) {
    static const double scale[] = {1, 1e-20, 1e-30, 1e-39, 1e-41};
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < DIM; j++) {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            double u = (double)((s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
            v[i * DIM + j] = (float)((2 * u - 1) * scale[i % 5]);
        }
        if (i % 7 == 3) {
            v[i * DIM + (size_t)(s % DIM)] = 1e-40f;
        }
    }
}

/* run_case adds, queries (one by one and as a batch) and saves; it returns a
 * hash of the ids, score bits and bytes. */
static uint64_t run_case(uint32_t kind, uint32_t metric, uint32_t storage, const float *rows,
                         const float *queries) {
    AstralIndexOptions o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.metric = metric;
    o.kind = kind;
    o.storage = storage;
    o.hnsw_m = 8;
    o.hnsw_ef_construction = 32;
    AstralIndex x;
    ok(api.create(&o, &x), "create");
    uint64_t ids[ROWS];
    for (size_t i = 0; i < ROWS; i++) {
        ids[i] = i + 1;
    }
    ok(api.add(x, ids, ROWS / 2, rows, ROWS / 2 * DIM), "add");
    ok(api.add(x, ids + ROWS / 2, ROWS - ROWS / 2, rows + ROWS / 2 * DIM,
               (ROWS - ROWS / 2) * DIM),
       "add");
    uint64_t h = 14695981039346656037ull;
    AstralResult res[QUERIES * K];
    uint32_t counts[QUERIES];
    for (size_t q = 0; q < QUERIES; q++) {
        uint32_t n = 0;
        ok(api.query(x, queries + q * DIM, DIM, K, res, K, &n), "query");
        for (uint32_t i = 0; i < n; i++) {
            h = fnv(h, &res[i].id, sizeof res[i].id);
            h = fnv(h, &res[i].score, sizeof res[i].score); /* the bits */
        }
    }
    ok(api.query_batch(x, queries, QUERIES, DIM, K, res, QUERIES * K, counts), "query_batch");
    for (size_t q = 0; q < QUERIES; q++) {
        for (uint32_t i = 0; i < counts[q]; i++) {
            h = fnv(h, &res[q * K + i].id, sizeof res[q * K + i].id);
            h = fnv(h, &res[q * K + i].score, sizeof res[q * K + i].score);
        }
    }
    size_t size = 0;
    if (api.save_to_buffer(x, NULL, 0, &size) != ASTRAL_E_BUFFER_TOO_SMALL) {
        fprintf(stderr, "save_to_buffer: no size\n");
        exit(1);
    }
    void *buf = malloc(size);
    ok(api.save_to_buffer(x, buf, size, &size), "save_to_buffer");
    h = fnv(h, buf, size);
    free(buf);
    ok(api.destroy(x), "destroy");
    return h;
}

#ifdef HAVE_MXCSR
static const unsigned call_modes[] = {0, MODE_FTZ, MODE_DAZ, MODE_FTZ | MODE_DAZ};

/* child loads the library under load_mode and prints a hash per case and
 * calling mode (the first modes of call_modes): "call_mode kind metric
 * storage hash". */
static int child(const char *path, unsigned load_mode, size_t modes) {
    static float rows[ROWS * DIM], queries[QUERIES * DIM];
    fill(rows, ROWS, 16);
    fill(queries, QUERIES, 17);
    _mm_setcsr(MODE_DEFAULT | load_mode);
    load(path);
    AstralInit init = {sizeof init, 2, 0, 0, NULL, 0}; /* two workers: pool parts run on them */
    ok(api.init(&init), "init");
    _mm_setcsr(MODE_DEFAULT);
    for (size_t m = 0; m < modes && m < sizeof call_modes / sizeof call_modes[0]; m++) {
        for (uint32_t kind = ASTRAL_KIND_FLAT; kind <= ASTRAL_KIND_HNSW; kind++) {
            for (uint32_t metric = ASTRAL_METRIC_COSINE; metric <= ASTRAL_METRIC_L2; metric++) {
                for (uint32_t st = ASTRAL_STORAGE_E5M2; st <= ASTRAL_STORAGE_F32; st++) {
                    _mm_setcsr(MODE_DEFAULT | call_modes[m]);
                    uint64_t h = run_case(kind, metric, st, rows, queries);
                    unsigned after = _mm_getcsr() & (MODE_FTZ | MODE_DAZ);
                    _mm_setcsr(MODE_DEFAULT);
                    if (after != call_modes[m]) {
                        fprintf(stderr, "the library left MXCSR mode %#x, the host's was %#x\n",
                                after, call_modes[m]);
                        return 1;
                    }
                    printf("%x %u %u %u %016" PRIx64 "\n", call_modes[m], kind, metric, st, h);
                }
            }
        }
    }
    ok(api.shutdown(), "shutdown");
    return 0;
}

enum { CASES = 4 * 2 * 3 * 5, LINE = 128 };

/* run_child runs "self path load_mode modes" and reads its lines into out. */
static int run_child(const char *self, const char *path, unsigned load_mode, size_t modes,
                     char out[CASES][LINE]) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s' %u %zu", self, path, load_mode, modes);
    FILE *p = popen(cmd, "r");
    if (p == NULL) {
        perror("popen");
        return 1;
    }
    size_t n = 0;
    char line[LINE];
    while (fgets(line, sizeof line, p) != NULL) {
        if (n < CASES) {
            memcpy(out[n], line, LINE);
        }
        n++;
    }
    int rc = pclose(p);
    if (rc != 0 || n != modes * (CASES / 4)) {
        fprintf(stderr, "child with load mode %#x: exit %d, %zu lines, want %zu\n", load_mode,
                rc, n, modes * (CASES / 4));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4) {
        return child(argv[1], (unsigned)strtoul(argv[2], NULL, 10),
                     (size_t)strtoul(argv[3], NULL, 10));
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBASTRAL.so [MXCSR MODES]\n", argv[0]);
        return 2;
    }
    static char want[CASES][LINE], got[CASES][LINE];
    static const struct {
        unsigned mode;
        size_t calls;
    } loads[] = {{MODE_FTZ | MODE_DAZ, 1}, {MODE_FTZ | MODE_DAZ, 1}, {MODE_FTZ | MODE_DAZ, 1},
                 {MODE_FTZ, 1},           {MODE_DAZ, 1},           {0, 1}};
#ifdef ASTRAL_GO_ASAN
    /* The -asan library runs each case about 40 times slower. The plain
     * build proves every mode; here a clean load called in the default mode
     * and one FTZ|DAZ load run every case, so each goes through the
     * sanitized library and is still compared: the rest repeats that code. */
    const size_t clean_modes = 1, nloads = 1;
#else
    const size_t clean_modes = 4, nloads = sizeof loads / sizeof loads[0];
#endif
    /* A clean load, called in every mode: every mode's hashes equal the
     * default mode's. */
    if (run_child(argv[0], argv[1], 0, clean_modes, want) != 0) {
        return 1;
    }
    /* Tainted loads (FTZ|DAZ three times, FTZ, DAZ) and a clean one again,
     * called in the default mode: the same hashes. */
    int failures = 0, checks = 0;
    for (size_t i = 0; i < clean_modes * (CASES / 4); i++) {
        unsigned mode, kind, metric, st;
        char hash[32];
        if (sscanf(want[i], "%x %u %u %u %31s", &mode, &kind, &metric, &st, hash) != 5) {
            fprintf(stderr, "bad line: %s", want[i]);
            return 1;
        }
        /* Lines are in the same case order for every call mode. */
        const char *ref = strrchr(want[i % (CASES / 4)], ' ');
        checks++;
        if (strcmp(strrchr(want[i], ' '), ref) != 0) {
            fprintf(stderr, "clean load, call mode %#x, kind %u metric %u storage %u: %s != %s",
                    mode, kind, metric, st, hash, ref + 1);
            failures++;
        }
    }
    for (size_t l = 0; l < nloads; l++) {
        if (run_child(argv[0], argv[1], loads[l].mode, loads[l].calls, got) != 0) {
            return 1;
        }
        for (size_t i = 0; i < loads[l].calls * (CASES / 4); i++) {
            checks++;
            if (strcmp(got[i], want[i]) != 0) {
                fprintf(stderr, "load mode %#x, run %zu: %.*s != clean %s", loads[l].mode, l,
                        (int)strcspn(got[i], "\n"), got[i], want[i]);
                failures++;
            }
        }
    }
    if (failures != 0) {
        fprintf(stderr, "test_fpenv: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_fpenv: all %d checks passed (%d cases; %zu loads, clean and tainted)\n", checks,
           CASES / 4, nloads + 1);
    return 0;
}
#else
int main(void) {
    printf("test_fpenv: skipped: no MXCSR on this architecture\n");
    return 77;
}
#endif
