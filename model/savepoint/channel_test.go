package savepoint

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// The plan of a real unaligned checkpoint (Flink 1.17's new-stateful-udf migration test, whose
// operator d5c8b168… holds 4 result-subpartition handles on each of its 4 subtasks) shows the
// channel state of every new subtask: at P=2 behind the assumed keyBy (HASH: ARBITRARY upstream,
// i.e. round robin) new subtask i reads the handles of old subtasks i and i+2, each handle
// exactly once, with a RESCALING output descriptor; at the old parallelism every subtask keeps
// its own handles and NO_RESCALE; behind a FORWARD edge the rescale is refused.
func TestPlanChannelStateOfRealCheckpoint(t *testing.T) {
	sp := openReal(t, "new-stateful-udf-migration-itcase-flink1.17-rocksdb-checkpoint.metadata")
	const op = "d5c8b168c6cbfe8c507a10f88b325243"
	// The handles of the file, by old subtask: bytes, independent of the model.
	var fileBytes [4]int64
	handles := 0
	for i := range sp.File.Operators {
		if sp.File.Operators[i].ID.String() != op {
			continue
		}
		for _, st := range sp.File.Operators[i].Subtasks {
			for _, c := range st.OutputChannels {
				fileBytes[c.SubtaskIndex] += c.StateSize
				handles++
			}
		}
	}
	if handles != 16 {
		t.Fatalf("%d result-subpartition handles in the file, want 16", handles)
	}
	find := func(pl *RestorePlan) *OperatorPlan {
		for i := range pl.Operators {
			if pl.Operators[i].OperatorID == op {
				return &pl.Operators[i]
			}
		}
		t.Fatalf("operator %s not planned", op)
		return nil
	}
	for _, p := range []int{2, 4} {
		pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: p})
		if err != nil || !pl.Restorable {
			t.Fatalf("P=%d: plan %v, restorable %v", p, err, pl.Restorable)
		}
		o := find(pl)
		if !slices.ContainsFunc(o.Notes, func(n string) bool { return strings.Contains(n, "planned as a HASH edge") }) {
			t.Errorf("P=%d: notes %q do not say what the planner assumes", p, o.Notes)
		}
		seen := map[[3]int]bool{}
		for _, s := range o.Subtasks {
			var want int64
			var wantOld []int
			for old := s.Index; old < 4; old += p {
				want += fileBytes[old]
				wantOld = append(wantOld, old)
			}
			var gotOld []int
			for _, c := range s.ResultSubpartitionState {
				key := [3]int{c.OldSubtask, c.GateOrPartition, c.Channel}
				if seen[key] {
					t.Errorf("P=%d: handle %v read twice", p, key)
				}
				seen[key] = true
				if !slices.Contains(gotOld, c.OldSubtask) {
					gotOld = append(gotOld, c.OldSubtask)
				}
			}
			if s.ChannelStateBytes != want || !slices.Equal(gotOld, wantOld) || len(s.InputChannelState) != 0 {
				t.Errorf("P=%d subtask %d: %d bytes from old subtasks %v, want %d from %v", p, s.Index, s.ChannelStateBytes, gotOld, want, wantOld)
			}
			d := s.OutputRescaling
			if (p == 4) != (d == nil) || (d != nil && !slices.Equal(d.OldSubtaskIndexes(0), wantOld)) {
				t.Errorf("P=%d subtask %d: output descriptor %v, want old subtasks %v (NO_RESCALE at P=4)", p, s.Index, d, wantOld)
			}
		}
		if len(seen) != 16 {
			t.Errorf("P=%d: %d of 16 handles planned", p, len(seen))
		}
		var b strings.Builder
		if err := pl.WriteText(&b); err != nil || strings.Contains(b.String(), "result subpartitions: partition 0: 8 handles from old subtasks [0 2]") != (p == 2) {
			t.Errorf("P=%d: text does not show the channel state:\n%s", p, b.String())
		}
		js, err := json.Marshal(pl)
		if err != nil || !strings.Contains(string(js), `"result_subpartition_state":[{"old_subtask":`) {
			t.Errorf("P=%d: JSON %v lacks result_subpartition_state", p, err)
		}
	}
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2, ChannelPartitioner: model.ForwardPartitioner})
	if err != nil || pl.Restorable || pl.Check == nil || *pl.Check != model.CheckChannelStateUnsupportedRescale {
		t.Errorf("FORWARD at P=2: %v, restorable %v, check %v; want the unsupported-rescale refusal", err, pl.Restorable, pl.Check)
	}
}

// A job file's inputs become the vertices' edges, the result partitions of a vertex numbered in
// file order; an unknown vertex, the vertex itself or an unknown partitioner is an error naming
// the field.
func TestJobFileInputs(t *testing.T) {
	one := 1
	v := func(name string, ins ...JobFileInput) JobFileVertex {
		uid := "op-" + name
		return JobFileVertex{Name: name, Parallelism: &one, Operators: []JobFileOperator{{UID: &uid}}, Inputs: ins}
	}
	jf := JobFile{Vertices: []JobFileVertex{v("a"), v("b", JobFileInput{From: "a", Partitioner: "HASH"}),
		v("c", JobFileInput{From: "a", Partitioner: "RESCALE"}, JobFileInput{From: "b", Partitioner: "CUSTOM"})}}
	vs, err := jf.Validate(0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]model.JobEdge{nil, {model.EdgeFor(model.HashPartitioner, 0, 0)},
		{model.EdgeFor(model.RescalePartitioner, 0, 1), model.EdgeFor(model.CustomPartitioner, 1, 0)}}
	for i := range vs {
		if !slices.Equal(vs[i].Inputs, want[i]) {
			t.Errorf("vertex %d inputs %v, want %v", i, vs[i].Inputs, want[i])
		}
	}
	for _, tc := range []struct {
		in   JobFileInput
		want string
	}{
		{JobFileInput{From: "nope", Partitioner: "HASH"}, "vertices[1].inputs[0].from"},
		{JobFileInput{From: "b", Partitioner: "HASH"}, "vertices[1].inputs[0].from"},
		{JobFileInput{From: "a", Partitioner: "hash"}, "vertices[1].inputs[0].partitioner"},
	} {
		bad := JobFile{Vertices: []JobFileVertex{v("a"), v("b", tc.in)}}
		if _, err := bad.Validate(0); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.in, err, tc.want)
		}
	}
}
