//go:build windows

package file

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapFile maps the first size bytes of f read-only; mapped is true. The
// view holds the section (and so the file) open after f and the mapping
// handle are closed, until unmapFile.
func mapFile(f *os.File, size int) (data []byte, mapped bool, err error) {
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY,
		uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil, false, os.NewSyscallError("CreateFileMapping", err)
	}
	defer windows.CloseHandle(h)
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	if err != nil {
		return nil, false, os.NewSyscallError("MapViewOfFile", err)
	}
	// unsafe.Add keeps the address a pointer for vet: the view is no Go
	// memory, so the collector neither moves nor frees it.
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), addr)), size), true, nil
}

func unmapFile(data []byte) error {
	if err := windows.UnmapViewOfFile(uintptr(unsafe.Pointer(unsafe.SliceData(data)))); err != nil {
		return os.NewSyscallError("UnmapViewOfFile", err)
	}
	return nil
}

// syncDir is a no-op: directories cannot be synced on Windows, where the
// rename itself is durable.
func syncDir(string) error { return nil }

// ReplaceBlockedByMapping: Windows refuses to replace or delete a file
// while a view of it is mapped.
const ReplaceBlockedByMapping = true
