package flat

import "unsafe"

func addr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
