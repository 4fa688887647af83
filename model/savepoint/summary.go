package savepoint

import (
	"sort"

	"github.com/restoresim/restoresim/model/metadata"
)

// Summary is the inspection summary of a metadata file: every operator and subtask with its
// state bytes, operator-state names, modes and offsets and its keyed-state handles. Its JSON
// form is what `simulate inspect --format json` prints: lists are never null,
// coordinator_state_bytes is null when there is none, offsets and key_group_bytes appear only
// on key-groups handles.
type Summary struct {
	Version      int32            `json:"version"`
	CheckpointID int64            `json:"checkpoint_id"`
	StateBytes   int64            `json:"state_bytes"`
	MasterStates []MasterSummary  `json:"master_states"`
	Properties   *PropertySummary `json:"properties"`
	// NullProperties is set when a version 4+ file stores its properties as a serialized Java
	// null, as the State Processor API writes them (Properties is then null too).
	NullProperties bool              `json:"null_properties,omitempty"`
	Operators      []OperatorSummary `json:"operators"`
}

// MasterSummary is a master state (name, version, bytes).
type MasterSummary struct {
	Name    string `json:"name"`
	Version int32  `json:"version"`
	Bytes   int    `json:"bytes"`
}

// PropertySummary is the checkpoint's properties (format version 3+).
type PropertySummary struct {
	// Type is CheckpointType or SavepointType.
	Type                 string `json:"type"`
	Name                 string `json:"name"`
	Sharing              string `json:"sharing_files_strategy,omitempty"`
	Format               string `json:"format,omitempty"`
	PostCheckpointAction string `json:"post_checkpoint_action,omitempty"`
	Forced               bool   `json:"forced"`
	Unclaimed            bool   `json:"unclaimed"`
	DiscardSubsumed      bool   `json:"discard_subsumed"`
	DiscardFinished      bool   `json:"discard_finished"`
	DiscardCancelled     bool   `json:"discard_cancelled"`
	DiscardFailed        bool   `json:"discard_failed"`
	DiscardSuspended     bool   `json:"discard_suspended"`
}

// OperatorSummary is one operator state, in file order.
type OperatorSummary struct {
	OperatorID            string           `json:"operator_id"`
	Name                  string           `json:"name,omitempty"`
	UID                   string           `json:"uid,omitempty"`
	Parallelism           int32            `json:"parallelism"`
	MaxParallelism        int32            `json:"max_parallelism"`
	CoordinatorStateBytes *int             `json:"coordinator_state_bytes"`
	FullyFinished         bool             `json:"fully_finished"`
	StateBytes            int64            `json:"state_bytes"`
	Subtasks              []SubtaskSummary `json:"subtasks"`
}

// SubtaskSummary is one subtask entry, by subtask index.
type SubtaskSummary struct {
	Index                   int32            `json:"index"`
	Finished                bool             `json:"finished"`
	StateBytes              int64            `json:"state_bytes"`
	ManagedOperatorState    [][]StateSummary `json:"managed_operator_state"`
	RawOperatorState        [][]StateSummary `json:"raw_operator_state"`
	ManagedKeyedState       []KeyedSummary   `json:"managed_keyed_state"`
	RawKeyedState           []KeyedSummary   `json:"raw_keyed_state"`
	InputChannelState       int              `json:"input_channel_handles"`
	ResultSubpartitionState int              `json:"result_subpartition_handles"`
}

// StateSummary is one named operator state of a handle.
type StateSummary struct {
	Name    string  `json:"name"`
	Mode    string  `json:"mode"`
	Offsets []int64 `json:"offsets"`
}

// KeyedSummary is one keyed-state handle. Offsets and KeyGroupBytes are set for key-groups
// handles only: one number per key group of Start..End, in range order; KeyGroupBytes by the
// byte rule of model.KeyGroupBytes (offset 0 is an empty key group, any other runs to the next
// larger offset of the handle, the last to the end of its stream).
type KeyedSummary struct {
	Type          string   `json:"type"`
	Tag           byte     `json:"tag"`
	Start         int64    `json:"start"`
	End           int64    `json:"end"`
	StateBytes    int64    `json:"state_bytes"`
	Offsets       *[]int64 `json:"offsets,omitempty"`
	KeyGroupBytes *[]int64 `json:"key_group_bytes,omitempty"`
}

// Summarize gives the inspection summary of f.
func Summarize(f *metadata.File) Summary {
	out := Summary{Version: f.Version, CheckpointID: f.CheckpointID, MasterStates: []MasterSummary{}, Operators: []OperatorSummary{}}
	for _, m := range f.MasterStates {
		out.MasterStates = append(out.MasterStates, MasterSummary{Name: m.Name, Version: m.Version, Bytes: len(m.Data)})
	}
	if p := f.Properties; p != nil {
		ip := &PropertySummary{Type: "CheckpointType", Name: p.TypeName, Sharing: p.Sharing, Forced: p.Forced, Unclaimed: p.Unclaimed,
			DiscardSubsumed: p.DiscardSubsumed, DiscardFinished: p.DiscardFinished, DiscardCancelled: p.DiscardCancelled,
			DiscardFailed: p.DiscardFailed, DiscardSuspended: p.DiscardSuspended}
		if p.Savepoint {
			ip.Type, ip.Format, ip.PostCheckpointAction = "SavepointType", p.Format, p.PostCheckpointAction
		}
		out.Properties = ip
	} else if f.Version >= 4 {
		out.NullProperties = true
	}
	for i := range f.Operators {
		op := &f.Operators[i]
		io := OperatorSummary{OperatorID: op.ID.String(), Name: op.Name, UID: op.UID, Parallelism: op.Parallelism,
			MaxParallelism: op.MaxParallelism, FullyFinished: op.FullyFinished, Subtasks: []SubtaskSummary{}}
		if op.CoordinatorState != nil {
			n := int(op.CoordinatorState.StateSize())
			io.CoordinatorStateBytes = &n
		}
		io.StateBytes = OperatorBytes(op)
		for _, s := range SubtasksByIndex(op) {
			is := SubtaskSummary{Index: s.Index, Finished: s.Finished, StateBytes: SubtaskBytes(s),
				ManagedOperatorState: operatorStates(s.ManagedOperatorState), RawOperatorState: operatorStates(s.RawOperatorState),
				ManagedKeyedState: keyedSummary(s.ManagedKeyedState), RawKeyedState: keyedSummary(s.RawKeyedState),
				InputChannelState: len(s.InputChannels), ResultSubpartitionState: len(s.OutputChannels)}
			io.Subtasks = append(io.Subtasks, is)
		}
		out.StateBytes += io.StateBytes
		out.Operators = append(out.Operators, io)
	}
	return out
}

// SubtasksByIndex lists an operator's subtask entries by subtask index (file order among equal
// indexes).
func SubtasksByIndex(op *metadata.Operator) []*metadata.Subtask {
	v := make([]*metadata.Subtask, len(op.Subtasks))
	for i := range op.Subtasks {
		v[i] = &op.Subtasks[i]
	}
	sort.SliceStable(v, func(i, j int) bool { return v[i].Index < v[j].Index })
	return v
}

// operatorStates gives one inner list per (non-null) handle, states in file order.
func operatorStates(h *metadata.OperatorHandle) [][]StateSummary {
	out := [][]StateSummary{}
	if h == nil || h.Tag == metadata.TagNull {
		return out
	}
	states := []StateSummary{}
	for _, s := range h.States {
		off := s.Offsets
		if off == nil {
			off = []int64{}
		}
		states = append(states, StateSummary{Name: s.Name, Mode: s.ModeName(), Offsets: off})
	}
	return append(out, states)
}

func keyedSummary(h metadata.KeyedHandle) []KeyedSummary {
	out := []KeyedSummary{}
	if h == nil {
		return out
	}
	start, num := KeyGroups(h)
	k := KeyedSummary{Type: h.ClassName(), Tag: h.HandleTag(), Start: int64(start), End: int64(start) + int64(num) - 1, StateBytes: KeyedBytes(h)}
	if kg, ok := h.(*metadata.KeyGroupsHandle); ok {
		off := kg.Offsets
		if off == nil {
			off = []int64{}
		}
		kb := kg.KeyGroupBytes()
		k.Offsets, k.KeyGroupBytes = &off, &kb
	}
	return append(out, k)
}

// KeyGroups gives a keyed handle's start key group and key-group count as written in the file.
func KeyGroups(h metadata.KeyedHandle) (start, count int32) {
	switch h := h.(type) {
	case *metadata.KeyGroupsHandle:
		return h.StartKeyGroup, int32(len(h.Offsets))
	case *metadata.IncrementalHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.ChangelogBackendHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.InMemoryChangelogHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.ChangelogStreamHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	}
	return 0, 0
}

// KeyedBytes gives a keyed handle's state size (0 for nil).
func KeyedBytes(h metadata.KeyedHandle) int64 {
	switch h := h.(type) {
	case *metadata.IncrementalHandle:
		if h != nil {
			return h.StateSize()
		}
	case *metadata.KeyGroupsHandle:
		if h != nil {
			return h.StateSize()
		}
	}
	if m := metadata.KeyedModel(h); m != nil {
		return m.StateSize()
	}
	return 0
}

func operatorHandleBytes(h *metadata.OperatorHandle) int64 {
	if h == nil {
		return 0
	}
	return h.Delegate.StateSize()
}

// OperatorBytes gives an operator's state bytes, the one meaning of "state bytes" in every
// command (inspect, plan, diff, locate): the sum of the sizes of the state handles the
// checkpoint holds for the operator — keyed, operator, coordinator and in-flight channel state
// of every subtask entry (SubtaskBytes) plus its coordinator state. What a restore reads of
// them is "bytes read" (OperatorPlan.BytesRead).
func OperatorBytes(op *metadata.Operator) int64 { return stateBytesOf(op).total() }

// SubtaskBytes gives a subtask entry's state bytes: operator, keyed and channel state.
func SubtaskBytes(s *metadata.Subtask) int64 {
	n := operatorHandleBytes(s.ManagedOperatorState) + operatorHandleBytes(s.RawOperatorState) +
		KeyedBytes(s.ManagedKeyedState) + KeyedBytes(s.RawKeyedState)
	for _, c := range s.InputChannels {
		n += c.Delegate.StateSize()
	}
	for _, c := range s.OutputChannels {
		n += c.Delegate.StateSize()
	}
	return n
}

// WrittenBy names the Flink releases that write a metadata format version (FORMAT.md §3,
// SPEC-VERSIONS.md §7).
func WrittenBy(version int32) string {
	switch version {
	case 2:
		return "Flink 1.3–1.10"
	case 3:
		return "Flink 1.11–1.15"
	case 4:
		return "Flink 1.16–1.20"
	case 5:
		return "Flink 2.0"
	case 6:
		return "Flink 2.1–2.3"
	case 7:
		return "Flink master"
	}
	return "Flink 2.x"
}
