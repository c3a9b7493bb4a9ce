package main

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

const statusOK = C.AstralStatus(C.ASTRAL_OK)

// statusOf maps the astral package's sentinel errors to status codes.
func statusOf(err error) C.AstralStatus {
	switch {
	case errors.Is(err, astral.ErrDimension):
		return C.ASTRAL_E_DIMENSION
	case errors.Is(err, astral.ErrNonFinite):
		return C.ASTRAL_E_NON_FINITE
	case errors.Is(err, astral.ErrDuplicateID):
		return C.ASTRAL_E_DUPLICATE_ID
	case errors.Is(err, astral.ErrNotFound):
		return C.ASTRAL_E_NOT_FOUND
	case errors.Is(err, astral.ErrInvalidArgument):
		return C.ASTRAL_E_INVALID_ARGUMENT
	case errors.Is(err, astral.ErrCorrupt):
		return C.ASTRAL_E_CORRUPT // a loaded file's background check failed
	case errors.Is(err, astral.ErrIO):
		return C.ASTRAL_E_IO // a mapped file faulted (truncated under the index)
	}
	return C.ASTRAL_E_INTERNAL
}

// setError stores "fn: msg" as the calling OS thread's last error. Only
// failures call it, so the success path never formats or allocates.
func setError(fn, msg string) {
	// The buffer is the current thread's: stay on it while writing. Exports
	// called from C are locked already; Go callers (tests) are not.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := unsafe.Slice((*byte)(unsafe.Pointer(C.capi_error_buffer())), C.CAPI_ERROR_SIZE)
	n := copyMessage(buf[:len(buf)-1], shortened(fn+": "+strings.ReplaceAll(msg, "\x00", ""), len(buf)-1))
	buf[n] = 0
}

// elision marks where shortened cut a message.
const elision = " [...] "

// shortened fits msg into max bytes by cutting out its middle, at UTF-8
// boundaries: the call's name at the start and the reason at the end
// (after a long path, say) both survive, and astral_last_error's length
// is then the whole message's, so a caller can size its buffer by it.
func shortened(msg string, max int) string {
	if len(msg) <= max {
		return msg
	}
	head := (max - len(elision)) / 2
	for head > 0 && !utf8.RuneStart(msg[head]) {
		head--
	}
	tail := len(msg) - (max - len(elision) - head)
	for tail < len(msg) && !utf8.RuneStart(msg[tail]) {
		tail++
	}
	return msg[:head] + elision + msg[tail:]
}

// copyMessage concatenates parts into dst, dropping NUL bytes (C would stop
// there) and cutting at a UTF-8 boundary when dst is full.
func copyMessage(dst []byte, parts ...string) int {
	n := 0
	for _, p := range parts {
		for i := 0; i < len(p); {
			r, size := utf8.DecodeRuneInString(p[i:])
			if r == 0 {
				i += size
				continue
			}
			if n+size > len(dst) {
				return n
			}
			n += copy(dst[n:], p[i:i+size])
			i += size
		}
	}
	return n
}

// fail records a failure of export fn and returns its status.
func fail(fn string, status C.AstralStatus, format string, args ...any) C.AstralStatus {
	setError(fn, fmt.Sprintf(format, args...))
	return status
}

// failErr records err, returned by the astral package, as fn's failure.
func failErr(fn string, err error) C.AstralStatus {
	setError(fn, err.Error())
	return statusOf(err)
}

// recoverStatus is deferred by every export that can fail: a panic becomes
// ASTRAL_E_INTERNAL with its message instead of killing the host.
func recoverStatus(fn string, status *C.AstralStatus) {
	if r := recover(); r != nil {
		*status = fail(fn, C.ASTRAL_E_INTERNAL, "internal error (panic): %s", panicText(r))
	}
}

// panicText is the panic value and the innermost frames that raised it,
// short enough for the last-error buffer.
func panicText(r any) string {
	var b strings.Builder
	fmt.Fprint(&b, r)
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.Function != "main.recoverStatus" {
			fmt.Fprintf(&b, " [%s %s:%d]", f.Function, shortFile(f.File), f.Line)
			break
		}
		if !more {
			break
		}
	}
	return b.String()
}

func shortFile(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if j := strings.LastIndexByte(path[:i], '/'); j >= 0 {
			return path[j+1:]
		}
	}
	return path
}
