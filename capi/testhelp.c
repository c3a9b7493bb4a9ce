// C code the Go tests call (cgo is not allowed in _test.go files): it
// drives the exports from C, through the same cgo transitions a host pays.

#include "_cgo_export.h"
#include "capi.h"

AstralStatus capi_test_query_loop(AstralIndex index, const float *queries, size_t query_count,
                                  size_t dimension, uint32_t k, AstralResult *results,
                                  size_t capacity, size_t iterations) {
    for (size_t i = 0; i < iterations; i++) {
        uint32_t n = 0;
        AstralStatus st = astral_index_query(index, (float *)(queries + (i % query_count) * dimension),
                                             dimension, k, results, capacity, &n);
        if (st != ASTRAL_OK) {
            return st;
        }
    }
    return ASTRAL_OK;
}

AstralStatus capi_test_query_ex_loop(AstralIndex index, const float *queries, size_t query_count,
                                     size_t dimension, const AstralQueryOptions *options,
                                     AstralResult *results, size_t capacity, size_t iterations) {
    for (size_t i = 0; i < iterations; i++) {
        uint32_t n = 0, plan = 0;
        AstralStatus st = astral_index_query_ex(index, (float *)(queries + (i % query_count) * dimension),
                                                dimension, (AstralQueryOptions *)options, results,
                                                capacity, &n, &plan);
        if (st != ASTRAL_OK) {
            return st;
        }
    }
    return ASTRAL_OK;
}

AstralStatus capi_test_query_within_loop(AstralIndex index, const float *queries, size_t query_count,
                                         size_t dimension, const AstralQueryOptions *options,
                                         uint64_t budget_us, AstralResult *results, size_t capacity,
                                         size_t iterations) {
    for (size_t i = 0; i < iterations; i++) {
        uint32_t n = 0;
        AstralBudgetReport report = {0};
        report.struct_size = sizeof report;
        AstralStatus st = astral_index_query_within(index, (float *)(queries + (i % query_count) * dimension),
                                                    dimension, (AstralQueryOptions *)options, budget_us,
                                                    results, capacity, &n, &report);
        if (st != ASTRAL_OK) {
            return st;
        }
    }
    return ASTRAL_OK;
}
