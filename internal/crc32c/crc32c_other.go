//go:build !amd64 || noasm

package crc32c

func update(crc uint32, p []byte) uint32 { return updateGeneric(crc, p) }
