package oracle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestExpectPlannedBytes: a key group's bytes run to the next larger offset of its old handle
// (an empty key group shares its offset with the next one), the last one's to the stream's end;
// an operator-state entry's likewise over the offsets of every name of its handle.
func TestExpectPlannedBytes(t *testing.T) {
	kg := KeyedHandle{Stream: "k0", Start: 0, End: 3, Offsets: []int64{8, 24, 24, 56}}
	op := OperatorHandle{Stream: "o0", States: []NamedList{
		{Name: "a", Mode: SplitDistribute, Offsets: []int64{8, 24}},
		{Name: "b", Mode: SplitDistribute, Offsets: []int64{40}},
	}}
	stored := []StoredOperator{{ID: "x", Parallelism: 1, MaxParallelism: 4,
		Subtasks: []*SubtaskState{{ManagedKeyed: []KeyedHandle{kg}, ManagedOperator: []OperatorHandle{op}}}}}
	sizes := Sizes{"k0": 72, "o0": 48}
	got := ExpectPlanned(true, stored, sizes, []NewVertex{{Parallelism: 2, MaxParallelism: 4, Operators: []NewOperator{{Generated: "x"}}}})
	// Subtask 0: key groups 0–1 (16 + 32 bytes: group 1 runs from 24 past the empty group 2 to 56).
	// Subtask 1: key groups 2–3 (32 + 16 bytes).
	want0 := []PlannedKeyed{{OldSubtask: 0, Start: 0, End: 1, Bytes: 16 + 32}}
	want1 := []PlannedKeyed{{OldSubtask: 0, Start: 2, End: 3, Bytes: 32 + 16}}
	if g := got[0][0]["x"].ManagedKeyed; !slices.Equal(g, want0) {
		t.Errorf("subtask 0 keyed: got %v, want %v", g, want0)
	}
	if g := got[0][1]["x"].ManagedKeyed; !slices.Equal(g, want1) {
		t.Errorf("subtask 1 keyed: got %v, want %v", g, want1)
	}
	// Three SPLIT_DISTRIBUTE elements over 2 subtasks: a's two in name order, b's one.
	var entries int
	var bytes int64
	for i := range 2 {
		for _, pe := range got[0][i]["x"].ManagedOperator {
			entries += len(pe.Pairs)
			bytes += pe.Bytes
		}
	}
	if entries != 3 || bytes != 16+16+8 {
		t.Errorf("operator state: %d entries, %d bytes; want 3 entries, 40 bytes (a: 16+16, b to the stream's end: 8)", entries, bytes)
	}
}

// TestExpectOperatorsJudgesEach: a refusal of one operator state leaves the others judged: the
// keyed state without an operator is refused, the source still restored.
func TestExpectOperatorsJudgesEach(t *testing.T) {
	old := Shape{SourceUID: "source", KeyedUID: "keyed", SourceMax: 128, KeyedMax: 128}
	j := Job{Source: Vertex{Name: "source", Parallelism: 2, UIDs: []string{"source"}},
		Keyed: Vertex{Name: "keyed", Parallelism: 2, UIDs: []string{"keyed-2"}}}
	vs, rest, ok := ExpectOperators(old, j, false)
	if !ok || !rest.Accept {
		t.Fatalf("ok %v, rest %+v: want judged, the rest accepted", ok, rest)
	}
	want := []OperatorVerdict{{UID: "source", Status: Restored, Vertex: 0, MaxParallelism: 128}, {UID: "keyed", Status: Refused, Reason: NonRestoredState}}
	if !slices.Equal(vs, want) {
		t.Errorf("got %v, want %v", vs, want)
	}
}

// TestRunBytes: the walk over a handle's offsets sums what elementEnd gives each, for offsets
// in order, with repeats and a step back.
func TestRunBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for c := range 500 {
		offs := make([]int64, 1+rng.IntN(40))
		at := int64(0)
		for k := range offs {
			if rng.IntN(6) == 0 {
				offs[k] = int64(rng.IntN(int(at) + 1)) // a step back
			} else {
				at += int64(rng.IntN(20))
				offs[k] = at
			}
		}
		sorted := slices.Clone(offs)
		slices.Sort(sorted)
		size := at + int64(rng.IntN(30))
		var want int64
		for _, off := range offs {
			want += elementEnd(sorted, off, size) - off
		}
		if got := runBytes(sorted, offs, size); got != want {
			t.Fatalf("case %d: offsets %v, size %d: %d bytes, want %d", c, offs, size, got, want)
		}
	}
}
