package properties

import (
	stdcmp "cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
	"pgregory.net/rapid"
)

// splitNames are SPLIT_DISTRIBUTE state names whose java.util.HashMap buckets (capacity 16) are
// distinct, so that the iteration order of a HashMap holding any subset of them is the order of
// their bucket indexes, whatever the insertion order (SPEC §E.4).
var splitNames = func() []string {
	var out []string
	used := map[int]bool{}
	for i := 0; len(out) < 5; i++ {
		n := fmt.Sprintf("list-%d", i)
		if b := hashMapBucket(n); !used[b] {
			used[b] = true
			out = append(out, n)
		}
	}
	return out
}()

// hashMapBucket is String.hashCode spread as java.util.HashMap.hash does, in a table of 16.
func hashMapBucket(name string) int {
	h := uint32(model.JavaStringHash(name))
	return int((h ^ h>>16) & 15)
}

var (
	unionNames     = []string{"union-a", "union-b"}
	broadcastNames = []string{"bcast-a", "bcast-b"}
)

// opCase is a generated operator-state repartitioning: old subtasks' handles and the new
// parallelism.
type opCase struct {
	v        model.FlinkVersion
	previous [][]model.OperatorStateHandle
	pNew     int
}

// opElem identifies one partition: (delegate stream, state name, offset).
type opElem struct {
	Delegate, Name string
	Offset         int64
}

func drawOpCase(t *rapid.T, cov *coverage) opCase {
	v := drawVersion(t)
	pOld := rapid.IntRange(1, 12).Draw(t, "P_old")
	pNew := rapid.IntRange(1, 16).Draw(t, "P_new")
	nSplit := rapid.IntRange(0, len(splitNames)).Draw(t, "split names")
	split := rapid.Permutation(splitNames).Draw(t, "split name order")[:nSplit] // insertion order
	nUnion := rapid.IntRange(0, len(unionNames)).Draw(t, "union names")
	nBcast := rapid.IntRange(0, len(broadcastNames)).Draw(t, "broadcast names")
	bcastSize := rapid.IntRange(0, 3).Draw(t, "broadcast entries")
	gaps := rapid.Bool().Draw(t, "subtasks without state") // else every old subtask has every broadcast name
	previous := make([][]model.OperatorStateHandle, pOld)
	unionHandles, bcastMissing := 0, false
	for j := range pOld {
		nh := rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("handles of %d", j))
		if !gaps {
			nh = max(nh, 1)
		}
		for k := range nh {
			h := model.OperatorStateHandle{Delegate: model.StreamHandle{Path: fmt.Sprintf("op-%d-%d", j, k), Size: 100}}
			for _, n := range split {
				if rapid.Bool().Draw(t, "has split") {
					h.States = append(h.States, model.NamedOperatorState{Name: n, Mode: model.SplitDistribute,
						Offsets: seq(rapid.IntRange(0, 6).Draw(t, "split partitions"))})
				}
			}
			for _, n := range unionNames[:nUnion] {
				if rapid.Bool().Draw(t, "has union") {
					h.States = append(h.States, model.NamedOperatorState{Name: n, Mode: model.Union,
						Offsets: seq(rapid.IntRange(0, 4).Draw(t, "union partitions"))})
					unionHandles++
				}
			}
			if k == 0 { // broadcast state: one copy per old subtask, in its first handle
				for _, n := range broadcastNames[:nBcast] {
					if !gaps || rapid.IntRange(0, 4).Draw(t, "broadcast missing") > 0 {
						h.States = append(h.States, model.NamedOperatorState{Name: n, Mode: model.Broadcast, Offsets: seq(bcastSize)})
					} else {
						bcastMissing = true
					}
				}
			}
			previous[j] = append(previous[j], h)
		}
		if nh == 0 && nBcast > 0 {
			bcastMissing = true
		}
	}
	cov.label("flink-" + v.String())
	switch {
	case pNew > pOld:
		cov.label("scale-up")
	case pNew < pOld:
		cov.label("scale-down")
	default:
		cov.label("scale-same")
	}
	cov.labelIf(pNew != pOld && pNew%pOld != 0 && pOld%pNew != 0, "rescale-non-divisor")
	cov.labelIf(nSplit >= 2, "split-several-names")
	cov.labelIf(unionHandles >= 2, "union-several-handles")
	cov.labelIf(nBcast > 0 && bcastMissing, "broadcast-missing-on-some-subtasks")
	cov.labelIf(nBcast > 0 && !bcastMissing, "broadcast-on-all-subtasks")
	return opCase{v: v, previous: previous, pNew: pNew}
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

func requireOpCoverage(cov *coverage) {
	for l, m := range map[string]float64{"flink-1.18": 0.3, "flink-1.10.1": 0.3, "scale-up": 0.2, "scale-down": 0.2, "scale-same": 0.04,
		"rescale-non-divisor": 0.15, "split-several-names": 0.2, "union-several-handles": 0.15,
		"broadcast-missing-on-some-subtasks": 0.1, "broadcast-on-all-subtasks": 0.1} {
		cov.require(l, m)
	}
}

// elems lists a subtask's partitions of the given mode.
func elems(hs []model.OperatorStateHandle, mode model.DistributionMode) []opElem {
	var out []opElem
	for _, h := range hs {
		for _, s := range h.States {
			if s.Mode != mode {
				continue
			}
			for _, o := range s.Offsets {
				out = append(out, opElem{h.Delegate.Path, s.Name, o})
			}
		}
	}
	return out
}

func sortElems(es []opElem) []opElem {
	slices.SortFunc(es, func(a, b opElem) int {
		return stdcmp.Or(stdcmp.Compare(a.Name, b.Name), stdcmp.Compare(a.Delegate, b.Delegate), stdcmp.Compare(a.Offset, b.Offset))
	})
	return es
}

func (c opCase) String() string {
	return fmt.Sprintf("Flink %s, P_old=%d → P_new=%d, previous=%+v", c.v, len(c.previous), c.pNew, c.previous)
}

func repartition(t *rapid.T, c opCase) [][]model.OperatorStateHandle {
	out, err := model.RepartitionOperatorState(c.v, c.previous, c.pNew)
	if err != nil {
		t.Fatalf("RepartitionOperatorState(%v): %v", c, err)
	}
	if len(out) != c.pNew {
		t.Fatalf("RepartitionOperatorState(%v) gave %d subtasks", c, len(out))
	}
	return out
}

// TestOperatorStateRepartition checks RoundRobinOperatorStateRepartitioner's contract (SPEC §E)
// on random handles: every SPLIT_DISTRIBUTE partition exactly once; when the parallelism
// changes, the SPLIT_DISTRIBUTE load per new subtask (all names together) within 1, as Flink's
// CheckpointCoordinatorTest.testPartitionableStateRepartitioning checks over 10,000 runs; UNION
// complete on every new subtask; BROADCAST identical on every new subtask, reporting copy r of
// |E| serving ⌊P_new/|E|⌋ + [r < P_new mod |E|] new subtasks (with every old subtask reporting:
// old subtask s serves ⌊P_new/P_old⌋ + [s < P_new mod P_old]).
func TestOperatorStateRepartition(t *testing.T) {
	cov := newCoverage(t)
	requireOpCoverage(cov)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		c := drawOpCase(t, cov)
		out := repartition(t, c)
		changed := c.pNew != len(c.previous)

		var wantSplit, gotSplit, wantUnion []opElem
		for _, hs := range c.previous {
			wantSplit = append(wantSplit, elems(hs, model.SplitDistribute)...)
			wantUnion = append(wantUnion, elems(hs, model.Union)...)
		}
		minLoad, maxLoad := int(^uint(0)>>1), 0
		for i, hs := range out {
			s := elems(hs, model.SplitDistribute)
			gotSplit = append(gotSplit, s...)
			minLoad, maxLoad = min(minLoad, len(s)), max(maxLoad, len(s))
			if d := cmp.Diff(sortElems(slices.Clone(wantUnion)), sortElems(elems(hs, model.Union))); d != "" && (changed || len(wantUnion) > 0) {
				t.Fatalf("%v: new subtask %d does not hold the complete UNION state (-want +got):\n%s", c, i, d)
			}
		}
		if d := cmp.Diff(sortElems(wantSplit), sortElems(gotSplit)); d != "" {
			t.Fatalf("%v: SPLIT_DISTRIBUTE partitions not handed out exactly once (-want +got):\n%s", c, d)
		}
		if changed && maxLoad-minLoad > 1 {
			t.Fatalf("%v: SPLIT_DISTRIBUTE load per new subtask ranges %d..%d, want within 1", c, minLoad, maxLoad)
		}
		checkBroadcast(t, c, out)
	})
}

func checkBroadcast(t *rapid.T, c opCase, out [][]model.OperatorStateHandle) {
	changed := c.pNew != len(c.previous)
	if !changed && c.v == model.Flink1101 {
		return // 1.10.1 keeps broadcast state as it is at unchanged parallelism (SPEC §E.2)
	}
	for _, name := range broadcastNames {
		var reporters []string // delegates of the reporting copies, in old-subtask order
		var content []int64
		for _, hs := range c.previous {
			for _, h := range hs {
				for _, s := range h.States {
					if s.Name == name {
						reporters = append(reporters, h.Delegate.Path)
						content = s.Offsets
					}
				}
			}
		}
		if len(reporters) == 0 {
			continue
		}
		served := map[string]int{}
		for i, hs := range out {
			var got []string
			for _, h := range hs {
				for _, s := range h.States {
					if s.Name == name {
						if !slices.Equal(s.Offsets, content) && !(len(s.Offsets) == 0 && len(content) == 0) {
							t.Fatalf("%v: new subtask %d's copy of BROADCAST %q has offsets %v, want %v", c, i, name, s.Offsets, content)
						}
						got = append(got, h.Delegate.Path)
					}
				}
			}
			if len(got) == 0 {
				t.Fatalf("%v: new subtask %d did not receive BROADCAST state %q", c, i, name)
			}
			if changed {
				if want := reporters[i%len(reporters)]; len(got) != 1 || got[0] != want {
					t.Fatalf("%v: new subtask %d received BROADCAST %q from %v, want the copy in %s", c, i, name, got, want)
				}
				served[got[0]]++
			}
		}
		if changed {
			for r, d := range reporters {
				want := c.pNew/len(reporters) + b2i(r < c.pNew%len(reporters))
				if served[d] != want {
					t.Fatalf("%v: BROADCAST %q copy %d (%s) serves %d new subtasks, want ⌊%d/%d⌋ + [%d < %d mod %d] = %d",
						c, name, r, d, served[d], c.pNew, len(reporters), r, c.pNew, len(reporters), want)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestOperatorStateSplitReference compares SPLIT_DISTRIBUTE at a changed parallelism bit for
// bit with a reference written from SPEC §E.3–§E.4: names in java.util.HashMap order (here:
// bucket order, the names having distinct buckets), the partitions of each name handed out
// round-robin from a start carried over from the previous name.
func TestOperatorStateSplitReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawOpCase(t, scratchCoverage())
		if c.pNew == len(c.previous) {
			return
		}
		out := repartition(t, c)
		want := referenceSplit(c)
		for i, hs := range out {
			got := sortElems(elems(hs, model.SplitDistribute))
			if d := cmp.Diff(sortElems(want[i]), got); d != "" {
				t.Fatalf("%v: new subtask %d's SPLIT_DISTRIBUTE partitions differ from the reference (-want +got):\n%s", c, i, d)
			}
		}
	})
}

// referenceSplit is SPEC §E.3 step 2 over partitions (zero-offset entries hold nothing to place).
func referenceSplit(c opCase) [][]opElem {
	type entry struct {
		delegate string
		offsets  []int64
	}
	byName := map[string][]entry{}
	var names []string
	for _, hs := range c.previous {
		for _, h := range hs {
			for _, s := range h.States {
				if s.Mode != model.SplitDistribute {
					continue
				}
				if _, ok := byName[s.Name]; !ok {
					names = append(names, s.Name)
				}
				byName[s.Name] = append(byName[s.Name], entry{h.Delegate.Path, s.Offsets})
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return hashMapBucket(a) - hashMapBucket(b) })
	out := make([][]opElem, c.pNew)
	start := 0
	for _, n := range names {
		var all []opElem
		for _, e := range byName[n] {
			for _, o := range e.offsets {
				all = append(all, opElem{e.delegate, n, o})
			}
		}
		base, rem := len(all)/c.pNew, len(all)%c.pNew
		next := 0
		for k := range c.pNew {
			t := (k + start) % c.pNew
			size := base + b2i(k < rem)
			out[t] = append(out[t], all[next:next+size]...)
			next += size
		}
		start = (start + rem) % c.pNew // the first subtask without an extra partition
	}
	return out
}

// TestOperatorStateOrder compares the ORDER of what RepartitionOperatorState hands each new
// subtask — its handles, and each handle's state names — with the oracle's own reference of
// Flink's order (sim/oracle: the iteration order of the java.util.HashMap keyed by the
// delegates' hashCode, each handle's names in its own name map's order; SPEC §E.3 step 5).
// The order is what a restored ListState lists its elements in.
func TestOperatorStateOrder(t *testing.T) {
	cov := newCoverage(t)
	cov.require("order-several-handles", 0.3)
	cov.require("order-several-names", 0.2)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		c := drawOpCase(t, scratchCoverage())
		out := repartition(t, c)
		_, _, want := oracle.RoundRobin(c.v != model.Flink1101, plainOperatorHandles(c.previous), c.pNew)
		several, names := false, false
		for i, hs := range out {
			got := oracle.OrderOf(plainOperatorHandles([][]model.OperatorStateHandle{hs})[0])
			if want[i].Unknown {
				t.Fatalf("%v: the oracle cannot tell new subtask %d's order", c, i)
			}
			if d := cmp.Diff(want[i].Lines("op"), got.Lines("op")); d != "" {
				t.Fatalf("%v: new subtask %d's handles or names not in Flink's order (-want +got):\n%s", c, i, d)
			}
			several = several || got.Len() >= 2
			for _, h := range got.All() {
				names = names || len(h.Names) >= 2
			}
		}
		cov.labelIf(several, "order-several-handles")
		cov.labelIf(names, "order-several-names")
	})
}

// plainOperatorHandles converts handles to the oracle's plain values.
func plainOperatorHandles(prev [][]model.OperatorStateHandle) [][]oracle.OperatorHandle {
	out := make([][]oracle.OperatorHandle, len(prev))
	modes := map[model.DistributionMode]oracle.Mode{model.SplitDistribute: oracle.SplitDistribute, model.Union: oracle.Union, model.Broadcast: oracle.Broadcast}
	for j, hs := range prev {
		for _, h := range hs {
			oh := oracle.OperatorHandle{Stream: h.Delegate.Path}
			for _, s := range h.States {
				oh.States = append(oh.States, oracle.NamedList{Name: s.Name, Mode: modes[s.Mode], Offsets: s.Offsets})
			}
			out[j] = append(out[j], oh)
		}
	}
	return out
}
