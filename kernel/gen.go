package kernel

// The amd64 kernels (*_amd64.s, asm_amd64.go) are written by kernel/_gen,
// its own module; `make check-gen` fails when they differ from its output.
//go:generate go run -C _gen . -out ..
