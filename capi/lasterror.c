// The C half of the cgo layer: per-thread last-error storage and the
// static status strings. Kept in C because Go has no thread-locals: the
// buffer belongs to the OS thread that made the failing call, so reading
// and writing it needs no lock and the success path never touches it.

#include <string.h>

#include "capi.h"

static _Thread_local char capi_error[CAPI_ERROR_SIZE];

char *capi_error_buffer(void) { return capi_error; }

size_t capi_copy_error(char *buf, size_t capacity) {
    const char *end = memchr(capi_error, '\0', CAPI_ERROR_SIZE);
    size_t n = end != NULL ? (size_t)(end - capi_error) : CAPI_ERROR_SIZE - 1;
    if (buf != NULL && capacity > 0) {
        size_t m = n < capacity - 1 ? n : capacity - 1;
        memcpy(buf, capi_error, m);
        buf[m] = '\0';
    }
    return n;
}

const char *capi_status_string(AstralStatus status) {
    switch (status) {
    case ASTRAL_OK: return "ok";
    case ASTRAL_E_INVALID_ARGUMENT: return "invalid argument";
    case ASTRAL_E_DIMENSION: return "dimension mismatch";
    case ASTRAL_E_NON_FINITE: return "non-finite value";
    case ASTRAL_E_DUPLICATE_ID: return "duplicate id";
    case ASTRAL_E_NOT_FOUND: return "id not found";
    case ASTRAL_E_STALE_HANDLE: return "stale or invalid handle";
    case ASTRAL_E_NOT_INITIALIZED: return "not initialized";
    case ASTRAL_E_BUFFER_TOO_SMALL: return "buffer too small";
    case ASTRAL_E_OUT_OF_MEMORY: return "out of memory";
    case ASTRAL_E_IO: return "i/o error";
    case ASTRAL_E_CORRUPT: return "corrupt data";
    case ASTRAL_E_INTERNAL: return "internal error";
    case ASTRAL_E_VERSION_MISMATCH: return "version mismatch";
    case ASTRAL_E_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}
