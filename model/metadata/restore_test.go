package metadata

import (
	"errors"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestRestoreRealFiles runs the model's restore path (LoadAndValidateCheckpoint, AssignStates)
// on every real file's Model, with one vertex per operator, at half, the same and double the
// parallelism: it must succeed, and every key-groups handle a subtask receives must lie inside
// that subtask's key-group range and keep one offset per key group.
func TestRestoreRealFiles(t *testing.T) {
	files := realFiles(t)
	runs, skipped := 0, 0
	for _, name := range sortedNames(files) {
		f, err := Read(files[name])
		if err != nil {
			continue
		}
		md := f.Model()
		for _, scale := range []func(p, m int) int{
			func(p, m int) int { return max(1, p/2) },
			func(p, m int) int { return p },
			func(p, m int) int { return min(m, 2*p) },
		} {
			var vertices []model.JobVertex
			for _, op := range md.Operators {
				p := max(1, scale(op.Parallelism, op.MaxParallelism))
				vertices = append(vertices, model.JobVertex{Name: op.OperatorID.String(), Operators: []model.JobOperator{{ID: op.OperatorID}},
					Parallelism: p, MaxParallelism: op.MaxParallelism, MaxParallelismConfigured: true})
			}
			for _, v := range []model.FlinkVersion{model.Flink118, model.Flink1101} {
				cp, err := model.LoadAndValidateCheckpoint(model.LoadInput{Version: v, Metadata: md, Vertices: vertices,
					Properties: model.CheckpointProperties{Savepoint: true}})
				if err != nil {
					t.Fatalf("%s (%v): LoadAndValidateCheckpoint: %v", name, v, err)
				}
				a, err := model.AssignStates(model.AssignmentInput{Version: v, CheckpointID: cp.CheckpointID, Vertices: vertices, Operators: cp.Operators})
				if v == model.Flink1101 && errors.Is(err, model.ErrNullKeyedStateHandles) {
					// 1.10.1 throws its NullPointerException for operators without subtask
					// entries (FLINK-22966).
					skipped++
					continue
				}
				if err != nil {
					t.Fatalf("%s (%v): AssignStates: %v", name, v, err)
				}
				runs++
				for vi, va := range a.Vertices {
					for si, tr := range va.Subtasks {
						if tr == nil || va.Ranges == nil {
							continue
						}
						for _, or := range tr.Operators {
							for _, h := range append(append([]model.KeyedStateHandle{}, or.State.ManagedKeyedState...), or.State.RawKeyedState...) {
								kg, ok := h.(*model.KeyGroupsStateHandle)
								if !ok {
									continue
								}
								r := kg.KeyGroupRange()
								if r.Intersection(va.Ranges[si]) != r || len(kg.Offsets.Offsets) != r.NumberOfKeyGroups() {
									t.Errorf("%s (%v): vertex %d subtask %d got %v with %d offsets, owns %v", name, v, vi, si, r, len(kg.Offsets.Offsets), va.Ranges[si])
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d restore runs, %d refused (channel state rescaled, or 1.10.1 FLINK-22966)", runs, skipped)
}
