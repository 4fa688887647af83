package properties

import (
	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

// Generators shared by the properties. They draw the structure (parallelisms, handles, steps)
// so that rapid shrinks towards small jobs.

var versions = []model.FlinkVersion{model.Flink118, model.Flink1101}

func drawVersion(t *rapid.T) model.FlinkVersion {
	return rapid.SampledFrom(versions).Draw(t, "version")
}

// drawMaxParallelism draws a max parallelism, mostly small, sometimes up to Flink's bound.
func drawMaxParallelism(t *rapid.T, label string) int {
	return rapid.OneOf(rapid.IntRange(1, 300), rapid.SampledFrom([]int{128, 360, 1000, 4096, 32768}),
		rapid.IntRange(1, model.UpperBoundMaxParallelism)).Draw(t, label)
}

// drawParallelism draws 1..maxPar, mostly small.
func drawParallelism(t *rapid.T, maxPar int, label string) int {
	return rapid.OneOf(rapid.IntRange(1, min(maxPar, 16)), rapid.IntRange(1, maxPar)).Draw(t, label)
}

// ownerOf is the test's own owner computation, from the range definition of SPEC §C: the i with
// ⌈i·M/p⌉ ≤ kg ≤ ⌈(i+1)·M/p⌉−1, by linear search over the boundaries.
func ownerOf(kg, maxPar, par int) int {
	for i := range par {
		if kg <= ((i+1)*maxPar+par-1)/par-1 {
			return i
		}
	}
	return -1
}

// rangeOf is the test's own range of subtask i: [⌈i·M/p⌉, ⌈(i+1)·M/p⌉−1].
func rangeOf(maxPar, par, i int) (start, end int) {
	return (i*maxPar + par - 1) / par, ((i+1)*maxPar+par-1)/par - 1
}

func mustRange(t interface{ Fatalf(string, ...any) }, maxPar, par, i int) model.KeyGroupRange {
	r, err := model.ComputeKeyGroupRangeForOperatorIndex(maxPar, par, i)
	if err != nil {
		t.Fatalf("ComputeKeyGroupRangeForOperatorIndex(%d, %d, %d): %v", maxPar, par, i, err)
	}
	return r
}
