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
	"github.com/astral-engine/astral/internal/fpenv"
)

const statusOK = C.AstralStatus(C.ASTRAL_OK)

// statuses is the one table from the astral package's sentinel errors to
// status codes, first match wins; anything else is ASTRAL_E_INTERNAL.
var statuses = [...]struct {
	err    error
	status C.AstralStatus
}{
	{astral.ErrDimension, C.ASTRAL_E_DIMENSION},
	{astral.ErrNonFinite, C.ASTRAL_E_NON_FINITE},
	{astral.ErrDuplicateID, C.ASTRAL_E_DUPLICATE_ID},
	{astral.ErrNotFound, C.ASTRAL_E_NOT_FOUND},
	{astral.ErrInvalidArgument, C.ASTRAL_E_INVALID_ARGUMENT},
	{astral.ErrCorrupt, C.ASTRAL_E_CORRUPT}, // a damaged file, or a loaded file's background check
	{astral.ErrVersion, C.ASTRAL_E_VERSION_MISMATCH},
	{astral.ErrIO, C.ASTRAL_E_IO}, // a file that cannot be read, or a mapped file that faulted (truncated under the index)
	{astral.ErrBufferTooSmall, C.ASTRAL_E_BUFFER_TOO_SMALL},
	{errors.ErrUnsupported, C.ASTRAL_E_UNSUPPORTED},
}

// statusOf maps an error of the astral package to its status code.
func statusOf(err error) C.AstralStatus {
	for _, s := range statuses {
		if errors.Is(err, s.err) {
			return s.status
		}
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
	p := C.capi_error_buffer()
	if p == nil {
		return // out of memory: the status alone tells the failure
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(p)), C.CAPI_ERROR_SIZE)
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

// failOptions records astral_index_create's failure to make an index of
// o: a setting out of range is named by its AstralIndexOptions field, with
// the value the host passed (before any narrowing).
func failOptions(fn string, o *C.AstralIndexOptions, err error) C.AstralStatus {
	var se *astral.SettingError
	if !errors.As(err, &se) {
		return failErr(fn, err)
	}
	setError(fn, se.DescribeValue(optionField, optionValue(o, se.Setting)))
	return statusOf(err)
}

// optionField is the AstralIndexOptions field that holds setting s.
func optionField(s astral.Setting) string {
	switch s {
	case astral.SettingDim:
		return "dimension"
	case astral.SettingMetric:
		return "metric"
	case astral.SettingKind:
		return "index kind"
	case astral.SettingStorage:
		return "storage"
	case astral.SettingRerank:
		return "rerank_storage"
	case astral.SettingRerankFactor:
		return "rerank_factor"
	case astral.SettingM:
		return "hnsw_m"
	case astral.SettingEfConstruction:
		return "hnsw_ef_construction"
	case astral.SettingEfSearch:
		return "hnsw_ef_search"
	case astral.SettingFlatLimitBytes:
		return "flat_limit_bytes"
	case astral.SettingNList:
		return "ivf_nlist"
	case astral.SettingNProbe:
		return "ivf_nprobe"
	}
	return s.String()
}

// optionValue is the value the host gave setting s in o.
func optionValue(o *C.AstralIndexOptions, s astral.Setting) uint64 {
	switch s {
	case astral.SettingDim:
		return uint64(o.dimension)
	case astral.SettingMetric:
		return uint64(o.metric)
	case astral.SettingKind:
		return uint64(o.kind)
	case astral.SettingStorage:
		return uint64(o.storage)
	case astral.SettingRerank:
		return uint64(o.rerank_storage)
	case astral.SettingRerankFactor:
		return uint64(o.rerank_factor)
	case astral.SettingM:
		return uint64(o.hnsw_m)
	case astral.SettingEfConstruction:
		return uint64(o.hnsw_ef_construction)
	case astral.SettingEfSearch:
		return uint64(o.hnsw_ef_search)
	case astral.SettingNList:
		return uint64(o.ivf_nlist)
	case astral.SettingNProbe:
		return uint64(o.ivf_nprobe)
	}
	return uint64(o.flat_limit_bytes)
}

// enterFP gives the export's thread the default floating-point mode for
// the call (the host may have set FTZ/DAZ or another rounding mode): the
// argument of every export's deferred recoverStatus, so it runs at entry.
// The goroutine of a call from C is locked to the host's thread already.
func enterFP() fpenv.Saved { return fpenv.Enter() }

// recoverStatus is deferred by every export that can fail, as
// defer recoverStatus(fn, &st, enterFP()): a panic becomes
// ASTRAL_E_INTERNAL with its message instead of killing the host, and the
// host's floating-point mode is restored.
func recoverStatus(fn string, status *C.AstralStatus, fp fpenv.Saved) {
	if r := recover(); r != nil {
		*status = fail(fn, C.ASTRAL_E_INTERNAL, "internal error (panic): %s", panicText(r))
	}
	fpenv.Leave(fp)
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
