/* A tiny check harness for the C tests: no framework, C99. */
#ifndef ASTRAL_TEST_CHECK_H
#define ASTRAL_TEST_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASTRAL_EXPERIMENTAL
#include "astral.h"

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        check_count++;                                                                 \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);   \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

/* CHECK_OK(call): call returns ASTRAL_OK. */
#define CHECK_OK(call) check_status(__FILE__, __LINE__, #call, ASTRAL_OK, (call), NULL)

/* CHECK_FAIL(want, call, why): call returns want, and the calling thread's
 * last error names the function that failed and contains why. */
#define CHECK_FAIL(want, call, why) check_status(__FILE__, __LINE__, #call, (want), (call), (why))

static void check_status(const char *file, int line, const char *expr, AstralStatus want,
                         AstralStatus got, const char *why) {
    char msg[1024];
    check_count++;
    astral_last_error(msg, sizeof msg);
    if (got != want) {
        fprintf(stderr, "%s:%d: %s = %d (%s), want %d (%s); last error: %s\n", file, line, expr,
                (int)got, astral_status_string(got), (int)want, astral_status_string(want), msg);
        check_failures++;
        return;
    }
    if (want == ASTRAL_OK) {
        return;
    }
    /* The message must name the call: "astral_index_query: ...". */
    const char *paren = strchr(expr, '(');
    size_t name_len = paren != NULL ? (size_t)(paren - expr) : 0;
    if (name_len == 0 || strncmp(msg, expr, name_len) != 0 || msg[name_len] != ':') {
        fprintf(stderr, "%s:%d: %s: last error \"%s\" does not name the call\n", file, line,
                expr, msg);
        check_failures++;
    }
    if (why != NULL && strstr(msg, why) == NULL) {
        fprintf(stderr, "%s:%d: %s: last error \"%s\" lacks \"%s\"\n", file, line, expr, msg, why);
        check_failures++;
    }
}

static int check_report(const char *suite) {
    if (check_failures != 0) {
        fprintf(stderr, "%s: %d of %d checks FAILED\n", suite, check_failures, check_count);
        return 1;
    }
    printf("%s: all %d checks passed\n", suite, check_count);
    return 0;
}

/* Deterministic test vectors: xorshift64* mapped to [-1, 1). */
static inline float test_random(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (float)((double)((x * 2685821657736338717ull) >> 11) / 4503599627370496.0 - 1.0);
}

static inline void test_fill(float *v, size_t n, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = test_random(&s);
    }
}

/* Results are best first: by score (descending; ascending for L2), then id. */
static inline int results_ordered(const AstralResult *r, uint32_t n, int lower_is_better) {
    for (uint32_t i = 1; i < n; i++) {
        float a = r[i - 1].score, b = r[i].score;
        int worse = lower_is_better ? a > b : a < b;
        if (worse || (a == b && r[i - 1].id >= r[i].id)) {
            return 0;
        }
    }
    return 1;
}

#endif
