package reference

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// PriorityCase is one call of PrioritizedOperatorSubtaskState.Builder(jobManagerState,
// alternativesByPriority, restoredCheckpointId).build(): the JobManager's state of a subtask
// and the TaskManager's alternatives (a nil one is a null entry). Keyed handles must be
// *model.KeyGroupsStateHandle (or nil); every handle is named by its delegate's Path.
type PriorityCase struct {
	JobManager   *model.OperatorSubtaskState
	Alternatives []*model.OperatorSubtaskState
	CheckpointID int64
}

// PriorityAnswer is Flink's answer to one case: for each kind of state, the alternatives in
// priority order, each as the names of its handles (nil for a null keyed handle), or Flink's
// refusal.
type PriorityAnswer struct {
	ManagedKeyed       [][]*string `json:"managed_keyed"`
	RawKeyed           [][]*string `json:"raw_keyed"`
	ManagedOperator    [][]*string `json:"managed_operator"`
	RawOperator        [][]*string `json:"raw_operator"`
	InputChannel       [][]*string `json:"input_channel"`
	ResultSubpartition [][]*string `json:"result_subpartition"`
	Restored           bool        `json:"restored"`
	CheckpointID       *int64      `json:"checkpoint"`
	Refusal            *Refusal    `json:"error"`
}

// Priorities builds each case's PrioritizedOperatorSubtaskState with Flink's own Builder.
func (j *JVM) Priorities(cases []PriorityCase) ([]PriorityAnswer, error) {
	wire := make([]map[string]any, len(cases))
	for i, c := range cases {
		jm, err := prioritySubtask(c.JobManager)
		if err != nil {
			return nil, fmt.Errorf("reference: priority case %d: %w", i, err)
		}
		alts := make([]any, len(c.Alternatives))
		for k, a := range c.Alternatives {
			if a == nil {
				continue
			}
			if alts[k], err = prioritySubtask(a); err != nil {
				return nil, fmt.Errorf("reference: priority case %d: %w", i, err)
			}
		}
		wire[i] = map[string]any{"jm": jm, "alternatives": alts, "checkpoint": c.CheckpointID}
	}
	var out struct {
		Cases []PriorityAnswer `json:"cases"`
	}
	if err := j.request(map[string]any{"op": "priority", "cases": wire}, &out); err != nil {
		return nil, err
	}
	if len(out.Cases) != len(cases) {
		return nil, fmt.Errorf("%w (Flink %s): %d answers to %d priority cases", ErrJVM, j.Version, len(out.Cases), len(cases))
	}
	for i := range out.Cases {
		if r := out.Cases[i].Refusal; r != nil {
			r.Version = j.Version
		}
	}
	return out.Cases, nil
}

func prioritySubtask(s *model.OperatorSubtaskState) (map[string]any, error) {
	if s == nil {
		s = &model.OperatorSubtaskState{}
	}
	keyed := func(hs []model.KeyedStateHandle) ([]any, error) {
		out := make([]any, len(hs))
		for i, h := range hs {
			switch h := h.(type) {
			case nil:
			case *model.KeyGroupsStateHandle:
				if h == nil {
					continue
				}
				out[i] = map[string]any{"name": h.Delegate.Path, "start": h.Offsets.Range.Start, "end": h.Offsets.Range.End}
			default:
				return nil, fmt.Errorf("keyed handle %T cannot be sent (KeyGroupsStateHandle only)", h)
			}
		}
		return out, nil
	}
	operator := func(hs []model.OperatorStateHandle) []any {
		out := make([]any, len(hs))
		for i, h := range hs {
			states := make([]any, len(h.States))
			for k, st := range h.States {
				offsets := st.Offsets
				if offsets == nil {
					offsets = []int64{}
				}
				states[k] = map[string]any{"name": st.Name, "mode": st.Mode.String(), "offsets": offsets}
			}
			out[i] = map[string]any{"name": h.Delegate.Path, "states": states}
		}
		return out
	}
	channel := func(hs []model.ChannelStateHandle) []any {
		out := make([]any, len(hs))
		for i, h := range hs {
			out[i] = map[string]any{"name": h.Delegate.Path, "subtask": h.SubtaskIndex, "gate": h.GateOrPartition, "channel": h.Channel}
		}
		return out
	}
	mk, err := keyed(s.ManagedKeyedState)
	if err != nil {
		return nil, err
	}
	rk, err := keyed(s.RawKeyedState)
	if err != nil {
		return nil, err
	}
	return map[string]any{"managed_keyed": mk, "raw_keyed": rk,
		"managed_operator": operator(s.ManagedOperatorState), "raw_operator": operator(s.RawOperatorState),
		"input_channel": channel(s.InputChannelState), "result_subpartition": channel(s.ResultSubpartitionState)}, nil
}
