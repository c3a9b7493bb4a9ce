//go:build race

package hnsw

// raceEnabled: checkptr (on under -race) refuses the misaligned column
// TestAttrsPartsRoundTrip builds.
const raceEnabled = true
