package file

import (
	"errors"
	"io/fs"
	"os"
)

// Index files are regular files. A path naming anything else is refused
// before it is opened for reading or replaced by a save: opening a FIFO
// blocks until a writer comes, and renaming over a device node, a socket
// or a symbolic link would silently turn it into a regular file.

// NewFileMode is the permission of a file SaveFile creates where none was.
const NewFileMode fs.FileMode = 0o644

// fileKind names what a non-regular file is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// notRegular is the error for a path that is not a regular file.
func notRegular(path string, m fs.FileMode, what string) error {
	return Errorf(ErrIO, "%s is %s: %s", path, fileKind(m), what)
}

// SaveTarget checks what SaveFile would replace at path and returns the
// permission the new file gets: that of the regular file there (a 0600
// file stays 0600), or newFileMode where there is none. Anything else,
// a symbolic link included, is refused: the link is not followed, so a
// save never writes outside the directory it names.
func SaveTarget(path string) (fs.FileMode, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return NewFileMode, nil
	case err != nil:
		return 0, Errorf(ErrIO, "%v", err)
	case !fi.Mode().IsRegular():
		return 0, notRegular(path, fi.Mode(), "only a regular file is replaced by a save (nothing was written)")
	}
	return fi.Mode().Perm(), nil
}

// OpenRegular opens path for reading if it is a regular file (a
// symbolic link to one is followed). The check happens before the open,
// so a device is never opened, and again on the open file, so a path
// swapped in between is caught too; openNonBlocking keeps a FIFO swapped
// in from blocking the open.
func OpenRegular(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	} else if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode(), "only a regular file is loaded")
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(path, fi.Mode(), "only a regular file is loaded")
	} else if err != nil {
		err = Errorf(ErrIO, "%v", err)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
