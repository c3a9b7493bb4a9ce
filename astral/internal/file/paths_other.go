//go:build !unix

package file

import "os"

// openNonBlocking opens path read-only; without FIFOs opened by path
// there is nothing to wait for.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
