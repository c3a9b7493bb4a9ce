package fpenv

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// tiny is a float32 denormal; a variable so the compiler cannot fold it.
var tiny float32 = 1e-40

func TestEnterGivesDefaultModeAndLeaveRestores(t *testing.T) {
	if !Supported {
		t.Skip("no MXCSR on this architecture")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := GetMXCSR()
	defer SetMXCSR(saved)
	for _, host := range []uint32{0x1F80, 0x1F80 | FTZ, 0x1F80 | DAZ, 0x1F80 | FTZ | DAZ, 0x1F80 | FTZ | DAZ | 3<<13} {
		SetMXCSR(host)
		s := Enter()
		require.Equal(t, uint32(0x1F80), GetMXCSR()&0xFFC0, "mode inside, host %#x", host)
		require.Equal(t, float32(5e-41), tiny/2, "denormal arithmetic inside, host %#x", host)
		Leave(s)
		require.Equal(t, host, GetMXCSR()&0xFFC0, "host mode restored")
	}
}

// Enter nests: the inner Leave leaves the outer mode in place.
func TestEnterNests(t *testing.T) {
	if !Supported {
		t.Skip("no MXCSR on this architecture")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := GetMXCSR()
	defer SetMXCSR(saved)
	SetMXCSR(0x1F80 | FTZ | DAZ)
	outer := Enter()
	inner := Enter()
	Leave(inner)
	require.Equal(t, uint32(0x1F80), GetMXCSR()&0xFFC0)
	Leave(outer)
	require.Equal(t, 0x1F80|FTZ|DAZ, GetMXCSR()&0xFFC0)
}

func BenchmarkEnterLeave(b *testing.B) {
	for b.Loop() {
		Leave(Enter())
	}
}

// BenchmarkEnterLeaveFromFTZ is Enter and Leave on a thread a host left
// with FTZ|DAZ: both then write the register.
func BenchmarkEnterLeaveFromFTZ(b *testing.B) {
	if !Supported {
		b.Skip("no MXCSR on this architecture")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := GetMXCSR()
	defer SetMXCSR(saved)
	SetMXCSR(saved | FTZ | DAZ)
	for b.Loop() {
		Leave(Enter())
	}
}
