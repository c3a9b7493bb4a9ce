//go:build !race

package testsize

// Race: built with -race.
const Race = false
