// Keeps libastral.so loadable on glibc older than the build host's.
//
// glibc 2.32 and 2.34 moved libpthread into libc and gave the moved
// functions new default versions (pthread_create@@GLIBC_2.34, ...), so a
// library linked on a newer host needs that glibc. Every one of them keeps
// its first version as an alias of the same code, which a glibc of any
// age resolves (from libpthread.so.0 before 2.34, from libc.so.6 since).
// Go's runtime/cgo calls these functions from objects we do not compile,
// so the linker's --wrap (capi/glibc_floor.go) sends those calls here and
// each wrapper calls the first version, pinned with .symver.
// scripts/check-elf.sh fails the build when a newer version creeps back.

// The --wrap flags are passed on linux/amd64 and linux/arm64 only.
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#define _GNU_SOURCE /* pthread_getattr_np */
#include <pthread.h>
#include <signal.h>

#include "capi.h"

#if defined(__GLIBC__)

#if defined(__x86_64__)
#  define CAPI_GLIBC_BASE "GLIBC_2.2.5"
#else
#  define CAPI_GLIBC_BASE "GLIBC_2.17"
#endif

// CAPI_PIN(name) binds this file's references to name to its first version.
#define CAPI_PIN(name) __asm__(".symver " #name "," #name "@" CAPI_GLIBC_BASE)

CAPI_PIN(pthread_create);
CAPI_PIN(pthread_key_create);
CAPI_PIN(pthread_setspecific);
CAPI_PIN(pthread_getspecific);
CAPI_PIN(pthread_once);
CAPI_PIN(pthread_attr_getstack);
CAPI_PIN(pthread_attr_getstacksize);
CAPI_PIN(pthread_getattr_np);
CAPI_PIN(pthread_sigmask);

#define CAPI_REAL(name) name

#else

// Not glibc: nothing to pin; the wrappers call the functions themselves.
#define CAPI_REAL(name) __real_##name
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __real_pthread_key_create(pthread_key_t *, void (*)(void *));
int __real_pthread_setspecific(pthread_key_t, const void *);
void *__real_pthread_getspecific(pthread_key_t);
int __real_pthread_once(pthread_once_t *, void (*)(void));
int __real_pthread_attr_getstack(const pthread_attr_t *, void **, size_t *);
int __real_pthread_attr_getstacksize(const pthread_attr_t *, size_t *);
int __real_pthread_getattr_np(pthread_t, pthread_attr_t *);
int __real_pthread_sigmask(int, const sigset_t *, sigset_t *);

#endif

CAPI_HIDDEN int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                      void *(*start)(void *), void *arg) {
    return CAPI_REAL(pthread_create)(thread, attr, start, arg);
}

CAPI_HIDDEN int __wrap_pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
    return CAPI_REAL(pthread_key_create)(key, destructor);
}

CAPI_HIDDEN int __wrap_pthread_setspecific(pthread_key_t key, const void *value) {
    return CAPI_REAL(pthread_setspecific)(key, value);
}

CAPI_HIDDEN void *__wrap_pthread_getspecific(pthread_key_t key) {
    return CAPI_REAL(pthread_getspecific)(key);
}

CAPI_HIDDEN int __wrap_pthread_once(pthread_once_t *once, void (*init)(void)) {
    return CAPI_REAL(pthread_once)(once, init);
}

CAPI_HIDDEN int __wrap_pthread_attr_getstack(const pthread_attr_t *attr, void **addr, size_t *size) {
    return CAPI_REAL(pthread_attr_getstack)(attr, addr, size);
}

CAPI_HIDDEN int __wrap_pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size) {
    return CAPI_REAL(pthread_attr_getstacksize)(attr, size);
}

CAPI_HIDDEN int __wrap_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
    return CAPI_REAL(pthread_getattr_np)(thread, attr);
}

CAPI_HIDDEN int __wrap_pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
    return CAPI_REAL(pthread_sigmask)(how, set, old);
}

#endif
