/* 8 C threads query one index while another adds and removes, and another
 * reads its count and stats: no crash, every result well formed. Each
 * thread also checks that its last-error message is its own. Then many
 * short-lived threads each fail a call and exit: each starts with an
 * empty message, and under LeakSanitizer a buffer not freed at thread
 * exit is a leak. POSIX threads, C11 atomics. */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

enum {
    DIM = 64,
    BASE = 5000,        /* ids 0 .. BASE-1, never removed */
    K = 10,
    QUERIERS = 8,
    QUERIES = 300,      /* per querying thread */
    BATCH_ADD = 32,     /* the mutator adds this many, then removes half */
    MUTATED_FIRST = 1000000
};

static AstralIndex index_handle;
static atomic_int stop_mutator;

typedef struct {
    int id;
    int failures;
    char problem[256];
} Worker;

static void report(Worker *w, const char *what, uint32_t i) {
    if (w->failures++ == 0) {
        snprintf(w->problem, sizeof w->problem, "%s at query %u", what, (unsigned)i);
    }
}

static void *querier(void *arg) {
    Worker *w = arg;
    uint64_t seed = 0x1234 + (uint64_t)w->id * 7919;
    float q[DIM];
    AstralResult r[K];
    AstralResult batch[2 * K];
    uint32_t n, counts[2];
    char msg[256];
    for (uint32_t i = 0; i < QUERIES; i++) {
        for (int j = 0; j < DIM; j++) {
            q[j] = test_random(&seed);
        }
        if (astral_index_query(index_handle, q, DIM, K, r, K, &n) != ASTRAL_OK) {
            report(w, "query failed", i);
            continue;
        }
        /* BASE vectors are always there, so every query fills k. */
        if (n != K) {
            report(w, "short result", i);
        }
        if (!results_ordered(r, n, 0)) {
            report(w, "results out of order", i);
        }
        for (uint32_t j = 0; j < n; j++) {
            if (!(r[j].id < BASE || r[j].id >= MUTATED_FIRST) || !(r[j].score >= -1.01f && r[j].score <= 1.01f)) {
                report(w, "result never stored or score out of range", i);
            }
            for (uint32_t m = 0; m < j; m++) {
                if (r[m].id == r[j].id) {
                    report(w, "id repeated", i);
                }
            }
        }
        if (i % 16 == 0) {
            float two[2 * DIM];
            memcpy(two, q, sizeof q);
            memcpy(two + DIM, q, sizeof q);
            if (astral_index_query_batch(index_handle, two, 2, DIM, K, batch, 2 * K, counts) != ASTRAL_OK ||
                counts[0] != K || counts[1] != K || memcmp(batch, batch + K, K * sizeof r[0]) != 0) {
                report(w, "batch of one query twice differs", i);
            }
        }
        /* A failure of this thread's own, read back while the others fail
         * and succeed: the message is per thread. */
        if (i % 32 == 0) {
            char want[64];
            if (astral_index_query(index_handle, q, (size_t)(w->id + 100), K, r, K, &n) != ASTRAL_E_DIMENSION) {
                report(w, "wrong dimension accepted", i);
            }
            astral_last_error(msg, sizeof msg);
            snprintf(want, sizeof want, "query has %d values", w->id + 100);
            if (strstr(msg, want) == NULL) {
                report(w, "another thread's last error", i);
            }
        }
    }
    return NULL;
}

static void *mutator(void *arg) {
    Worker *w = arg;
    uint64_t seed = 99;
    static float v[BATCH_ADD * DIM];
    uint64_t ids[BATCH_ADD];
    uint64_t next = MUTATED_FIRST;
    uint32_t round = 0;
    while (!stop_mutator) {
        for (int i = 0; i < BATCH_ADD; i++) {
            ids[i] = next + (uint64_t)i;
        }
        for (int i = 0; i < BATCH_ADD * DIM; i++) {
            v[i] = test_random(&seed);
        }
        if (astral_index_add(index_handle, ids, BATCH_ADD, v, BATCH_ADD * DIM) != ASTRAL_OK) {
            report(w, "add failed", round);
        }
        /* Remove every other id of the batch. */
        for (int i = 0; i < BATCH_ADD / 2; i++) {
            ids[i] = next + 2 * (uint64_t)i;
        }
        if (astral_index_remove(index_handle, ids, BATCH_ADD / 2) != ASTRAL_OK) {
            report(w, "remove failed", round);
        }
        next += BATCH_ADD;
        round++;
    }
    w->id = (int)round;
    return NULL;
}

static void *observer(void *arg) {
    Worker *w = arg;
    AstralStats s;
    while (!stop_mutator) {
        uint64_t count = 0;
        if (astral_index_count(index_handle, &count) != ASTRAL_OK || count < BASE) {
            report(w, "count failed or below the base", 0);
        }
        s.struct_size = sizeof s;
        if (astral_index_stats(index_handle, &s) != ASTRAL_OK || s.count < BASE || s.dimension != DIM) {
            report(w, "stats failed", 0);
        }
    }
    return NULL;
}

enum { SHORT_LIVED = 64 };

/* A fresh thread has no message; its own failure is then its message,
 * whose buffer the library must free when the thread exits. */
static void *short_lived(void *arg) {
    Worker *w = arg;
    char msg[256];
    char want[64];
    float q[DIM] = {0};
    AstralResult r[K];
    uint32_t n;
    if (astral_last_error(msg, sizeof msg) != 0 || msg[0] != '\0') {
        report(w, "a new thread has a message", 0);
    }
    if (astral_index_query(index_handle, q, (size_t)(w->id + 100), K, r, K, &n) != ASTRAL_E_DIMENSION) {
        report(w, "wrong dimension accepted", 0);
    }
    snprintf(want, sizeof want, "query has %d values", w->id + 100);
    if (astral_last_error(msg, sizeof msg) == 0 || strstr(msg, want) == NULL) {
        report(w, "its own failure is not its message", 0);
    }
    return NULL;
}

int main(void) {
    AstralIndexOptions o = {0};
    static float base[BASE * DIM];
    static uint64_t ids[BASE];
    pthread_t q[QUERIERS], m, obs;
    Worker qw[QUERIERS], mw = {0, 0, {0}}, ow = {0, 0, {0}};
    uint64_t count = 0;

    CHECK_OK(astral_init(NULL));
    o.struct_size = sizeof o;
    o.dimension = DIM;
    CHECK_OK(astral_index_create(&o, &index_handle));
    test_fill(base, BASE * DIM, 3);
    for (int i = 0; i < BASE; i++) {
        ids[i] = (uint64_t)i;
    }
    CHECK_OK(astral_index_add(index_handle, ids, BASE, base, BASE * DIM));

    CHECK(pthread_create(&m, NULL, mutator, &mw) == 0);
    CHECK(pthread_create(&obs, NULL, observer, &ow) == 0);
    for (int i = 0; i < QUERIERS; i++) {
        qw[i].id = i;
        qw[i].failures = 0;
        qw[i].problem[0] = '\0';
        CHECK(pthread_create(&q[i], NULL, querier, &qw[i]) == 0);
    }
    for (int i = 0; i < QUERIERS; i++) {
        CHECK(pthread_join(q[i], NULL) == 0);
        if (qw[i].failures != 0) {
            fprintf(stderr, "querier %d: %d failures, first: %s\n", i, qw[i].failures, qw[i].problem);
        }
        CHECK(qw[i].failures == 0);
    }
    stop_mutator = 1;
    CHECK(pthread_join(m, NULL) == 0);
    CHECK(pthread_join(obs, NULL) == 0);
    if (mw.failures != 0 || ow.failures != 0) {
        fprintf(stderr, "mutator: %s; observer: %s\n", mw.problem, ow.problem);
    }
    CHECK(mw.failures == 0 && ow.failures == 0);
    CHECK(mw.id > 0); /* the mutator ran rounds during the queries */

    CHECK_OK(astral_index_count(index_handle, &count));
    CHECK(count == BASE + (uint64_t)mw.id * (BATCH_ADD / 2));
    printf("%d threads x %d queries while %d add/remove rounds ran\n", QUERIERS, QUERIES, mw.id);

    for (int i = 0; i < SHORT_LIVED; i += QUERIERS) {
        for (int j = 0; j < QUERIERS; j++) {
            qw[j].id = i + j;
            qw[j].failures = 0;
            qw[j].problem[0] = '\0';
            CHECK(pthread_create(&q[j], NULL, short_lived, &qw[j]) == 0);
        }
        for (int j = 0; j < QUERIERS; j++) {
            CHECK(pthread_join(q[j], NULL) == 0);
            if (qw[j].failures != 0) {
                fprintf(stderr, "short-lived thread %d: %s\n", qw[j].id, qw[j].problem);
            }
            CHECK(qw[j].failures == 0);
        }
    }
    printf("%d short-lived threads each failed one call and exited\n", SHORT_LIVED);
    CHECK_OK(astral_index_destroy(index_handle));
    CHECK_OK(astral_shutdown());
    return check_report("test_threads");
}
