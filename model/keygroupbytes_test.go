package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeyGroupBytes: offset 0 is an empty key group; any other runs to the next larger offset
// of the handle (zeros between non-zero offsets are skipped), the last to the stream's end.
func TestKeyGroupBytes(t *testing.T) {
	for _, c := range []struct {
		name    string
		offsets []int64
		size    int64
		want    []int64
	}{
		{"none", []int64{}, 10, []int64{}},
		{"one", []int64{4}, 10, []int64{6}},
		{"ascending", []int64{4, 7, 9}, 10, []int64{3, 2, 1}},
		{"first empty", []int64{0, 16}, 1161, []int64{0, 1145}},
		{"zeros between", []int64{5, 0, 0, 12, 0, 30}, 40, []int64{7, 0, 0, 18, 0, 10}},
		{"last empty", []int64{5, 12, 0}, 40, []int64{7, 28, 0}},
		{"all empty", []int64{0, 0, 0}, 40, []int64{0, 0, 0}},
		{"same offset twice", []int64{5, 5, 9}, 12, []int64{4, 4, 3}},
		{"decreasing", []int64{9, 5, 0, 7}, 12, []int64{3, 2, 0, 2}},
		{"past the end", []int64{5, 50}, 40, []int64{35, 0}},
		{"at the end", []int64{5, 40}, 40, []int64{35, 0}},
		{"negative", []int64{-3, 5}, 40, []int64{0, 35}},
	} {
		if got := KeyGroupBytes(c.offsets, c.size); !slices.Equal(got, c.want) {
			t.Errorf("%s: KeyGroupBytes(%v, %d) = %v, want %v", c.name, c.offsets, c.size, got, c.want)
		}
	}
}

// TestKeyGroupBytesAgainstScan compares KeyGroupBytes with the rule read literally (scan every
// offset for the smallest larger one) over random offsets, sorted or not, with zeros and ties.
func TestKeyGroupBytesAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	scan := func(offs []int64, size int64) []int64 {
		out := make([]int64, len(offs))
		for i, o := range offs {
			if o <= 0 {
				continue
			}
			end := size
			for _, p := range offs {
				if p > o && p < end {
					end = p
				}
			}
			out[i] = max(0, end-o)
		}
		return out
	}
	for range 20000 {
		n := rng.IntN(12)
		size := int64(rng.IntN(60))
		offs := make([]int64, n)
		for i := range offs {
			switch rng.IntN(4) {
			case 0: // an empty key group
			default:
				offs[i] = int64(rng.IntN(70)) - 2
			}
		}
		if rng.IntN(2) == 0 { // as Flink writes them: not decreasing apart from the zeros
			slices.Sort(offs)
			rng.Shuffle(n, func(i, j int) {
				if offs[i] == 0 || offs[j] == 0 {
					offs[i], offs[j] = offs[j], offs[i]
				}
			})
		}
		in := slices.Clone(offs)
		if got, want := KeyGroupBytes(offs, size), scan(offs, size); !slices.Equal(got, want) {
			t.Fatalf("KeyGroupBytes(%v, %d) = %v, want %v", offs, size, got, want)
		}
		if !slices.Equal(in, offs) {
			t.Fatalf("KeyGroupBytes changed its offsets: %v, was %v", offs, in)
		}
	}
}
