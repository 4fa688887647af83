package reference

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// StoreStepKind says what a StoreStep does.
type StoreStepKind uint8

// The steps of a store script.
const (
	// StoreRestore is the part of CheckpointCoordinator.restoreSavepoint that touches the store:
	// snapshot Checkpoint (State) gets the properties of the script's restore mode (CLAIM: the
	// job's checkpoint properties; LEGACY: a savepoint's; NO_CLAIM: an unclaimed snapshot's),
	// with restored properties recorded by a snapshot of sharing strategy Sharing (0: none),
	// registerSharedStatesAfterRestored, then addCheckpointAndSubsumeOldestOne.
	StoreRestore StoreStepKind = iota + 1
	// StoreRegister is a task's acknowledgement of Checkpoint: its State's
	// OperatorSubtaskState.registerSharedStates(registry, Checkpoint).
	StoreRegister
	// StoreAdd is addCheckpointAndSubsumeOldestOne of Checkpoint as it completes: with the job's
	// checkpoint properties, or a savepoint's (Savepoint; Synchronous: a stop-with-savepoint). The
	// State registered by an earlier StoreRegister of the same checkpoint is the one added.
	StoreAdd
	// StoreShutdown is shutdown(Status, cleaner).
	StoreShutdown
	// StoreComplete is StoreRegister and then StoreAdd of a checkpoint (the job's checkpoint
	// properties) in one step: what the coordinator does for a checkpoint of one task.
	StoreComplete
)

// StoreState is the state of one snapshot in a store script: one operator with one subtask
// whose managed keyed state is one IncrementalRemoteKeyedStateHandle (StateHandleID Handle) of
// the shared files, private files and meta file given. Its _metadata is "chk-<id>/_metadata".
type StoreState struct {
	Handle          string
	Shared, Private []model.StreamHandle
	Meta            model.StreamHandle
}

// StoreStep is one call of a store script.
type StoreStep struct {
	Kind                   StoreStepKind
	Checkpoint             int64
	State                  StoreState
	Savepoint, Synchronous bool
	Sharing                model.SharingFilesStrategy
	Status                 model.JobStatus
}

// StoreScript is a script of calls on one new StandaloneCompletedCheckpointStore retaining
// Retained checkpoints, built for restore mode Mode, whose job takes checkpoints with retention
// policy Retention.
type StoreScript struct {
	Retained  int
	Mode      model.RestoreMode
	Retention model.CheckpointRetentionPolicy
	Steps     []StoreStep
}

// StoreAnswer is Flink's answer to one step: the ids of the retained checkpoints (oldest first),
// the latest one's and the one addCheckpointAndSubsumeOldestOne returned (nil: none), the files
// deleted (names of the shared, private, meta and _metadata streams, in the order deleted), the
// checkpoints whose storage location was disposed (in order), and Flink's refusal if the call
// threw.
type StoreAnswer struct {
	Retained  []int64  `json:"retained"`
	Latest    *int64   `json:"latest"`
	Subsumed  *int64   `json:"subsumed"`
	Deleted   []string `json:"deleted"`
	Discarded []int64  `json:"discarded"`
	Refusal   *Refusal `json:"error"`
}

// Store runs a script on one new StandaloneCompletedCheckpointStore (with Flink's
// SharedStateRegistryImpl and CheckpointsCleaner, direct executors) and returns Flink's answer
// to each step. A store Flink refuses to build is a *Refusal error.
func (j *JVM) Store(s StoreScript) ([]StoreAnswer, error) {
	wire := make([]map[string]any, len(s.Steps))
	for i, st := range s.Steps {
		state := map[string]any{"handle": st.State.Handle, "shared": streams(st.State.Shared),
			"private": streams(st.State.Private), "meta": stream(st.State.Meta)}
		switch st.Kind {
		case StoreRestore:
			var sharing any
			switch st.Sharing {
			case model.NoSharing:
				sharing = "NO_SHARING"
			case model.ForwardBackward:
				sharing = "FORWARD_BACKWARD"
			case 0:
			default:
				return nil, fmt.Errorf("reference: store step %d: sharing strategy %d cannot be sent", i, st.Sharing)
			}
			wire[i] = map[string]any{"restore": st.Checkpoint, "sharing": sharing, "state": state}
		case StoreRegister:
			wire[i] = map[string]any{"register": st.Checkpoint, "state": state}
		case StoreAdd:
			kind := "CHECKPOINT"
			switch {
			case st.Savepoint && st.Synchronous:
				kind = "SYNC_SAVEPOINT"
			case st.Savepoint:
				kind = "SAVEPOINT"
			}
			wire[i] = map[string]any{"add": st.Checkpoint, "kind": kind, "state": state}
		case StoreComplete:
			wire[i] = map[string]any{"complete": st.Checkpoint, "state": state}
		case StoreShutdown:
			wire[i] = map[string]any{"shutdown": st.Status.String()}
		default:
			return nil, fmt.Errorf("reference: store step %d: kind %d", i, st.Kind)
		}
	}
	var out struct {
		Steps []StoreAnswer `json:"steps"`
	}
	req := map[string]any{"op": "store", "retained": s.Retained, "mode": s.Mode.String(),
		"retention": s.Retention.String(), "steps": wire}
	if err := j.request(req, &out); err != nil {
		return nil, err
	}
	if len(out.Steps) != len(s.Steps) {
		return nil, fmt.Errorf("%w (Flink %s): %d answers to %d store steps", ErrJVM, j.Version, len(out.Steps), len(s.Steps))
	}
	for i := range out.Steps {
		if r := out.Steps[i].Refusal; r != nil {
			r.Version = j.Version
		}
	}
	return out.Steps, nil
}

func streams(hs []model.StreamHandle) []map[string]any {
	out := make([]map[string]any, len(hs))
	for i, h := range hs {
		out[i] = stream(h)
	}
	return out
}

func stream(h model.StreamHandle) map[string]any {
	return map[string]any{"path": h.Path, "size": h.Size}
}
