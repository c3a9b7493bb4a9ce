package main

// Every call to these functions, from runtime/cgo's objects as from ours,
// goes through capi/glibc_floor.c, which calls the glibc version that
// older systems have too: see that file. Before glibc 2.34 they live in
// libpthread.so.0, so the library names it (an empty stub since 2.34).

/*
#cgo linux,amd64 LDFLAGS: -Wl,--wrap=pthread_create -Wl,--wrap=pthread_key_create -Wl,--wrap=pthread_setspecific -Wl,--wrap=pthread_getspecific -Wl,--wrap=pthread_once
#cgo linux,amd64 LDFLAGS: -Wl,--wrap=pthread_attr_getstack -Wl,--wrap=pthread_attr_getstacksize -Wl,--wrap=pthread_getattr_np -Wl,--wrap=pthread_sigmask
#cgo linux,amd64 LDFLAGS: -Wl,--push-state -Wl,--no-as-needed -l:libpthread.so.0 -Wl,--pop-state
#cgo linux,arm64 LDFLAGS: -Wl,--wrap=pthread_create -Wl,--wrap=pthread_key_create -Wl,--wrap=pthread_setspecific -Wl,--wrap=pthread_getspecific -Wl,--wrap=pthread_once
#cgo linux,arm64 LDFLAGS: -Wl,--wrap=pthread_attr_getstack -Wl,--wrap=pthread_attr_getstacksize -Wl,--wrap=pthread_getattr_np -Wl,--wrap=pthread_sigmask
#cgo linux,arm64 LDFLAGS: -Wl,--push-state -Wl,--no-as-needed -l:libpthread.so.0 -Wl,--pop-state
*/
import "C"
