/*
 * astral.h: the C ABI of Astral, vector memory for games.
 *
 * Plain C99; usable from C++. Every call returns an AstralStatus (or a value
 * that cannot fail); ASTRAL_OK is 0. On failure astral_last_error() gives the
 * calling thread's message. Memory never crosses the boundary: results go
 * into arrays the caller provides and nothing returned needs to be freed.
 *
 * Checking header against library: a host built with this header should
 * refuse a library for which ASTRAL_VERSION_COMPATIBLE(astral_version_number())
 * is false (another major version, or a library older than the header).
 *
 * ABI rules: a function never changes once released (a new shape gets a
 * _v2 name); option structs grow only at the end and carry struct_size;
 * status codes are numbered once and never reused.
 *
 * struct_size: set it to sizeof the struct from the header the host was
 * built with. The library reads and writes at most the size it knows
 * itself, whatever struct_size says (up to 4096; larger is refused). A
 * struct from an older header (smaller) reads as zero, each field's
 * default, in the fields it lacks, and an output struct gets only the
 * bytes it has. A struct from a newer header (larger): the input fields
 * this library lacks are ignored, and an output struct's tail past this
 * library's size is left as the host had it (check
 * astral_version_number() before relying on a newer field).
 *
 * One library per process, never unloaded (the Go runtime inside cannot be).
 * On Windows load astral.dll at run time through a table of function
 * pointers typed from this header.
 *
 * Signals (Linux, macOS): the Go runtime inside installs handlers for
 * SIGSEGV, SIGBUS, SIGFPE and SIGPIPE when the library loads (keeping the
 * host's earlier handlers, which it calls for signals raised outside the
 * library). Any handler the host installs afterwards (a crash reporter)
 * must use SA_ONSTACK, since the library's threads run on small stacks,
 * and for SIGSEGV, SIGBUS and SIGFPE must call the handler it replaced
 * (sigaction's old action) for a fault it did not cause itself; otherwise
 * a fault inside the library is reported as the host's own crash instead
 * of being handled by the runtime.
 *
 * fork(): the runtime's threads do not exist in a child process. A child
 * must not call the library (not even astral_shutdown); it may exec.
 */
#ifndef ASTRAL_H
#define ASTRAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ASTRAL_API marks the exported functions. Define ASTRAL_STATIC when linking
 * the static archive on Windows, so no dllimport is applied. */
#ifndef ASTRAL_API
#  if defined(_WIN32) || defined(__CYGWIN__)
#    if defined(ASTRAL_BUILD)
#      define ASTRAL_API __declspec(dllexport)
#    elif defined(ASTRAL_STATIC)
#      define ASTRAL_API
#    else
#      define ASTRAL_API __declspec(dllimport)
#    endif
#  elif defined(__GNUC__) && __GNUC__ >= 4
#    define ASTRAL_API __attribute__((visibility("default")))
#  else
#    define ASTRAL_API
#  endif
#endif

/* ---- Version ---------------------------------------------------------- */

#define ASTRAL_VERSION_MAJOR 0
#define ASTRAL_VERSION_MINOR 2
#define ASTRAL_VERSION_PATCH 0
#define ASTRAL_VERSION_NUMBER \
    (ASTRAL_VERSION_MAJOR * 1000000 + ASTRAL_VERSION_MINOR * 1000 + ASTRAL_VERSION_PATCH)
#define ASTRAL_VERSION_STRING "0.2.0"

/* True when a library reporting version number n serves this header: same
 * major version and at least as new. */
#define ASTRAL_VERSION_COMPATIBLE(n) \
    ((uint32_t)(n) / 1000000u == (uint32_t)ASTRAL_VERSION_MAJOR && \
     (uint32_t)(n) >= (uint32_t)ASTRAL_VERSION_NUMBER)

/* ---- Status codes ------------------------------------------------------ */

typedef int32_t AstralStatus;

/* Numbered once, never reused. */
enum {
    ASTRAL_OK = 0,
    ASTRAL_E_INVALID_ARGUMENT = 1,  /* NULL pointer, value out of range, misuse */
    ASTRAL_E_DIMENSION = 2,         /* vector length differs from the index dimension */
    ASTRAL_E_NON_FINITE = 3,        /* a NaN or infinity in a vector or query */
    ASTRAL_E_DUPLICATE_ID = 4,      /* id already stored, or repeated in one call */
    ASTRAL_E_NOT_FOUND = 5,         /* id not stored */
    ASTRAL_E_STALE_HANDLE = 6,      /* handle destroyed, from before a shutdown, or never issued */
    ASTRAL_E_NOT_INITIALIZED = 7,   /* astral_init has not succeeded, or astral_shutdown ran */
    ASTRAL_E_BUFFER_TOO_SMALL = 8,  /* a caller's output array is too short */
    ASTRAL_E_OUT_OF_MEMORY = 9,     /* a size too large to allocate */
    ASTRAL_E_IO = 10,               /* a file could not be opened, read, written, synced or renamed,
                                     * or a mapped file faulted (truncated under the index): the
                                     * index then answers every call but destroy with it */
    ASTRAL_E_CORRUPT = 11,          /* saved index data damaged, truncated or forged */
    ASTRAL_E_INTERNAL = 12,         /* a bug in Astral; the message says where */
    ASTRAL_E_VERSION_MISMATCH = 13, /* saved index data of another format version or byte order */
    ASTRAL_E_UNSUPPORTED = 14       /* valid request this build cannot serve */
};

/* ---- Types ------------------------------------------------------------- */

/* An index handle: a generation-checked number, never a pointer. 0 is never
 * a valid handle. A destroyed or forged handle gives ASTRAL_E_STALE_HANDLE. */
typedef uint64_t AstralIndex;
#define ASTRAL_INDEX_NONE ((AstralIndex)0)

/* AstralInit.thread_count: usable CPUs - 1, where usable respects the
 * affinity mask and the cgroup CPU quota. */
#define ASTRAL_THREADS_AUTO (-1)
/* Largest AstralInit.thread_count. */
#define ASTRAL_MAX_THREADS 256

/* AstralInit.flags: pin each worker's OS thread to one CPU (Linux only;
 * elsewhere astral_init fails with ASTRAL_E_INVALID_ARGUMENT). */
#define ASTRAL_INIT_PIN_THREADS 0x1u

typedef struct AstralInit {
    uint32_t struct_size;  /* sizeof(AstralInit) */
    /* Runtime workers, NOT counting the calling thread, which always scans
     * a share of its own query. 0 = serial (no workers);
     * ASTRAL_THREADS_AUTO = the default. On 4 spare cores use 3. */
    int32_t thread_count;
    uint32_t flags;        /* ASTRAL_INIT_* */
    uint32_t cpu_count;    /* entries in cpus; 0 = every usable CPU */
    /* CPUs to pin worker i to (cpus[i % cpu_count]); only with
     * ASTRAL_INIT_PIN_THREADS. Read during astral_init only. */
    const int32_t *cpus;
    /* Appended to the first layout (struct_size 24, still accepted: it
     * reads as 0). The most threads running the library's Go code at once
     * (the Go runtime's GOMAXPROCS), which also bounds its garbage
     * collector's workers: at least the workers + 1 (the caller), or
     * astral_init fails with ASTRAL_E_INVALID_ARGUMENT. Never raised above
     * the setting the library loaded with (the GOMAXPROCS environment
     * variable when the process had it, else every usable CPU). 0 = that
     * setting. Applies from astral_init until the next one. */
    uint32_t max_procs;
} AstralInit;

/* Defaults: ASTRAL_THREADS_AUTO workers, no pinning, GOMAXPROCS as loaded.
 * Passing NULL to astral_init means the same. */
#define ASTRAL_INIT_DEFAULTS { (uint32_t)sizeof(AstralInit), ASTRAL_THREADS_AUTO, 0u, 0u, NULL, 0u }

/* Metrics. 0 selects the default, cosine. */
#define ASTRAL_METRIC_DEFAULT 0u
#define ASTRAL_METRIC_COSINE 1u /* score: cosine similarity, higher is closer */
#define ASTRAL_METRIC_DOT 2u    /* score: inner product, higher is closer */
#define ASTRAL_METRIC_L2 3u     /* score: squared Euclidean distance, lower is closer */

/* Index kinds. */
#define ASTRAL_KIND_AUTO 0u /* flat while records take <= flat_limit_bytes, HNSW above,
                             * IVF past ivf_limit_records records */
#define ASTRAL_KIND_FLAT 1u /* exact scan of every record */
#define ASTRAL_KIND_HNSW 2u /* graph search: approximate, for indexes too large to scan in a frame */
#define ASTRAL_KIND_IVF 3u  /* k-means partitions, ivf_nprobe scanned per query: approximate, for
                             * stores past HNSW's build time or memory. Saved and loaded
                             * as the others; not yet ranked nor budgeted (query_within):
                             * those return ASTRAL_E_UNSUPPORTED. */

/* Stored component kinds. 0 selects the default, E5M2.
 * Which to pick: E5M2 (the default) is one byte per component, no scale;
 * INT8 is also one byte per component (plus a 4-byte scale per vector) at
 * near-F16 recall, the best one-byte kind; F16 and F32 when memory allows
 * (F32 is exact). A rerank copy (AstralIndexOptions.rerank_storage F16 or
 * F32, factor 4) over a one-byte kind recovers the exact ranking of that
 * copy for 2 or 4 more bytes per component. */
#define ASTRAL_STORAGE_DEFAULT 0u
#define ASTRAL_STORAGE_E5M2 1u /* 8-bit float: 1 sign, 5 exponent, 2 mantissa bits */
#define ASTRAL_STORAGE_E4M3 2u /* 8-bit float (OCP E4M3FN) with a per-vector scale */
#define ASTRAL_STORAGE_INT8 3u /* signed byte with a per-vector scale; exact integer scoring */
#define ASTRAL_STORAGE_F16 4u  /* IEEE binary16 */
#define ASTRAL_STORAGE_F32 5u  /* float: exact */

/* AstralIndexOptions.rerank_factor: 0 selects this default; at most the max. */
#define ASTRAL_DEFAULT_RERANK_FACTOR 4u
#define ASTRAL_MAX_RERANK_FACTOR 64u

#define ASTRAL_MAX_DIMENSION 4096
/* The longest vector or query the dot and L2 metrics take, 2^62: then every
 * score stays finite in float. Cosine takes any finite vector. */
#define ASTRAL_MAX_NORM 4611686018427387904.0
#define ASTRAL_MAX_K 1024
/* Queries sharing one pass over the records in astral_index_query_batch. */
#define ASTRAL_MAX_BATCH 16
#define ASTRAL_DEFAULT_FLAT_LIMIT_BYTES ((uint64_t)16 << 20)
/* AstralIndexOptions.ivf_limit_records: 0 selects this default (docs/IVF.md);
 * ASTRAL_IVF_LIMIT_NEVER (any negative value) keeps an auto index off IVF. */
#define ASTRAL_DEFAULT_IVF_LIMIT_RECORDS ((int64_t)500000)
#define ASTRAL_IVF_LIMIT_NEVER ((int64_t)-1)

typedef struct AstralIndexOptions {
    uint32_t struct_size;      /* sizeof(AstralIndexOptions) */
    uint32_t dimension;        /* 1 to ASTRAL_MAX_DIMENSION; required */
    uint32_t metric;           /* ASTRAL_METRIC_* */
    uint32_t kind;             /* ASTRAL_KIND_* */
    uint32_t storage;          /* ASTRAL_STORAGE_* */
    /* HNSW parameters, validated for every kind (an auto index may switch
     * to HNSW). 0 = the library default (currently m 16,
     * ef_construction 200, ef_search 128). */
    uint32_t hnsw_m;               /* links per node on upper levels (2 * m on level 0): 2 to 128 */
    uint64_t flat_limit_bytes;     /* where ASTRAL_KIND_AUTO leaves flat; 0 = 16 MiB */
    uint32_t hnsw_ef_construction; /* build beam width: m to 4096 */
    uint32_t hnsw_ef_search;       /* query beam width: 1 to 4096 (at least k is used) */
    /* Appended to the first layout: a host built with that one (struct_size
     * 40) gets no rerank. With a rerank copy a query keeps k * rerank_factor
     * candidates (at most ASTRAL_MAX_K) from the compact records and
     * returns the k best by their scores against the copy. */
    uint32_t rerank_storage; /* 0: none; ASTRAL_STORAGE_F16 or _F32: keep a second copy and rescore */
    uint32_t rerank_factor;  /* candidates per result rescored: 1 to 64; 0 = 4 */
    /* Appended: ASTRAL_KIND_IVF and ASTRAL_KIND_AUTO (ignored otherwise); a
     * host built with an older layout (struct_size 48) gets the defaults.
     * An IVF index scans exactly until it holds max(39 * ivf_nlist, 4096)
     * records, then trains on them once. An auto index that grows into IVF
     * trains on all its records; for it 0 derives ivf_nlist from the record
     * count (the power of two nearest its square root, 256 to 1048576, at
     * most a 39th of the records) and ivf_nprobe from ivf_nlist. */
    uint32_t ivf_nlist;  /* partitions: 1 to 1048576; 0 = 1024 (auto: derived) */
    uint32_t ivf_nprobe; /* partitions scanned per query: 1 to ivf_nlist; 0 = 3/64 of ivf_nlist */
    uint64_t ivf_seed;   /* training sample and first centroids */
    /* Appended to the fourth layout (struct_size 64, still accepted: the
     * default). The record count past which ASTRAL_KIND_AUTO switches to
     * IVF in the background; not saved in index files (a loaded index
     * uses the default). */
    int64_t ivf_limit_records; /* 0 = ASTRAL_DEFAULT_IVF_LIMIT_RECORDS; negative = never */
} AstralIndexOptions;

/* One hit: the id given to astral_index_add and its score. */
typedef struct AstralResult {
    uint64_t id;
    float score;
} AstralResult;

#define ASTRAL_KERNEL_NAME_SIZE 32

typedef struct AstralStats {
    uint32_t struct_size;      /* in: sizeof(AstralStats); never written */
    uint32_t dimension;
    uint64_t count;            /* stored vectors */
    uint32_t metric;           /* ASTRAL_METRIC_*, never DEFAULT */
    uint32_t kind;             /* structure in use: ASTRAL_KIND_FLAT, _HNSW or _IVF, never AUTO */
    uint32_t storage;          /* ASTRAL_STORAGE_*, never DEFAULT */
    uint32_t thread_count;     /* runtime workers serving queries (caller not counted) */
    uint64_t bytes;            /* memory held by records, ids and per-record data */
    double bytes_per_vector;   /* what one more vector costs: record, scale, id, rerank copy */
    char kernel[ASTRAL_KERNEL_NAME_SIZE]; /* scan kernel, NUL-terminated, e.g. "avx2/fixed384" */
    /* Appended to the first layout (struct_size 80, which is still
     * accepted and gets these two left out). */
    uint32_t rerank_storage;   /* 0: none; ASTRAL_STORAGE_F16 or _F32 */
    uint32_t rerank_factor;    /* candidates per result rescored; 0 without rerank */
    /* Appended to the second layout (struct_size 88, still accepted and
     * written up to there). Offsets are multiples of 8: no padding. */
    uint64_t payload_count;    /* records holding a payload */
    uint64_t payload_bytes;    /* their bytes (not in bytes) */
    uint64_t owner_count;      /* distinct owners (not 0) among the records */
    /* Queries answered by each plan (ASTRAL_PLAN_*) since the index was
     * made or loaded; a batch counts once per ASTRAL_MAX_BATCH queries. */
    uint64_t scan_queries;
    uint64_t direct_queries;
    uint64_t graph_queries;
    /* Appended to the third layout (struct_size 136, still accepted and
     * written up to there). */
    uint64_t tag_name_count;   /* tag bits with a name (astral_index_set_tag_name) */
    /* Appended to the fourth layout (struct_size 144, still accepted and
     * written up to there): an IVF index's partitions; all 0 for other
     * kinds and for an IVF index below its training size. */
    uint32_t ivf_partitions;        /* partitions now (splits add some) */
    uint32_t ivf_dirty_partitions;  /* partitions changed since the last save */
    uint64_t ivf_largest_partition; /* live records in the largest partition */
    double ivf_largest_share;       /* its share of the live records, 0 to 1 */
} AstralStats;

/* ---- Scoped search -----------------------------------------------------
 * Each record may carry attributes beside its vector: a 64-bit tag mask
 * (64 tags the host defines), an owner key (0 = none; e.g. the character
 * holding a memory) and a payload of up to ASTRAL_MAX_PAYLOAD bytes (a
 * memory's text, a host key), returned by id and never searched. They are
 * saved with the index. A query's AstralQueryOptions filter keeps only the
 * records that pass all of its conditions. */

#define ASTRAL_MAX_PAYLOAD 4096
/* Tag bits a record's mask holds, and the longest tag name in bytes. */
#define ASTRAL_TAG_BITS 64
#define ASTRAL_MAX_TAG_NAME 64
/* Most ids in one allowlist or denylist (2^28, 2 GiB of ids). */
#define ASTRAL_MAX_FILTER_IDS ((uint64_t)1 << 28)

/* How a query was answered (out_plan of astral_index_query_ex). */
#define ASTRAL_PLAN_SCAN 0u   /* every matching record scored (flat scan; HNSW exact scan for a rare tag) */
#define ASTRAL_PLAN_DIRECT 1u /* a small candidate set (allowlist, owner) scored directly: exact */
#define ASTRAL_PLAN_GRAPH 2u  /* HNSW walk admitting only matches */

/* A query's k, HNSW beam and filter. The filter's conditions combine with
 * AND; a zeroed filter (every field after reserved 0 or NULL) matches
 * every record. Filter values that match nothing (an owner, tag or id no
 * record has) are no error: the query returns 0 results, as the Go API
 * does. The id arrays are read during the call only; their order and
 * repeats do not matter. */
typedef struct AstralQueryOptions {
    uint32_t struct_size; /* sizeof(AstralQueryOptions) */
    uint32_t k;           /* 1 to ASTRAL_MAX_K */
    uint32_t ef;          /* HNSW beam, up to 4096; 0 = the index's hnsw_ef_search (at least k is used) */
    uint32_t reserved;    /* must be 0 */
    uint64_t owner;       /* only records of this owner; 0: any owner */
    uint64_t all_tags;    /* only records holding every one of these tags */
    uint64_t any_tags;    /* only records holding at least one of these; 0: no condition */
    uint64_t no_tags;     /* only records holding none of these */
    /* Allowlist: NULL with allow_count 0 is no allowlist; non-NULL: only
     * these ids (allow_count 0 then matches nothing). */
    const uint64_t *allow_ids;
    uint64_t allow_count; /* at most ASTRAL_MAX_FILTER_IDS */
    /* Denylist: never these ids (e.g. the asking character's own); may be
     * NULL when deny_count is 0. */
    const uint64_t *deny_ids;
    uint64_t deny_count; /* at most ASTRAL_MAX_FILTER_IDS */
    /* Appended to the first layout (struct_size 80, still accepted: no
     * ranking). */
    /* Memory ranking (on when rank_recency or rank_importance is not 0):
     * score = rank_relevance*similarity + rank_recency*rank_decay^(rank_now - time)
     *         + rank_importance*importance. */
    float rank_relevance;
    float rank_recency;
    float rank_importance;
    uint32_t reserved2;   /* must be 0 */
    double rank_decay;    /* per time unit, (0, 1]; read when rank_recency != 0 */
    int64_t rank_now;     /* the host's current time, in its units */
    /* Appended to the second layout (struct_size 112, still accepted: the
     * index's ivf_nprobe). */
    uint32_t nprobe;      /* IVF partitions scanned, up to 1048576 (more than the
                             index has: all, exact); 0 = the index's ivf_nprobe;
                             other kinds ignore it */
    uint32_t reserved3;   /* must be 0 */
} AstralQueryOptions;

/* k results, every other field at its default: no filter, no ranking. */
#define ASTRAL_QUERY_OPTIONS_INIT(k) \
    { (uint32_t)sizeof(AstralQueryOptions), (uint32_t)(k), 0u, 0u, 0u, 0u, 0u, 0u, NULL, 0u, NULL, 0u, \
      0.0f, 0.0f, 0.0f, 0u, 0.0, 0, 0u, 0u }

/* Flags for astral_index_load_ex. */
#define ASTRAL_LOAD_VERIFY_IN_BACKGROUND 0x1u /* the bulk's checks in the background */

/* ---- Frame budgets -------------------------------------------------------
 * A budgeted query returns by its budget with the best results found so
 * far and reports how much of the search it did. A budget generous enough
 * gives exactly astral_index_query_ex's results (ids, score bits, order). */

/* What a budgeted query did (out_report of astral_index_query_within). */
typedef struct AstralBudgetReport {
    uint32_t struct_size;  /* in: sizeof(AstralBudgetReport) */
    uint32_t complete;     /* 1: the whole search ran (the unbudgeted result) */
    double covered;        /* share of the work done, 0..1 */
    uint64_t elapsed_ns;   /* time spent in the call */
    uint32_t plan;         /* ASTRAL_PLAN_* */
    uint32_t reserved;
} AstralBudgetReport;

#ifndef ASTRAL_TYPES_ONLY /* the library's cgo layer needs the types alone */

/* ---- Library ----------------------------------------------------------- */

/* The library's version as ASTRAL_VERSION_NUMBER computes it. Any thread,
 * any time. */
ASTRAL_API uint32_t astral_version_number(void);

/* A static English name for status, e.g. "invalid argument"; an unknown
 * code gives "unknown status". Never NULL, never freed. Any thread, any
 * time. */
ASTRAL_API const char *astral_status_string(AstralStatus status);

/* Copies the message of the calling thread's last failed call into buf,
 * truncated to capacity - 1 bytes and always NUL-terminated when capacity
 * > 0 (buf may be NULL when capacity is 0). Returns the message's full
 * length without the NUL, like snprintf: a result >= capacity means it was
 * truncated, and a buffer of result + 1 bytes gets it whole. A message is
 * at most 1023 bytes: a longer one (a very long path) has its middle
 * replaced by " [...] ", keeping the call's name and the reason, so a
 * 1024-byte buffer always suffices. A thread with no failure yet gets "".
 * Successful calls leave the message alone. Any thread, any time; it
 * never fails. */
ASTRAL_API size_t astral_last_error(char *buf, size_t capacity);

/* Starts the runtime: the worker threads shared by every index.
 * init: NULL for ASTRAL_INIT_DEFAULTS. Read during the call only.
 * Statuses: OK; INVALID_ARGUMENT (bad struct_size, thread_count outside
 * ASTRAL_THREADS_AUTO or 0..ASTRAL_MAX_THREADS, unknown flag, cpus NULL with
 * cpu_count > 0 or given without ASTRAL_INIT_PIN_THREADS, pinning failed,
 * max_procs below the workers + 1, already initialized).
 * Thread-safe; init and shutdown may be repeated in turn. */
ASTRAL_API AstralStatus astral_init(const AstralInit *init);

/* Destroys every index still alive (their handles become stale), unmaps
 * the files of those loaded by astral_index_load (waiting for calls still
 * scanning them), then stops the workers. Calls already running on an
 * index finish normally.
 * Statuses: OK; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_shutdown(void);

/* ---- Indexes ----------------------------------------------------------- */

/* Creates an empty index and writes its handle to *out_index (set to
 * ASTRAL_INDEX_NONE on failure).
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer, struct_size, dimension,
 * unknown metric/kind/storage, HNSW parameter out of range, flat_limit_bytes
 * above INT64_MAX, rerank_storage not 0/F16/F32, rerank_factor above 64 or
 * set without rerank_storage); NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_create(const AstralIndexOptions *options,
                                            AstralIndex *out_index);

/* Destroys an index. ASTRAL_INDEX_NONE is a no-op returning OK. Calls
 * already running on it finish normally; later ones get STALE_HANDLE. The
 * file of an index astral_index_load mapped is unmapped here, once calls
 * already scanning it finish (one that had not started yet finds it empty).
 * Statuses: OK; STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_destroy(AstralIndex index);

/* Stores count vectors under ids. vectors holds value_count floats, row
 * after row, and value_count must be count * dimension. All or nothing: on
 * any failure nothing is stored. ids and vectors may be NULL when count and
 * value_count are 0. Cosine vectors are normalized when stored; under dot
 * and L2 a vector may be at most ASTRAL_MAX_NORM long, so no score overflows.
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer; dot or L2 vector longer
 * than ASTRAL_MAX_NORM, e.g. holding FLT_MAX); DIMENSION (value_count);
 * NON_FINITE; DUPLICATE_ID (already stored or repeated in ids);
 * OUT_OF_MEMORY (count too large); CORRUPT (the background check of a
 * file loaded with ASTRAL_LOAD_VERIFY_IN_BACKGROUND failed); STALE_HANDLE;
 * NOT_INITIALIZED.
 * Thread-safe: queries on other threads keep running and see each vector
 * whole or not at all. */
ASTRAL_API AstralStatus astral_index_add(AstralIndex index, const uint64_t *ids, size_t count,
                                         const float *vectors, size_t value_count);

/* Removes count ids. All or nothing: if any id is not stored or repeated,
 * nothing is removed. ids may be NULL when count is 0.
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer); NOT_FOUND; DUPLICATE_ID;
 * CORRUPT (as astral_index_add); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe, as astral_index_add. */
ASTRAL_API AstralStatus astral_index_remove(AstralIndex index, const uint64_t *ids, size_t count);

/* Finds the k stored vectors nearest to query (dimension floats) and writes
 * them best first (by score, then lower id) to results[0 .. *out_count),
 * *out_count = min(k, stored vectors). capacity is the length of results
 * and must be >= k. Allocates nothing. *out_count is 0 on failure.
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer, k = 0 or > ASTRAL_MAX_K,
 * dot or L2 query longer than ASTRAL_MAX_NORM); DIMENSION (dimension
 * differs from the index's); NON_FINITE; BUFFER_TOO_SMALL (capacity < k);
 * IO (the index's mapped file faulted); CORRUPT (as astral_index_add);
 * STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe: any number of threads may query one index while others add
 * and remove. */
ASTRAL_API AstralStatus astral_index_query(AstralIndex index, const float *query, size_t dimension,
                                           uint32_t k, AstralResult *results, size_t capacity,
                                           uint32_t *out_count);

/* Runs query_count queries (queries: query_count rows of dimension floats),
 * ASTRAL_MAX_BATCH per pass over the records. Query i's hits are
 * results[i*k .. i*k + out_counts[i]), each list as astral_index_query
 * would return it, bit for bit. capacity (length of results) must be >=
 * query_count * k; out_counts holds query_count entries, all 0 on
 * failure. query_count 0 does nothing (the pointers may then be NULL).
 * Statuses: as astral_index_query; BUFFER_TOO_SMALL when capacity <
 * query_count * k. Thread-safe, as astral_index_query. */
ASTRAL_API AstralStatus astral_index_query_batch(AstralIndex index, const float *queries,
                                                 size_t query_count, size_t dimension, uint32_t k,
                                                 AstralResult *results, size_t capacity,
                                                 uint32_t *out_counts);

/* Writes the number of stored vectors to *out_count.
 * Statuses: OK; INVALID_ARGUMENT (NULL); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_count(AstralIndex index, uint64_t *out_count);

/* Fills *out_stats, whose struct_size the caller sets first: at most that
 * many bytes, and at most sizeof(AstralStats) of this library, are
 * written (see struct_size at the top); struct_size itself is kept.
 * Statuses: OK; INVALID_ARGUMENT (NULL, struct_size too small);
 * STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_stats(AstralIndex index, AstralStats *out_stats);

/* astral_index_add with each record's attributes. tags and owners hold
 * count entries each, or are NULL for all 0. payloads: NULL for none;
 * else payloads[i] is record i's payload of payload_sizes[i] bytes (0 to
 * ASTRAL_MAX_PAYLOAD; a NULL payloads[i] needs size 0), copied during the
 * call, and payload_sizes must not be NULL. All or nothing, as
 * astral_index_add.
 * Statuses: as astral_index_add; INVALID_ARGUMENT also for payloads
 * without payload_sizes (or the reverse), a size above
 * ASTRAL_MAX_PAYLOAD, a NULL payload with size > 0.
 * Thread-safe, as astral_index_add. */
ASTRAL_API AstralStatus astral_index_add_ex(AstralIndex index, const uint64_t *ids, size_t count,
                                            const float *vectors, size_t value_count,
                                            const uint64_t *tags, const uint64_t *owners,
                                            const void *const *payloads,
                                            const uint32_t *payload_sizes);

/* Replaces the tag masks of count stored records (tags[i] for ids[i])
 * without re-adding their vectors. All or nothing: if any id is not
 * stored or repeated, nothing changes. ids and tags may be NULL when count
 * is 0.
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer); NOT_FOUND; DUPLICATE_ID;
 * OUT_OF_MEMORY (count too large); CORRUPT and IO (as astral_index_add);
 * STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe: a query running meanwhile sees each record's old or new
 * tags. */
ASTRAL_API AstralStatus astral_index_set_tags(AstralIndex index, const uint64_t *ids,
                                              const uint64_t *tags, size_t count);

/* ---- Memory ranking ---------------------------------------------------
 * Each record also carries a time (int64 in the host's units: game ticks
 * or milliseconds; e.g. when the memory was made or last recalled) and an
 * importance (a finite float the game assigns), both 0 unless set, saved
 * with the index. A query ranks by them through AstralQueryOptions'
 * rank_* fields. */

/* astral_index_add_ex with each record's time and importance: times and
 * importances hold count entries each, or are NULL for all 0. All or
 * nothing, as astral_index_add_ex.
 * Statuses: as astral_index_add_ex; NON_FINITE also for an importance
 * that is NaN or infinite.
 * Thread-safe, as astral_index_add. */
ASTRAL_API AstralStatus astral_index_add_memories(AstralIndex index, const uint64_t *ids, size_t count,
                                                  const float *vectors, size_t value_count,
                                                  const uint64_t *tags, const uint64_t *owners,
                                                  const void *const *payloads, const uint32_t *payload_sizes,
                                                  const int64_t *times, const float *importances);

/* Sets the time of count stored records to time (e.g. when they are
 * recalled) without re-adding their vectors. All or nothing: if any id is
 * not stored or repeated, nothing changes. ids may be NULL when count is 0.
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer); NOT_FOUND; DUPLICATE_ID;
 * OUT_OF_MEMORY (count too large); CORRUPT and IO (as astral_index_add);
 * STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe: a query running meanwhile sees each record's old or new
 * time. */
ASTRAL_API AstralStatus astral_index_touch(AstralIndex index, const uint64_t *ids, size_t count, int64_t time);

/* Sets the importance of count stored records, as astral_index_touch sets
 * their time.
 * Statuses: as astral_index_touch; NON_FINITE for a NaN or infinite
 * importance.
 * Thread-safe, as astral_index_touch. */
ASTRAL_API AstralStatus astral_index_set_importance(AstralIndex index, const uint64_t *ids, size_t count,
                                                    float importance);

/* Writes record id's time and importance (both 0 on failure).
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer); NOT_FOUND; IO;
 * STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_get_memory(AstralIndex index, uint64_t id, int64_t *out_time,
                                                float *out_importance);

/* Copies the payload of record id into buffer (capacity bytes; may be
 * NULL when capacity is 0) and writes its size to *out_size, also when
 * the buffer is too small (then nothing is copied and the status is
 * BUFFER_TOO_SMALL: pass NULL and 0 to ask). A record stored without a
 * payload has size 0. *out_size is 0 on any other failure.
 * Statuses: OK; INVALID_ARGUMENT (out_size NULL, buffer NULL with
 * capacity > 0); NOT_FOUND; BUFFER_TOO_SMALL; IO; STALE_HANDLE;
 * NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_get_payload(AstralIndex index, uint64_t id, void *buffer,
                                                 size_t capacity, size_t *out_size);

/* Writes record id's tag mask and owner (both 0 on failure).
 * Statuses: OK; INVALID_ARGUMENT (NULL pointer); NOT_FOUND; IO;
 * STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_get_attributes(AstralIndex index, uint64_t id,
                                                    uint64_t *out_tags, uint64_t *out_owner);

/* astral_index_query with options->k, its beam (or IVF probes), its
 * filter and its ranking: the k best records that pass the filter, best first (by score,
 * then lower id), *out_count = min(k, matching records), and the plan that
 * answered to *out_plan (ASTRAL_PLAN_*; out_plan may be NULL; 0 on
 * failure). With ranking on, the score is the combined score
 * (docs/RANKING.md), summed in the order written, each step rounded to
 * float. An exact plan (flat scan, direct scoring) gives the same ids and
 * score bits whatever the plan, thread count or batch. Allocates nothing.
 * Statuses: as astral_index_query; INVALID_ARGUMENT also for options
 * NULL, a bad struct_size, reserved, reserved2 or reserved3 not 0, ef
 * above 4096, nprobe above 1048576,
 * allow_ids NULL with allow_count > 0, deny_ids NULL with deny_count > 0,
 * either count above ASTRAL_MAX_FILTER_IDS, a rank weight negative or not
 * finite, rank_decay outside (0, 1] with rank_recency set, ranking on an
 * ASTRAL_METRIC_L2 index.
 * Thread-safe, as astral_index_query. */
ASTRAL_API AstralStatus astral_index_query_ex(AstralIndex index, const float *query,
                                              size_t dimension, const AstralQueryOptions *options,
                                              AstralResult *results, size_t capacity,
                                              uint32_t *out_count, uint32_t *out_plan);

/* astral_index_query_batch with astral_index_query_ex's options, the same
 * for every query: query i's hits are results[i*k .. i*k + out_counts[i]),
 * each list as astral_index_query_ex returns it, bit for bit. *out_plan
 * (may be NULL) is the last pass's plan.
 * Statuses: as astral_index_query_ex; BUFFER_TOO_SMALL when capacity <
 * query_count * k. Thread-safe, as astral_index_query. */
ASTRAL_API AstralStatus astral_index_query_batch_ex(AstralIndex index, const float *queries,
                                                    size_t query_count, size_t dimension,
                                                    const AstralQueryOptions *options,
                                                    AstralResult *results, size_t capacity,
                                                    uint32_t *out_counts, uint32_t *out_plan);

/* astral_index_query_ex that stops searching budget_us microseconds after
 * the call began and returns the best results found by then, best first,
 * *out_count of them (fewer than k only when fewer records match, or when
 * the budget ran out before k were scored). A flat scan, a direct plan and
 * an exact filtered scan visit their records in blocks spread over the
 * whole index, so a partial scan is a sample of every part of it; an HNSW
 * walk stops expanding; an IVF query stops taking partitions (nearest
 * first). *out_report (may be NULL; its struct_size set by
 * the caller, as AstralStats's) gets complete, the share covered (records
 * scanned (of the probed partitions for IVF), or graph expansions over expansions plus the candidates still
 * able to improve the result), the call's time and the plan; it is
 * written on success only. Allocates nothing.
 * Statuses: as astral_index_query_ex; INVALID_ARGUMENT also for budget_us
 * 0 or out_report's struct_size too small.
 * Thread-safe, as astral_index_query. */
ASTRAL_API AstralStatus astral_index_query_within(AstralIndex index, const float *query, size_t dimension,
                                                  const AstralQueryOptions *options, uint64_t budget_us,
                                                  AstralResult *results, size_t capacity,
                                                  uint32_t *out_count, AstralBudgetReport *out_report);

/* ---- Records and tag names ---------------------------------------------
 * Single-record calls a game's scripting layer needs (Blueprint nodes),
 * and the names of the 64 tag bits, saved with the index. */

/* Writes 1 to *out_contains when id is stored, else 0 (also on failure).
 * Allocates nothing.
 * Statuses: OK; INVALID_ARGUMENT (out_contains NULL); STALE_HANDLE;
 * NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_contains(AstralIndex index, uint64_t id, int *out_contains);

/* Removes every record with its attributes and payloads, keeping the
 * options and the tag names; an ASTRAL_KIND_AUTO index goes back to a flat
 * one. A loaded index stops using its mapped file.
 * Statuses: OK; IO (unmapping failed); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe: a query running meanwhile sees the index before or after,
 * never half of it. */
ASTRAL_API AstralStatus astral_index_clear(AstralIndex index);

/* astral_index_add_ex where an id already stored is replaced (vector,
 * tags, owner and payload) instead of refused: arguments as
 * astral_index_add_ex, all or nothing as it (an id repeated in ids is
 * DUPLICATE_ID; ids already stored are not). A replaced record's time
 * and importance become 0; astral_index_upsert_memories sets them.
 * Statuses: as astral_index_add_ex, without DUPLICATE_ID for a stored id.
 * Thread-safe: a query running meanwhile sees each record old or new,
 * never missing (queries wait while the records are replaced). */
ASTRAL_API AstralStatus astral_index_upsert(AstralIndex index, const uint64_t *ids, size_t count,
                                            const float *vectors, size_t value_count,
                                            const uint64_t *tags, const uint64_t *owners,
                                            const void *const *payloads, const uint32_t *payload_sizes);

/* astral_index_upsert with each record's time and importance, as
 * astral_index_add_memories takes them (NULL for all 0): a stored id's
 * vector, tags, owner, payload, time and importance are replaced in one
 * step, so a query never sees the new vector with the old time. All or
 * nothing, as astral_index_upsert.
 * Statuses: as astral_index_upsert; NON_FINITE also for an importance
 * that is NaN or infinite.
 * Thread-safe, as astral_index_upsert. */
ASTRAL_API AstralStatus astral_index_upsert_memories(AstralIndex index, const uint64_t *ids, size_t count,
                                                     const float *vectors, size_t value_count,
                                                     const uint64_t *tags, const uint64_t *owners,
                                                     const void *const *payloads, const uint32_t *payload_sizes,
                                                     const int64_t *times, const float *importances);

/* Writes the stored vector of id (value_count = dimension floats) to
 * out_vector: from the rerank copy when the index has one, else the
 * searched records dequantized (within the storage's rounding). A cosine
 * index stores vectors normalized: this is the unit vector. Allocates
 * nothing.
 * Statuses: OK; INVALID_ARGUMENT (out_vector NULL); DIMENSION (value_count
 * not the dimension); NOT_FOUND; IO (the mapped file faulted); CORRUPT (as
 * astral_index_add); STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_get_vector(AstralIndex index, uint64_t id, float *out_vector, size_t value_count);

/* Names tag bit bit (0 to ASTRAL_TAG_BITS - 1): name is NUL-terminated
 * UTF-8, at most ASTRAL_MAX_TAG_NAME bytes, without control characters,
 * and on no other bit; NULL or "" clears the bit's name. Saved with the
 * index (format version 4).
 * Statuses: OK; INVALID_ARGUMENT (bit >= ASTRAL_TAG_BITS, a bad name, a
 * name already on another bit); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_set_tag_name(AstralIndex index, uint32_t bit, const char *name);

/* Copies the name of tag bit bit into buffer (capacity bytes, NUL
 * included; may be NULL when capacity is 0) and writes its length without
 * the NUL to *out_size, also when the buffer is too small (then nothing is
 * copied and the status is BUFFER_TOO_SMALL: pass NULL and 0 to ask). A bit
 * without a name has size 0 (buffer[0] = 0 when capacity > 0). *out_size
 * is 0 on any other failure.
 * Statuses: OK; INVALID_ARGUMENT (out_size NULL, buffer NULL with capacity
 * > 0, bit >= ASTRAL_TAG_BITS); BUFFER_TOO_SMALL (capacity < size + 1);
 * STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_get_tag_name(AstralIndex index, uint32_t bit, char *buffer, size_t capacity, size_t *out_size);

/* Writes the bit named name (NUL-terminated) to *out_bit (0 on failure).
 * Statuses: OK; INVALID_ARGUMENT (name or out_bit NULL); NOT_FOUND (no
 * bit has that name; "" names none); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_find_tag(AstralIndex index, const char *name, uint32_t *out_bit);

/* ---- Persistence -------------------------------------------------------
 * One file per index (format: docs/FORMAT.md): header, options, counts and
 * sections, each with a CRC-32C. Loading checks every checksum, count,
 * offset and neighbour id before the index is used: damaged, truncated or
 * hostile data gives ASTRAL_E_CORRUPT (another format version or byte
 * order ASTRAL_E_VERSION_MISMATCH), never a crash. Saving is a snapshot of
 * one moment: adds and removes on other threads wait for it, queries run
 * on. A saved and reloaded index answers every query with the same bits. */

/* Saves the index to the file at path (UTF-8, on Windows too). Crash-safe: a temporary
 * file in the same directory is written, flushed to disk and renamed over
 * path, so a crash or kill at any moment leaves the previous file or the
 * new one, whole (perhaps with a stray ".NAME.tmp-*" beside it). Saving
 * over a file another index has loaded (mapped) is safe (Windows cannot
 * replace a mapped file: there each index mapping it is first copied into
 * the library's memory, as its first add would). Only a regular
 * file is replaced, and it keeps its permission bits (a new file gets
 * 0644; the owner is the saving process). Anything else at path is
 * refused with IO and left as it was: a directory, FIFO, socket or device
 * node, and a symbolic link, which is not followed (save to the path it
 * points to instead).
 * Statuses: OK; INVALID_ARGUMENT (path NULL or empty); IO; UNSUPPORTED
 * (big-endian host); CORRUPT (as astral_index_add: a damaged file is never
 * saved again with fresh checksums); STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_save(AstralIndex index, const char *path);

/* Saves the index into buf (capacity bytes) and writes the file's length
 * to *out_size. When capacity is too small nothing is written, *out_size
 * is the length needed and the status BUFFER_TOO_SMALL: pass buf NULL and
 * capacity 0 to ask, then call again (the index may grow in between: keep
 * room to spare, or retry). *out_size is 0 on any other failure.
 * Statuses: OK; INVALID_ARGUMENT (out_size NULL, buf NULL with capacity >
 * 0); BUFFER_TOO_SMALL; UNSUPPORTED; CORRUPT (as astral_index_save);
 * STALE_HANDLE; NOT_INITIALIZED.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_save_to_buffer(AstralIndex index, void *buf, size_t capacity,
                                                    size_t *out_size);

/* What the index's last successful save (astral_index_save or
 * astral_index_save_to_buffer) wrote: *out_bytes its bytes (0 before any
 * save) and *out_appended 1 when astral_index_save appended to the file
 * instead of writing it whole. A trained IVF index saved again to the file
 * it was last saved to or loaded from, unchanged since, appends the slots
 * its partitions gained, a new directory and header, as crash-safe as the
 * whole write; once half the file would be dead it writes the file whole
 * (docs/FORMAT.md, "Appending saves"). Both are 0 on failure.
 * Statuses: OK; INVALID_ARGUMENT (out_bytes or out_appended NULL);
 * STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_last_save(AstralIndex index, uint64_t *out_bytes, int *out_appended);

/* Loads the index file at path by mapping it read-only: a large index is
 * ready in milliseconds, with no rebuild and no copy, and shares the page
 * cache with other processes. The first add or remove copies it into the
 * library's memory; astral_index_destroy unmaps it. While mapped, the file
 * must not be changed or truncated in place (astral_index_save, which
 * replaces it, is fine). path must name a regular file (a symbolic link
 * to one is followed): a directory, FIFO, socket or device node is
 * refused with IO before it is opened, so the call never blocks on a
 * FIFO. Writes the handle to *out_index (ASTRAL_INDEX_NONE on failure).
 * Statuses: OK; INVALID_ARGUMENT (NULL or empty path, out_index NULL); IO;
 * CORRUPT; VERSION_MISMATCH; UNSUPPORTED; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_load(const char *path, AstralIndex *out_index);

/* astral_index_load with flags (0: the same call).
 * ASTRAL_LOAD_VERIFY_IN_BACKGROUND returns before the bulk of the file
 * (records, the graph's level-0 blocks) is read: the header, the small
 * sections' checksums and what a search needs to stay inside the file and
 * to end (every node's state and upper-level offsets, the entry point) are
 * checked; the bulk's checksums, every link and the ids are checked in the
 * background (about 1 ms to open the 100,000 x 384 HNSW reference file
 * instead of about 3 ms; docs/BENCHMARKS.md, "Opening a saved index"). Queries before
 * that check ends are safe on any file but read unchecked bytes;
 * astral_index_verify waits for it. If it fails, the index answers queries,
 * adds, removes and saves with CORRUPT (adds, removes and saves wait for
 * the check anyway).
 * Statuses: as astral_index_load; INVALID_ARGUMENT also for unknown flags.
 * Thread-safe. */
ASTRAL_API AstralStatus astral_index_load_ex(const char *path, uint32_t flags,
                                             AstralIndex *out_index);

/* Waits for the background check of an index loaded with
 * ASTRAL_LOAD_VERIFY_IN_BACKGROUND and returns its result: OK, or CORRUPT
 * with astral_last_error naming the first problem (destroy the index).
 * Any other index was checked whole when loaded: OK at once.
 * Statuses: OK; CORRUPT; STALE_HANDLE; NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_verify(AstralIndex index);

/* Loads an index from size bytes at data (a save game, a packed asset),
 * copying what it keeps: data may be freed as soon as the call returns.
 * Writes the handle to *out_index (ASTRAL_INDEX_NONE on failure).
 * Statuses: OK; INVALID_ARGUMENT (data NULL with size > 0, out_index NULL);
 * CORRUPT (including size 0 or too short); VERSION_MISMATCH; UNSUPPORTED;
 * NOT_INITIALIZED. Thread-safe. */
ASTRAL_API AstralStatus astral_index_load_from_memory(const void *data, size_t size,
                                                      AstralIndex *out_index);

/* ---- Experimental ------------------------------------------------------
 * Calls for tests and benchmarks, not covered by the ABI rules: they may
 * change or go in any release. Define ASTRAL_EXPERIMENTAL to declare them.
 * Only the test build of the library exports them (scripts/build-lib.sh's
 * build/debug, built with -tags astral_debug); the shipping library does
 * not. */
#ifdef ASTRAL_EXPERIMENTAL

/* Runs each of query_count queries once through the Go API
 * (astral.Index.Query) inside the library, on the index behind the handle,
 * and writes each call's wall time in nanoseconds to out_ns[i] and its
 * results as astral_index_query_batch lays them out. Compares the C path's
 * latency with the Go API's in one process. Statuses: as
 * astral_index_query_batch. Thread-safe; calls run one at a time. */
ASTRAL_API AstralStatus astral_debug_go_query_pass(AstralIndex index, const float *queries,
                                                   size_t query_count, size_t dimension,
                                                   uint32_t k, AstralResult *results,
                                                   size_t capacity, uint32_t *out_counts,
                                                   uint64_t *out_ns);

/* The Go runtime's count of heap allocations so far (MemStats.Mallocs). It
 * stops the world briefly: call it around a loop, never inside one. Any
 * thread, any time. */
ASTRAL_API uint64_t astral_debug_go_mallocs(void);

/* The Go runtime's GOMAXPROCS now, which AstralInit.max_procs caps. Any
 * thread, any time. */
ASTRAL_API uint32_t astral_debug_go_max_procs(void);

/* Generates the named benchmark fixture ("random", "spectral",
 * "clustered"; see docs/BENCHMARKS.md) into base (n * dimension floats) and queries
 * (query_count * dimension floats), bit-identical to the Go package
 * internal/fixture that `astral fixture` and `astral bench` use.
 * Statuses: OK; INVALID_ARGUMENT (NULL, unknown name, bad size).
 * Thread-safe; needs no astral_init. */
ASTRAL_API AstralStatus astral_debug_fixture(const char *name, size_t n, size_t query_count,
                                             size_t dimension, float *base, float *queries);

#endif /* ASTRAL_EXPERIMENTAL */

#endif /* ASTRAL_TYPES_ONLY */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ASTRAL_H */
