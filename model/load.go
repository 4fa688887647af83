package model

import (
	"fmt"
	"strconv"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// This file models Checkpoints.loadAndValidateCheckpoint (SPEC §G) after the metadata has been
// read: matching the checkpoint's operator states against the new job and deciding which are
// kept, dropped or refused.

// CompletedCheckpoint models the parts of checkpoint.CompletedCheckpoint the restore path reads:
// a checkpoint (or savepoint) that can be restored.
type CompletedCheckpoint struct {
	CheckpointID int64 `json:"checkpoint_id"`
	// Operators are the accepted operator states, in metadata order.
	Operators    []OperatorState      `json:"operators"`
	MasterStates []MasterState        `json:"master_states,omitempty"`
	Properties   CheckpointProperties `json:"properties"`
	// ExternalPointer is the checkpoint directory (SPEC §I), e.g. "file:/ckpts/chk-7".
	ExternalPointer string `json:"external_pointer"`
}

// LoadInput is what Checkpoints.loadAndValidateCheckpoint works on once the metadata is read.
type LoadInput struct {
	Version FlinkVersion
	// Metadata is the deserialised _metadata file.
	Metadata CheckpointMetadata
	// Vertices are the new job's vertices.
	Vertices              []JobVertex
	AllowNonRestoredState bool
	// Properties become the CompletedCheckpoint's properties in 1.18 (they depend on the restore
	// mode, SPEC §H.1). 1.10.1 ignores them: its result always has savepoint properties.
	Properties CheckpointProperties
	// ExternalPointer is the resolved checkpoint directory; it also names the checkpoint in
	// error messages ("checkpoint <id>" when empty).
	ExternalPointer string
}

// savepointProperties1101 models 1.10.1's CheckpointProperties.forSavepoint().
var savepointProperties1101 = CheckpointProperties{Savepoint: true, Forced: true}

// LoadAndValidateCheckpoint models Checkpoints.loadAndValidateCheckpoint (SPEC §G step 3–5):
// each operator state of the metadata, in metadata order, is looked up by operator ID among the
// generated and user-defined IDs of the new job's operators, and
//
//   - matched: kept if the vertex has the same max parallelism or may adopt the checkpoint's
//     (1.18: ExecutionJobVertex.canRescaleMaxParallelism, which throws for values outside
//     1..32768 → *MaxParallelismOutOfBoundsError; 1.10.1: !isMaxParallelismConfigured), else
//     *MaxParallelismMismatchError. The parallelism is not checked here (AssignStates does).
//   - unmatched: with AllowNonRestoredState dropped; otherwise refused with a
//     *NonRestoredStateError if it has coordinator state (1.18) or any subtask state with
//     HasState, and silently dropped if it holds nothing at all.
//
// Lookup: 1.18 maps generated and user-defined IDs vertex by vertex (a later vertex wins an ID
// that two claim); 1.10.1 adds user-defined IDs only after the first miss and never over a
// generated ID, which gives the same lookups as generated IDs first, then user-defined ones
// where free.
//
// Both refusals come as a *RefusalError (its check and operator) wrapping the typed error.
// Duplicate operator IDs in the metadata, or operator states with more subtask entries than
// their parallelism, give ErrInvalidRestoreInput (Flink writes metadata from a map). In 1.10.1
// coordinator and channel state do not exist: both fields are ignored.
func LoadAndValidateCheckpoint(in LoadInput) (*CompletedCheckpoint, error) {
	v := in.Version
	if !v.Known() {
		return nil, fmt.Errorf("%w: %v", ErrUnknownFlinkVersion, v)
	}
	md := &in.Metadata
	seen := make(map[OperatorID]struct{}, len(md.Operators))
	for i := range md.Operators {
		os := &md.Operators[i]
		if _, dup := seen[os.OperatorID]; dup {
			return nil, fmt.Errorf("%w: operator state %v appears twice in the metadata", ErrInvalidRestoreInput, os.OperatorID)
		}
		seen[os.OperatorID] = struct{}{}
		if err := validateOperatorStateHandles(os); err != nil {
			return nil, err
		}
	}

	vertexOf := make(map[OperatorID]*JobVertex)
	for i := range in.Vertices {
		vx := &in.Vertices[i]
		for _, op := range vx.Operators {
			vertexOf[op.ID] = vx
			if op.UserDefinedID != nil && v != Flink1101 {
				vertexOf[*op.UserDefinedID] = vx
			}
		}
	}
	if v == Flink1101 {
		for i := range in.Vertices {
			for _, op := range in.Vertices[i].Operators {
				if op.UserDefinedID == nil {
					continue
				}
				if _, taken := vertexOf[*op.UserDefinedID]; !taken {
					vertexOf[*op.UserDefinedID] = &in.Vertices[i]
				}
			}
		}
	}

	name := in.ExternalPointer
	if name == "" {
		name = "checkpoint " + strconv.FormatInt(md.CheckpointID, 10)
	}
	out := &CompletedCheckpoint{
		CheckpointID:    md.CheckpointID,
		MasterStates:    md.MasterStates,
		Properties:      in.Properties,
		ExternalPointer: in.ExternalPointer,
	}
	if v == Flink1101 {
		out.Properties = savepointProperties1101
	}
	for i := range md.Operators {
		os := &md.Operators[i]
		vx, ok := vertexOf[os.OperatorID]
		if ok {
			if vx.MaxParallelism != os.MaxParallelism {
				adopt, err := canRescaleMaxParallelism(v, vx.MaxParallelismConfigured, os.MaxParallelism)
				if err != nil {
					return nil, refuse(err, os.OperatorID, vx.Name)
				}
				if mutant.On(mutant.MaxParChangeAccepted) {
					adopt = true
				}
				if !adopt {
					// Flink formats the CheckpointMetadata object here, not the pointer:
					// CheckpointMetadata.toString is "Checkpoint Metadata" (verified by running
					// Flink's code: reference.TestLoadAndValidate). 1.10.1 is kept as read.
					name := name
					if v != Flink1101 {
						name = "Checkpoint Metadata"
					}
					return nil, refuse(&MaxParallelismMismatchError{Checkpoint: name, OperatorID: os.OperatorID,
						StateMaxParallelism: os.MaxParallelism, VertexMaxParallelism: vx.MaxParallelism}, os.OperatorID, vx.Name)
				}
			}
			out.Operators = append(out.Operators, *os)
			continue
		}
		if in.AllowNonRestoredState {
			continue // "Skipping savepoint state for operator …"
		}
		if mutant.On(mutant.AllowNonRestoredIgnored) {
			continue
		}
		if v != Flink1101 && os.CoordinatorState != nil {
			return nil, refuse(&NonRestoredStateError{Checkpoint: name, OperatorID: os.OperatorID, CoordinatorState: true}, os.OperatorID, "")
		}
		for _, st := range os.Subtasks {
			if subtaskHasState(v, st) {
				return nil, refuse(&NonRestoredStateError{Checkpoint: name, OperatorID: os.OperatorID}, os.OperatorID, "")
			}
		}
		// "Skipping empty savepoint state for operator …"
	}
	return out, nil
}

// subtaskHasState models OperatorSubtaskState.hasState of the given version (1.10.1 has no
// channel state).
func subtaskHasState(v FlinkVersion, st *OperatorSubtaskState) bool {
	if st == nil {
		return false
	}
	if v == Flink1101 {
		c := *st
		c.InputChannelState, c.ResultSubpartitionState = nil, nil
		return c.HasState()
	}
	return st.HasState()
}
