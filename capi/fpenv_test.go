package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fpenv"
)

// The header's metric values (the tests cannot use cgo).
const (
	metricCosine = 1
	metricDot    = 2
)

// fpModes are the host modes the exports must be immune to.
var fpModes = []struct {
	name string
	bits uint32
}{{"default", 0}, {"FTZ", fpenv.FTZ}, {"DAZ", fpenv.DAZ}, {"FTZ|DAZ", fpenv.FTZ | fpenv.DAZ}}

// withFPMode runs f with the calling (locked) thread's MXCSR set as a host
// would leave it, and puts the default back.
func withFPMode(t *testing.T, bits uint32, f func()) {
	t.Helper()
	saved := fpenv.GetMXCSR()
	fpenv.SetMXCSR(saved&^(fpenv.FTZ|fpenv.DAZ) | bits)
	defer fpenv.SetMXCSR(saved)
	f()
	require.Equal(t, bits, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ), "the exports restore the host's mode")
}

// fpData is rows and queries of every magnitude that a mode could change:
// ordinary, tiny (products and squares underflow), denormal, and rows with
// a few denormal components among ordinary ones.
func fpData(dim, n, nq int) (rows, queries []float32) {
	r := rand.New(rand.NewPCG(16, 1))
	gen := func(count int) []float32 {
		v := make([]float32, count*dim)
		for i := range count {
			row := v[i*dim : (i+1)*dim]
			scale := []float64{1, 1e-20, 1e-30, 1e-39, 1e-41}[i%5]
			for j := range row {
				row[j] = float32(r.NormFloat64() * scale)
			}
			if i%7 == 3 {
				row[r.IntN(dim)] = 1e-40 // a denormal among ordinary values
			}
		}
		return v
	}
	return gen(n), gen(nq)
}

// fpRun is one full pass through the C ABI for one configuration: it
// returns a hash of every query's ids and score bits and the saved bytes.
func fpRun(t *testing.T, o options, rows, queries []float32, n, nq int) [32]byte {
	t.Helper()
	const k = 10
	dim := int(o.dim)
	h, st := createIndex(o)
	require.Equal(t, stOK, st, lastError())
	defer destroyIndex(h)
	half := n / 2
	require.Equal(t, stOK, addVectors(h, ids(1, half), rows[:half*dim]), lastError())
	require.Equal(t, stOK, addVectors(h, ids(1+half, n-half), rows[half*dim:]), lastError())
	sum := sha256.New()
	put := func(res []astral.Result) {
		for _, x := range res {
			sum.Write(binary.LittleEndian.AppendUint64(nil, x.ID))
			sum.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x.Score)))
		}
	}
	for i := range nq {
		res, st := query(h, queries[i*dim:(i+1)*dim], k, k)
		require.Equal(t, stOK, st, lastError())
		put(res)
	}
	batch, st := queryBatch(h, queries, nq, dim, k, nq*k)
	require.Equal(t, stOK, st, lastError())
	for _, res := range batch {
		put(res)
	}
	_, size, st := saveBuffer(h, 0)
	require.Equal(t, stBufferTooSmall, st)
	saved, _, st := saveBuffer(h, size)
	require.Equal(t, stOK, st, lastError())
	sum.Write(saved)
	return [32]byte(sum.Sum(nil))
}

// TestFPModeCannotChangeResults: every kind, metric and storage gives the
// same ids, score bits and saved bytes whatever FTZ/DAZ the calling
// thread has (issue 16, finding 1).
func TestFPModeCannotChangeResults(t *testing.T) {
	if !fpenv.Supported {
		t.Skip("no MXCSR on this architecture")
	}
	testsize.SkipUnderRace(t, "the FP mode is the calling thread's register, no shared memory; the plain and noasm runs prove it")
	lockThread(t)
	withRuntime(t, 2)
	const dim, n, nq = 12, 160, 20
	rows, queries := fpData(dim, n, nq)
	for _, kind := range []uint32{kindFlat, kindHNSW} {
		for _, metric := range []uint32{metricCosine, metricDot, metricL2} {
			for storage := uint32(storageE5M2); storage <= storageF32; storage++ {
				o := options{dim: dim, kind: kind, metric: metric, storage: storage, m: 8, efc: 32}
				t.Run(fmt.Sprintf("kind=%d/metric=%d/storage=%d", kind, metric, storage), func(t *testing.T) {
					lockThread(t) // a subtest is a goroutine of its own
					want := fpRun(t, o, rows, queries, n, nq)
					for _, m := range fpModes[1:] {
						var got [32]byte
						withFPMode(t, m.bits, func() { got = fpRun(t, o, rows, queries, n, nq) })
						require.Equal(t, want, got, "under %s", m.name)
					}
				})
			}
		}
	}
}

// TestFPModeReproducers are the reproducers, in every mode.
func TestFPModeReproducers(t *testing.T) {
	if !fpenv.Supported {
		t.Skip("no MXCSR on this architecture")
	}
	lockThread(t)
	withRuntime(t, 1)
	newFlat := func(metric, storage uint32) uint64 {
		h, st := createIndex(options{dim: 4, kind: kindFlat, metric: metric, storage: storage})
		require.Equal(t, stOK, st, lastError())
		return h
	}
	for _, m := range fpModes {
		withFPMode(t, m.bits, func() {
			// Cosine: the denormal query points along (1,0,0,0).
			h := newFlat(metricCosine, storageF32)
			require.Equal(t, stOK, addVectors(h, []uint64{1, 2}, []float32{0, 1, 0, 0, 1, 0, 0, 0}))
			res, st := query(h, []float32{1e-39, 0, 0, 0}, 1, 1)
			require.Equal(t, stOK, st)
			require.Equal(t, []astral.Result{{ID: 2, Score: 1}}, res, "cosine under %s", m.name)
			require.Equal(t, stOK, destroyIndex(h))

			// L2: the distance 4e-40 is a denormal, not 0.
			h = newFlat(metricL2, storageF32)
			require.Equal(t, stOK, addVectors(h, []uint64{1}, []float32{0, 0, 0, 0}))
			res, st = query(h, []float32{1e-20, 1e-20, 1e-20, 1e-20}, 1, 1)
			require.Equal(t, stOK, st)
			require.Len(t, res, 1)
			// Bits only: the test's own float64(score) would read 0 under DAZ.
			require.Equal(t, math.Float32bits(4.00001e-40), math.Float32bits(res[0].Score), "L2 under %s", m.name)

			require.Equal(t, stOK, destroyIndex(h))

			// A denormal vector added under the mode is not stored as zero:
			// normalised, it is (1,0,0,0).
			h = newFlat(metricCosine, storageF32)
			require.Equal(t, stOK, addVectors(h, []uint64{7}, []float32{1e-39, 0, 0, 0}))
			res, st = query(h, []float32{1, 0, 0, 0}, 1, 1)
			require.Equal(t, stOK, st)
			require.Equal(t, []astral.Result{{ID: 7, Score: 1}}, res, "stored under %s", m.name)
			require.Equal(t, stOK, destroyIndex(h))
		})
	}
}
