// The C half of the cgo layer: per-thread last-error storage and the
// static status strings. Kept in C because Go has no thread-locals: the
// buffer belongs to the OS thread that made the failing call, so reading
// and writing it needs no lock and the success path never touches it.
//
// The buffer is allocated on a thread's first failure and found through a
// thread-specific key (an FLS slot on Windows), whose destructor frees it
// when the thread exits. No _Thread_local: a library loaded late into a
// large process (a game) takes its static TLS block from glibc's small
// surplus, so the library keeps that block to Go's own 8 bytes
// (scripts/check-elf.sh holds it at 64 at most).

#include <stdlib.h>
#include <string.h>

#include "capi.h"

#if defined(_WIN32)

#include <windows.h>

static DWORD capi_error_slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE capi_error_once = INIT_ONCE_STATIC_INIT;

static void WINAPI capi_error_free(void *buf) { free(buf); }

static BOOL CALLBACK capi_error_make_slot(PINIT_ONCE once, void *param, void **context) {
    (void)once, (void)param, (void)context;
    capi_error_slot = FlsAlloc(capi_error_free);
    return TRUE;
}

// capi_error_slot_ready makes the slot once; false when there is none.
static int capi_error_slot_ready(void) {
    InitOnceExecuteOnce(&capi_error_once, capi_error_make_slot, NULL, NULL);
    return capi_error_slot != FLS_OUT_OF_INDEXES;
}

static char *capi_error_get(void) { return FlsGetValue(capi_error_slot); }

static int capi_error_set(char *buf) { return FlsSetValue(capi_error_slot, buf) != 0; }

#else

#include <pthread.h>

static pthread_key_t capi_error_key;
static pthread_once_t capi_error_once = PTHREAD_ONCE_INIT;
static int capi_error_key_made;

static void capi_error_make_key(void) {
    capi_error_key_made = pthread_key_create(&capi_error_key, free) == 0;
}

// capi_error_slot_ready makes the key once; false when there is none.
static int capi_error_slot_ready(void) {
    pthread_once(&capi_error_once, capi_error_make_key);
    return capi_error_key_made;
}

static char *capi_error_get(void) { return pthread_getspecific(capi_error_key); }

static int capi_error_set(char *buf) { return pthread_setspecific(capi_error_key, buf) == 0; }

#endif

char *capi_error_buffer(void) {
    if (!capi_error_slot_ready()) {
        return NULL;
    }
    char *buf = capi_error_get();
    if (buf == NULL) {
        buf = calloc(1, CAPI_ERROR_SIZE);
        if (buf != NULL && !capi_error_set(buf)) {
            free(buf);
            buf = NULL;
        }
    }
    return buf;
}

size_t capi_copy_error(char *buf, size_t capacity) {
    // A thread that never failed has no buffer: its message is empty.
    const char *msg = capi_error_slot_ready() ? capi_error_get() : NULL;
    size_t n = 0;
    if (msg != NULL) {
        const char *end = memchr(msg, '\0', CAPI_ERROR_SIZE);
        n = end != NULL ? (size_t)(end - msg) : CAPI_ERROR_SIZE - 1;
    }
    if (buf != NULL && capacity > 0) {
        size_t m = n < capacity - 1 ? n : capacity - 1;
        if (m > 0) {
            memcpy(buf, msg, m);
        }
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
