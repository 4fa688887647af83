package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// validateCase is one restore of a checkpoint into a new job.
type validateCase struct {
	name     string
	md       model.CheckpointMetadata
	vertices []model.JobVertex
	allowNRS bool
}

func validateCases() []validateCase {
	a, b, c := model.OperatorIDFromUID("a"), model.OperatorIDFromUID("b"), model.OperatorIDFromUID("c")
	keyed := func(id model.OperatorID, p, maxP int) model.OperatorState {
		s := model.OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: maxP}
		for i := 0; i < p; i++ {
			r, _ := model.ComputeKeyGroupRangeForOperatorIndex(maxP, p, i)
			s.Subtasks = append(s.Subtasks, &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
				Offsets: model.KeyGroupRangeOffsets{Range: r, Offsets: make([]int64, r.NumberOfKeyGroups())}, Delegate: model.StreamHandle{Path: "file:/s", Size: 1}}}})
		}
		return s
	}
	empty := model.OperatorState{OperatorID: c, Parallelism: 2, MaxParallelism: 128, Subtasks: []*model.OperatorSubtaskState{{}, {}}}
	coordinator := model.OperatorState{OperatorID: c, Parallelism: 1, MaxParallelism: 128, CoordinatorState: &model.StreamHandle{Path: "c", Size: 2, InMemory: true}}
	vertex := func(name string, p, maxP int, configured bool, ops ...model.JobOperator) model.JobVertex {
		return model.JobVertex{Name: name, Operators: ops, Parallelism: p, MaxParallelism: maxP, MaxParallelismConfigured: configured}
	}
	op := func(id model.OperatorID) model.JobOperator { return model.JobOperator{ID: id} }
	md := func(ops ...model.OperatorState) model.CheckpointMetadata {
		return model.CheckpointMetadata{CheckpointID: 7, Operators: ops}
	}
	return []validateCase{
		{"all matched", md(keyed(a, 2, 128), keyed(b, 1, 128)), []model.JobVertex{vertex("v", 2, 128, true, op(b), op(a))}, false},
		{"unmatched with state", md(keyed(a, 2, 128), keyed(b, 1, 128)), []model.JobVertex{vertex("v", 2, 128, true, op(a))}, false},
		{"unmatched with state, allowed", md(keyed(a, 2, 128), keyed(b, 1, 128)), []model.JobVertex{vertex("v", 2, 128, true, op(a))}, true},
		{"unmatched without state", md(keyed(a, 2, 128), empty), []model.JobVertex{vertex("v", 2, 128, true, op(a))}, false},
		{"unmatched coordinator state", md(keyed(a, 2, 128), coordinator), []model.JobVertex{vertex("v", 2, 128, true, op(a))}, false},
		{"user-defined ID", md(keyed(a, 2, 128)), []model.JobVertex{vertex("v", 2, 128, true, model.JobOperator{ID: b, UserDefinedID: &a})}, false},
		{"max parallelism mismatch", md(keyed(a, 2, 128)), []model.JobVertex{vertex("v", 2, 256, true, op(a))}, false},
		{"max parallelism adopted", md(keyed(a, 2, 128)), []model.JobVertex{vertex("v", 2, 256, false, op(a))}, false},
		{"max parallelism out of bounds", md(keyed(a, 1, 40000)), []model.JobVertex{vertex("v", 1, 128, false, op(a))}, false},
	}
}

// TestLoadAndValidate: Flink's own Checkpoints.loadAndValidateCheckpoint and
// model.LoadAndValidateCheckpoint keep the same operator states, or refuse with the same message.
func TestLoadAndValidate(t *testing.T) {
	for _, v := range metadataVersions() {
		t.Run(v.String(), func(t *testing.T) {
			j := need(t, v)
			agree := 0
			for _, c := range validateCases() {
				f, err := metadata.FromModelAs(c.md, v.MetadataWriteVersion(true), nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := metadata.Marshal(f)
				if err != nil {
					t.Fatal(err)
				}
				vs, err := json.Marshal(c.vertices)
				if err != nil {
					t.Fatal(err)
				}
				got, ferr := j.LoadAndValidate(b, vs, c.allowNRS)
				var r *Refusal
				if ferr != nil && !errors.As(ferr, &r) {
					t.Fatalf("%s: %v", c.name, ferr)
				}
				pointer := ""
				if got != nil {
					pointer = got.ExternalPointer
				} else if p, err := j.LoadAndValidate(b, []byte("[]"), true); err == nil {
					pointer = p.ExternalPointer
				}
				back, _ := metadata.Read(b)
				want, merr := model.LoadAndValidateCheckpoint(model.LoadInput{Version: v, Metadata: back.ModelFor(v), Vertices: c.vertices,
					AllowNonRestoredState: c.allowNRS, ExternalPointer: pointer})
				if d := compareValidate(want, merr, got, r); d != "" {
					t.Errorf("%s: %s", c.name, d)
					continue
				}
				agree++
			}
			t.Logf("Flink %s: %d of %d cases agree", v, agree, len(validateCases()))
		})
	}
}

func compareValidate(want *model.CompletedCheckpoint, merr error, got *Validated, r *Refusal) string {
	switch {
	case merr != nil && r == nil:
		return fmt.Sprintf("the model refuses (%v), Flink keeps %v", merr, got.Operators)
	case merr == nil && r != nil:
		return fmt.Sprintf("Flink refuses (%v), the model keeps %d operators", r, len(want.Operators))
	case merr != nil:
		if merr.Error() != r.Message {
			return fmt.Sprintf("refusals differ (-model +Flink):\n%s", cmp.Diff(merr.Error(), r.Message))
		}
		return ""
	}
	var ids []model.OperatorID
	for _, o := range want.Operators {
		ids = append(ids, o.OperatorID)
	}
	if d := cmp.Diff(ids, got.Operators, cmpopts.EquateEmpty()); d != "" {
		return "kept operators differ (-model +Flink):\n" + d
	}
	if want.CheckpointID != got.CheckpointID {
		return fmt.Sprintf("checkpoint %d, Flink %d", want.CheckpointID, got.CheckpointID)
	}
	return ""
}
