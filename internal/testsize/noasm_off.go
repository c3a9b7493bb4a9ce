//go:build !noasm

package testsize

// NoAsm: built with -tags noasm (the pure-Go kernels and CRC-32C).
const NoAsm = false
