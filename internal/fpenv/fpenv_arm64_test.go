package fpenv

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnterClearsFPCR(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := GetFPCR()
	defer SetFPCR(saved)
	SetFPCR(FZ)
	require.Equal(t, FZ, GetFPCR())
	require.Zero(t, tiny/2, "FZ flushes the denormal result")
	s := Enter()
	require.Zero(t, GetFPCR())
	require.Equal(t, float32(5e-41), tiny/2)
	Leave(s)
	require.Equal(t, FZ, GetFPCR())
}
