//go:build !amd64 || noasm

package crc32c

type testImpl struct {
	name string
	set  func() (restore func())
}

func testImpls() []testImpl {
	return []testImpl{{"generic", func() func() { return func() {} }}}
}
