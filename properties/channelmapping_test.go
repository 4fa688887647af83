package properties

import (
	"errors"
	"slices"
	"testing"

	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

// channelRangeMaxParallelism is the max parallelism RANGE maps with
// (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM), spelt out here rather than taken from
// the model.
const channelRangeMaxParallelism = 1 << 15

// readsOld is the test's own reading of Flink's SubtaskStateMapper (release-1.18, unchanged
// through master): whether new subtask n of newP reads the in-flight data of old subtask o of
// oldP when the partitioner's mapper is m.
//
//   - ROUND_ROBIN, and ARBITRARY ("the current implementation uses round robin"): o mod newP = n.
//   - FIRST: new subtask 0 reads every old subtask.
//   - FULL: every new subtask reads every old subtask.
//   - RANGE: the key-group ranges of o (of oldP) and n (of newP) at max parallelism 32768
//     overlap, a range of subtask i of p being [⌈i·M/p⌉, ⌈(i+1)·M/p⌉−1].
func readsOld(m model.SubtaskStateMapper, oldP, newP, n, o int) bool {
	switch m.String() {
	case "ROUND_ROBIN", "ARBITRARY":
		return o%newP == n
	case "FIRST":
		return n == 0
	case "FULL":
		return true
	case "RANGE":
		const maxPar = channelRangeMaxParallelism
		ceilDiv := func(a, b int) int { return (a + b - 1) / b }
		oStart, oEnd := ceilDiv(o*maxPar, oldP), ceilDiv((o+1)*maxPar, oldP)-1
		nStart, nEnd := ceilDiv(n*maxPar, newP), ceilDiv((n+1)*maxPar, newP)-1
		return oStart <= nEnd && nStart <= oEnd
	}
	panic("readsOld: no reference for " + m.String())
}

// referenceOldSubtasks is the ascending list of old subtasks new subtask n reads.
func referenceOldSubtasks(m model.SubtaskStateMapper, oldP, newP, n int) []int {
	var out []int
	for o := range oldP {
		if readsOld(m, oldP, newP, n, o) {
			out = append(out, o)
		}
	}
	return out
}

// TestChannelStateMapping: for every mapper and old/new parallelisms up to 300,
// SubtaskStateMapper.NewToOldSubtasksMapping gives every new subtask exactly the old subtasks
// the test's own reading of Flink's rules gives (readsOld), in ascending order; every old
// subtask (channel) is read by some new subtask; each by exactly one unless the mapper is
// ambiguous (FULL, RANGE), and then the mapping's ambiguous targets are exactly the old
// subtasks read more than once; the inverted mapping lists, for each old subtask, its readers;
// the mapping is an identity exactly when each new subtask below oldP reads only itself and the
// others nothing; UNSUPPORTED always fails with ErrUnsupportedRescale. Larger parallelisms (up
// to 32768) are checked on a few sampled new subtasks for every mapper but FULL.
func TestChannelStateMapping(t *testing.T) {
	cov := newCoverage(t)
	cov.require("scale-up", 0.2)
	cov.require("scale-down", 0.2)
	cov.require("same-parallelism", 0.05)
	cov.require("range-ambiguous", 0.05)
	cov.require("large", 0.05)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		// RANGE, the one mapper with both unique and shared old subtasks, is drawn twice as often.
		m := rapid.SampledFrom(append(model.SubtaskStateMappers(), model.RangeMapper)).Draw(t, "mapper")
		large := m.String() != "FULL" && rapid.IntRange(0, 9).Draw(t, "large?") == 0
		bound := 300
		if large {
			bound = channelRangeMaxParallelism
		}
		par := rapid.OneOf(rapid.IntRange(1, 12), rapid.IntRange(1, bound))
		oldP := par.Draw(t, "old")
		newP := rapid.OneOf(par, par, par, rapid.Just(oldP), rapid.Just(min(bound, 2*oldP)), rapid.Just(max(1, oldP/2))).Draw(t, "new")
		cov.labelIf(newP > oldP, "scale-up")
		cov.labelIf(newP < oldP, "scale-down")
		cov.labelIf(newP == oldP, "same-parallelism")
		cov.labelIf(large, "large")

		got, err := m.NewToOldSubtasksMapping(oldP, newP)
		if m.String() == "UNSUPPORTED" {
			var ue *model.UnsupportedRescaleError
			if !errors.Is(err, model.ErrUnsupportedRescale) || !errors.As(err, &ue) {
				t.Fatalf("UNSUPPORTED %d→%d: %v, want ErrUnsupportedRescale", oldP, newP, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v %d→%d: %v", m, oldP, newP, err)
		}
		if got.NumberOfSources() != newP || got.NumberOfTargets() != oldP {
			t.Fatalf("%v %d→%d: %d sources, %d targets", m, oldP, newP, got.NumberOfSources(), got.NumberOfTargets())
		}
		if wantAmb := m.String() == "FULL" || m.String() == "RANGE"; m.IsAmbiguous() != wantAmb {
			t.Fatalf("%v.IsAmbiguous() = %v, want %v", m, m.IsAmbiguous(), wantAmb)
		}
		if large {
			for _, n := range []int{0, newP - 1, rapid.IntRange(0, newP-1).Draw(t, "n"), rapid.IntRange(0, newP-1).Draw(t, "n2")} {
				if g, w := got.MappedIndexes(n), referenceOldSubtasks(m, oldP, newP, n); !slices.Equal(g, w) {
					t.Fatalf("%v %d→%d: new subtask %d reads old %v, Flink's rule says %v", m, oldP, newP, n, g, w)
				}
			}
			return
		}

		readers := make([][]int, oldP) // old subtask → the new subtasks that read it
		identity := newP >= oldP
		for n := range newP {
			want := referenceOldSubtasks(m, oldP, newP, n)
			if g := got.MappedIndexes(n); !slices.Equal(g, want) {
				t.Fatalf("%v %d→%d: new subtask %d reads old %v, Flink's rule says %v", m, oldP, newP, n, g, want)
			}
			for _, o := range want {
				readers[o] = append(readers[o], n)
			}
			if n < oldP && !slices.Equal(want, []int{n}) || n >= oldP && len(want) > 0 {
				identity = false
			}
		}
		var ambiguous []int
		for o, rs := range readers {
			if len(rs) == 0 {
				t.Fatalf("%v %d→%d: the in-flight data of old subtask %d is read by no new subtask (dropped)", m, oldP, newP, o)
			}
			if len(rs) > 1 {
				if !m.IsAmbiguous() {
					t.Fatalf("%v %d→%d: old subtask %d read by %v, but the mapper is not ambiguous (duplicated)", m, oldP, newP, o, rs)
				}
				ambiguous = append(ambiguous, o)
			}
		}
		cov.labelIf(m.String() == "RANGE" && len(ambiguous) > 0, "range-ambiguous")
		if g := got.AmbiguousTargets(); !slices.Equal(g, ambiguous) {
			t.Fatalf("%v %d→%d: AmbiguousTargets %v, want %v", m, oldP, newP, g, ambiguous)
		}
		inv := got.Invert()
		for o, rs := range readers {
			if g := inv.MappedIndexes(o); !slices.Equal(g, rs) {
				t.Fatalf("%v %d→%d: inverted, old subtask %d goes to %v, want %v", m, oldP, newP, o, g, rs)
			}
		}
		if got.IsIdentity() != identity {
			t.Fatalf("%v %d→%d: IsIdentity %v, want %v", m, oldP, newP, got.IsIdentity(), identity)
		}
	})
}
