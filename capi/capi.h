/* Internal declarations of the C half of the cgo layer; not installed. */
#ifndef ASTRAL_CAPI_H
#define ASTRAL_CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "astral.h"

#if defined(_WIN32) || defined(__CYGWIN__)
#  define CAPI_HIDDEN
#else
#  define CAPI_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Size of each thread's last-error buffer, NUL included. */
#define CAPI_ERROR_SIZE 1024

/* The calling thread's last-error buffer: CAPI_ERROR_SIZE bytes, allocated on
 * its first call; NULL when that allocation fails. */
CAPI_HIDDEN char *capi_error_buffer(void);

/* astral_last_error's body. */
CAPI_HIDDEN size_t capi_copy_error(char *buf, size_t capacity);

/* astral_status_string's body. */
CAPI_HIDDEN const char *capi_status_string(AstralStatus status);

/* For the Go tests: calls astral_index_query from C iterations times,
 * cycling over query_count queries; returns the first failure's status. */
CAPI_HIDDEN AstralStatus capi_test_query_loop(AstralIndex index, const float *queries,
                                              size_t query_count, size_t dimension, uint32_t k,
                                              AstralResult *results, size_t capacity,
                                              size_t iterations);

/* For the Go tests: the same with astral_index_query_ex and options. */
CAPI_HIDDEN AstralStatus capi_test_query_ex_loop(AstralIndex index, const float *queries,
                                                 size_t query_count, size_t dimension,
                                                 const AstralQueryOptions *options,
                                                 AstralResult *results, size_t capacity,
                                                 size_t iterations);

/* For the Go tests: the same with astral_index_query_within, a budget and
 * a report. */
CAPI_HIDDEN AstralStatus capi_test_query_within_loop(AstralIndex index, const float *queries,
                                                     size_t query_count, size_t dimension,
                                                     const AstralQueryOptions *options, uint64_t budget_us,
                                                     AstralResult *results, size_t capacity,
                                                     size_t iterations);

#endif
