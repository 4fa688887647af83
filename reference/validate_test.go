package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// TestLoadCheckpoint: LoadCheckpoint answers what MetadataRoundTripAs and LoadAndValidate answer
// one after the other (the latter on the file, or on Flink's bytes with validateWritten and the
// same format version; its refusal's directory asked as LoadAndValidate of no vertices), for
// files Flink writes back byte for byte, in another format version, and otherwise (an
// incremental handle whose backend id is no UUID).
func TestLoadCheckpoint(t *testing.T) {
	inc := func(id model.OperatorID) model.OperatorState {
		r := model.KeyGroupRange{Start: 0, End: 127}
		return model.OperatorState{OperatorID: id, Parallelism: 1, MaxParallelism: 128, Subtasks: []*model.OperatorSubtaskState{{
			ManagedKeyedState: []model.KeyedStateHandle{&model.IncrementalKeyedStateHandle{BackendID: "backend-a", Range: r, CheckpointID: 7,
				Meta: model.StreamHandle{Path: "file:/m", Size: 3}}}}}}
	}
	cases := validateCases()
	a := model.OperatorIDFromUID("a")
	cases = append(cases, validateCase{"incremental, named backend", model.CheckpointMetadata{CheckpointID: 7, Operators: []model.OperatorState{inc(a)}},
		[]model.JobVertex{{Name: "v", Operators: []model.JobOperator{{ID: a}}, Parallelism: 1, MaxParallelism: 128, MaxParallelismConfigured: true}}, false})
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink23} {
		t.Run(v.String(), func(t *testing.T) {
			j := need(t, v)
			kinds := map[string]int{}
			for _, c := range cases {
				for n, wv := range []int32{v.MetadataWriteVersion(true), 4} {
					if n == 1 && v.MetadataWriteVersion(true) == 4 {
						continue
					}
					f, err := metadata.FromModelAs(c.md, wv, nil)
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
					for _, written := range []bool{false, true} {
						name := fmt.Sprintf("%s, format %d, validate written %v", c.name, wv, written)
						rt, err := j.MetadataRoundTripAs(b, 0)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						loaded := b
						if written && rt.Version == rt.WrittenVersion {
							loaded = rt.Bytes
						}
						wantV, wantErr := j.LoadAndValidate(loaded, vs, c.allowNRS)
						wantPointer := ""
						if wantErr != nil {
							if p, err := j.LoadAndValidate(loaded, []byte("[]"), true); err == nil && strings.Contains(wantErr.Error(), "file:") {
								wantPointer = p.ExternalPointer
							}
						}
						got, err := j.LoadCheckpoint(b, vs, c.allowNRS, written)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if d := cmp.Diff(*rt, got.RoundTrip); d != "" {
							t.Errorf("%s: the round trip differs (-two requests +one):\n%s", name, d)
						}
						if d := cmp.Diff(wantV, got.Validated); d != "" {
							t.Errorf("%s: the validation differs (-two requests +one):\n%s", name, d)
						}
						if fmt.Sprint(wantErr) != fmt.Sprint(got.Err) || wantPointer != got.Pointer {
							t.Errorf("%s: the refusal differs: %v (%q), one request %v (%q)", name, wantErr, wantPointer, got.Err, got.Pointer)
						}
						switch {
						case rt.Version != rt.WrittenVersion:
							kinds["another version"]++
						case bytes.Equal(b, rt.Bytes):
							kinds["same bytes"]++
						default:
							kinds["other bytes"]++
						}
						if wantErr != nil {
							kinds["refused"]++
						}
						if wantPointer != "" {
							kinds["pointer"]++
						}
					}
				}
			}
			for _, k := range []string{"another version", "same bytes", "other bytes", "refused", "pointer"} {
				if kinds[k] == 0 && (k != "another version" || v.MetadataWriteVersion(true) != 4) {
					t.Errorf("no case of kind %q: %v", k, kinds)
				}
			}
		})
	}
}
