package properties

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

// withState is an operator state at parallelism p and max parallelism m with one operator-state
// handle per subtask (so HasState holds).
func withState(id model.OperatorID, p, m int) model.OperatorState {
	os := model.OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: m, Subtasks: make([]*model.OperatorSubtaskState, p)}
	for i := range p {
		os.Subtasks[i] = &model.OperatorSubtaskState{ManagedOperatorState: []model.OperatorStateHandle{{
			Delegate: model.StreamHandle{Path: "op-" + id.String()[:4] + "-" + string(rune('a'+i%26)), Size: 8},
			States:   []model.NamedOperatorState{{Name: "list-0", Mode: model.SplitDistribute, Offsets: []int64{0}}}}}}
	}
	return os
}

func vertex(id model.OperatorID, p, m int, configured bool) model.JobVertex {
	return model.JobVertex{Name: "v", Operators: []model.JobOperator{{ID: id}}, Parallelism: p, MaxParallelism: m, MaxParallelismConfigured: configured}
}

// TestValidation checks loading and assignment against the rules of SPEC §F–§G: a changed
// configured max parallelism is refused, a defaulted one adopted; state without an operator is
// refused unless allowNonRestoredState (and then dropped); a max parallelism below the new
// parallelism is refused.
func TestValidation(t *testing.T) {
	cov := newCoverage(t)
	for _, l := range []string{"maxpar-changed-configured", "maxpar-changed-default", "maxpar-same", "unmatched-allowed", "unmatched-refused", "parallelism-above-maxpar"} {
		cov.require(l, 0.05)
	}
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		v := drawVersion(t)
		id := model.OperatorIDFromUID("op")
		mOld := rapid.SampledFrom([]int{4, 8, 60, 128}).Draw(t, "state max parallelism")
		pOld := rapid.IntRange(1, 8).Draw(t, "p_old")
		state := withState(id, pOld, mOld)
		configured := rapid.Bool().Draw(t, "configured")
		mNew := rapid.SampledFrom([]int{4, 8, 60, 128}).Draw(t, "vertex max parallelism")
		pNew := rapid.IntRange(1, 12).Draw(t, "p_new")
		if configured && mNew < pNew {
			mNew = pNew
		}
		if !configured {
			mNew, _ = model.ComputeDefaultMaxParallelism(pNew)
		}
		unmatched := rapid.Bool().Draw(t, "unmatched state")
		allow := rapid.Bool().Draw(t, "allowNonRestoredState")
		ops := []model.OperatorState{state}
		if unmatched {
			ops = append(ops, withState(model.OperatorIDFromUID("gone"), pOld, mOld))
		}
		vx := []model.JobVertex{vertex(id, pNew, mNew, configured)}
		cp, err := model.LoadAndValidateCheckpoint(model.LoadInput{Version: v, Metadata: model.CheckpointMetadata{CheckpointID: 5, Operators: ops},
			Vertices: vx, AllowNonRestoredState: allow})
		switch {
		case mNew != mOld && configured:
			cov.label("maxpar-changed-configured")
			if !errors.Is(err, model.ErrMaxParallelismMismatch) {
				t.Fatalf("Flink %s: configured max parallelism %d, state's %d: LoadAndValidateCheckpoint = %v, want ErrMaxParallelismMismatch", v, mNew, mOld, err)
			}
			return
		case unmatched && !allow:
			cov.label("unmatched-refused")
			if !errors.Is(err, model.ErrNonRestoredState) {
				t.Fatalf("Flink %s: state without operator, allowNonRestoredState false: LoadAndValidateCheckpoint = %v, want ErrNonRestoredState", v, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Flink %s: LoadAndValidateCheckpoint refused a valid restore (M %d → %d configured=%t, unmatched=%t allow=%t): %v", v, mOld, mNew, configured, unmatched, allow, err)
		}
		if unmatched {
			cov.label("unmatched-allowed")
			if len(cp.Operators) != 1 || cp.Operators[0].OperatorID != id {
				t.Fatalf("Flink %s: allowNonRestoredState: the unmatched state was not dropped: %d operator states kept", v, len(cp.Operators))
			}
		}
		a, err := model.AssignStates(model.AssignmentInput{Version: v, CheckpointID: 5, Vertices: vx, Operators: cp.Operators, AllowNonRestoredState: allow})
		if pNew > mOld {
			cov.label("parallelism-above-maxpar")
			if !errors.Is(err, model.ErrMaxParallelismBelowNewParallelism) {
				t.Fatalf("Flink %s: parallelism %d above the state's max parallelism %d: AssignStates = %v, want ErrMaxParallelismBelowNewParallelism", v, pNew, mOld, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Flink %s: AssignStates refused a valid restore: %v", v, err)
		}
		if mNew != mOld {
			cov.label("maxpar-changed-default")
		} else {
			cov.label("maxpar-same")
		}
		if got := a.Vertices[0].MaxParallelism; got != mOld {
			t.Fatalf("Flink %s: the vertex runs with max parallelism %d, want the restored %d (default %d adopted)", v, got, mOld, mNew)
		}
	})
}

// storage is a one-snapshot CheckpointStorage: the metadata at file:/snap/_metadata.
type storage struct{ md model.CheckpointMetadata }

func (s storage) Stat(path string) (model.FileInfo, error) {
	switch strings.TrimSuffix(path, "/") {
	case "file:/snap":
		return model.FileInfo{IsDir: true}, nil
	case "file:/snap/_metadata":
		return model.FileInfo{Len: 100}, nil
	}
	return model.FileInfo{}, fs.ErrNotExist
}

func (s storage) ReadMetadata(model.CheckpointLocation) (model.CheckpointMetadata, error) {
	return s.md, nil
}

// TestCheckpointIDAfterRestore: after a new job's coordinator restores a snapshot (any restore
// mode), the next checkpoint ID exceeds every ID the old job used, up to the snapshot's.
func TestCheckpointIDAfterRestore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := drawVersion(t)
		co, err := model.NewCoordinator(v, rapid.IntRange(1, 3).Draw(t, "retained"))
		if err != nil {
			t.Fatalf("NewCoordinator: %v", err)
		}
		snapID := rapid.Int64Range(1, 1000).Draw(t, "snapshot ID") // the old job used IDs up to it
		used := snapID
		id := model.OperatorIDFromUID("op")
		md := model.CheckpointMetadata{CheckpointID: snapID, Operators: []model.OperatorState{withState(id, 2, 128)},
			Properties: &model.CheckpointProperties{Savepoint: true, Sharing: model.NoSharing}}
		mode := rapid.SampledFrom([]model.RestoreMode{model.NoClaim, model.Claim, model.Legacy}).Draw(t, "mode")
		if _, err := co.RestoreSavepoint(storage{md}, model.SavepointRestoreSettings{Pointer: "file:/snap", Mode: mode},
			[]model.JobVertex{vertex(id, 2, 128, false)}); err != nil {
			t.Fatalf("RestoreSavepoint: %v", err)
		}
		if next := co.Counter.GetAndIncrement(); next <= used {
			t.Fatalf("Flink %s: after restoring snapshot %d the next checkpoint ID is %d, not above every ID used (%d)", v, snapID, next, used)
		}
	})
}
