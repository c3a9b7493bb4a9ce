package astral

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is. The C ABI maps each to a status.
var (
	ErrInvalidArgument = errors.New("astral: invalid argument")
	ErrDimension       = errors.New("astral: dimension mismatch")
	ErrNonFinite       = errors.New("astral: non-finite value")
	ErrDuplicateID     = errors.New("astral: duplicate id")
	ErrNotFound        = errors.New("astral: id not found")
)

// errorf wraps a sentinel with detail, keeping errors.Is working.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
