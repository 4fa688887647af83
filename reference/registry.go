package reference

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// RegistryStepKind says what a RegistryStep does.
type RegistryStepKind uint8

// The steps of a registry script.
const (
	// Register is registerReference(Key, a stream Path of Size bytes — or a placeholder for
	// it —, Checkpoint, Prevent).
	Register RegistryStepKind = iota
	// Unregister is unregisterUnusedState(Lowest).
	Unregister
	// Restored is registerAllAfterRestored of a checkpoint Checkpoint without operator states,
	// restored in Mode from a snapshot whose sharing strategy is Sharing (0: properties unknown).
	Restored
)

// RegistryStep is one call on a SharedStateRegistryImpl.
type RegistryStep struct {
	Kind        RegistryStepKind
	Key         string
	Path        string
	Size        int64
	Placeholder bool
	Checkpoint  int64
	Prevent     bool
	Lowest      int64
	Mode        model.RestoreMode
	Sharing     model.SharingFilesStrategy
}

// RegistryHandle is a stream handle in Flink's answers: its path (for a placeholder, its
// physical ID), size, and whether it is a placeholder.
type RegistryHandle struct {
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	Placeholder bool   `json:"placeholder"`
}

// RegistryAnswer is Flink's answer to one step: the handle registerReference returned, or the
// streams unregisterUnusedState deleted (in the order Flink deleted them) and the checkpoints it
// reports in use (ascending), or Flink's refusal.
type RegistryAnswer struct {
	Handle    *RegistryHandle  `json:"handle"`
	Discarded []RegistryHandle `json:"discarded"`
	InUse     []int64          `json:"in_use"`
	Refusal   *Refusal         `json:"error"`
}

// Registry runs a script of steps on one new SharedStateRegistryImpl (direct executor) and
// returns Flink's answer to each step.
func (j *JVM) Registry(steps []RegistryStep) ([]RegistryAnswer, error) {
	wire := make([]map[string]any, len(steps))
	for i, s := range steps {
		switch s.Kind {
		case Register:
			wire[i] = map[string]any{"register": s.Key, "path": s.Path, "size": s.Size, "placeholder": s.Placeholder, "checkpoint": s.Checkpoint, "prevent": s.Prevent}
		case Unregister:
			wire[i] = map[string]any{"unregister": s.Lowest}
		case Restored:
			var sharing any
			switch s.Sharing {
			case model.NoSharing:
				sharing = "NO_SHARING"
			case model.ForwardBackward:
				sharing = "FORWARD_BACKWARD"
			case 0:
			default:
				return nil, fmt.Errorf("reference: registry step %d: sharing strategy %d cannot be sent", i, s.Sharing)
			}
			wire[i] = map[string]any{"restored": s.Checkpoint, "mode": s.Mode.String(), "sharing": sharing}
		}
	}
	var out struct {
		Steps []RegistryAnswer `json:"steps"`
	}
	if err := j.request(map[string]any{"op": "registry", "steps": wire}, &out); err != nil {
		return nil, err
	}
	if len(out.Steps) != len(steps) {
		return nil, fmt.Errorf("%w (Flink %s): %d answers to %d registry steps", ErrJVM, j.Version, len(out.Steps), len(steps))
	}
	for i := range out.Steps {
		if r := out.Steps[i].Refusal; r != nil {
			r.Version = j.Version
		}
	}
	return out.Steps, nil
}
