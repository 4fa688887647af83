package assigncase

import (
	"errors"
	"fmt"
	"regexp"
	"sync"
)

// The types below follow ASSIGN-CASE.md field for field; a pointer or omitempty field is
// optional (omitted when absent), every other field is required.

// Case is one assignment case: what StateAssignmentOperation.assignStates is given.
type Case struct {
	CheckpointID          int64 `json:"checkpoint_id"`
	AllowNonRestoredState *bool `json:"allow_non_restored_state,omitempty"`
	// RecoverOutputOnDownstreamTask is 2.3+'s flag (FLINK-38542); older versions refuse it as
	// input. The model does not implement it (see Case.Input).
	RecoverOutputOnDownstreamTask *bool `json:"recover_output_on_downstream_task,omitempty"`
	// Vertices are the new job's vertices, in order; an edge names its upstream by index.
	Vertices []Vertex `json:"vertices"`
	// Operators are the checkpoint's OperatorStates, in metadata order.
	Operators []OperatorState `json:"operators"`
}

// Vertex is one vertex of the new job (an ExecutionJobVertex).
type Vertex struct {
	Name string `json:"name"`
	// ID is the JobVertexID (default: the chain head's operator id). Flink's messages name it;
	// the model's name the vertex by Name, so it is checked and otherwise unused.
	ID *string `json:"id,omitempty"`
	// Operators are the chain in Flink's order: tail first, head last.
	Operators   []VertexOperator `json:"operators"`
	Parallelism int              `json:"parallelism"`
	// MaxParallelism is required when MaxParallelismConfigured; without it the vertex takes
	// Flink's default for its parallelism.
	MaxParallelism           *int    `json:"max_parallelism,omitempty"`
	MaxParallelismConfigured bool    `json:"max_parallelism_configured"`
	Inputs                   []Input `json:"inputs,omitempty"`
}

// VertexOperator is one operator of a vertex's chain. Name and UID are informational (the ID is
// what Flink matches state by); the model has no field for them.
type VertexOperator struct {
	ID            string  `json:"id"`
	UserDefinedID *string `json:"user_defined_id,omitempty"`
	Name          *string `json:"name,omitempty"`
	UID           *string `json:"uid,omitempty"`
}

// Input is one input gate of a vertex: a JobEdge from an upstream vertex's produced data set.
type Input struct {
	// Upstream is the index of the producing vertex in Case.Vertices.
	Upstream int `json:"upstream"`
	// Partition indexes the upstream's produced data sets; a missing one takes the next free
	// index.
	Partition        *int   `json:"partition,omitempty"`
	UpstreamMapper   string `json:"upstream_mapper"`
	DownstreamMapper string `json:"downstream_mapper"`
	// DistributionPattern, Broadcast and Forward describe the edge; StateAssignmentOperation
	// and TaskStateAssignment do not read them (the mappers carry what they need), and the
	// model's JobEdge has no field for them: they are checked and otherwise unused.
	DistributionPattern *string `json:"distribution_pattern,omitempty"`
	Broadcast           *bool   `json:"broadcast,omitempty"`
	Forward             *bool   `json:"forward,omitempty"`
}

// OperatorState is one operator's state in the checkpoint.
type OperatorState struct {
	OperatorID     string `json:"operator_id"`
	Parallelism    int    `json:"parallelism"`
	MaxParallelism int    `json:"max_parallelism"`
	FullyFinished  *bool  `json:"fully_finished,omitempty"`
	// Name and UID (2.x, FLINK-36001) are stored on the OperatorState and read by no step of
	// the assignment; the model's OperatorState has no field for them.
	Name             *string `json:"name,omitempty"`
	UID              *string `json:"uid,omitempty"`
	CoordinatorState *Stream `json:"coordinator_state,omitempty"`
	// Subtasks[i] is old subtask i: nil (JSON null) for no entry.
	Subtasks []*Subtask `json:"subtasks"`
}

// Subtask is one old subtask's OperatorSubtaskState: {"finished": true} for a finished
// subtask, else its state.
type Subtask struct {
	Finished                *bool                 `json:"finished,omitempty"`
	ManagedOperatorState    []OperatorStateHandle `json:"managed_operator_state,omitempty"`
	RawOperatorState        []OperatorStateHandle `json:"raw_operator_state,omitempty"`
	ManagedKeyedState       []KeyedHandle         `json:"managed_keyed_state,omitempty"`
	RawKeyedState           []KeyedHandle         `json:"raw_keyed_state,omitempty"`
	InputChannelState       []ChannelHandle       `json:"input_channel_state,omitempty"`
	ResultSubpartitionState []ChannelHandle       `json:"result_subpartition_state,omitempty"`
}

// OperatorStateHandle is an OperatorStreamStateHandle: a delegate stream and its named states.
// In a case the states are listed in the order Flink's loader puts them into the handle's map;
// in an answer, in that map's iteration order.
type OperatorStateHandle struct {
	Delegate Stream       `json:"delegate"`
	States   []NamedState `json:"states"`
}

// NamedState is one entry of an operator-state handle's map.
type NamedState struct {
	Name    string  `json:"name"`
	Mode    string  `json:"mode"`
	Offsets []int64 `json:"offsets"`
}

// KeyedHandle is a keyed-state handle: Type "KeyGroupsStateHandle" or
// "KeyGroupsSavepointStateHandle" (KeyGroups, Delegate) or "IncrementalRemoteKeyedStateHandle"
// (BackendID, KeyGroupRange, CheckpointID, Shared, Private, Meta, CheckpointedSize).
type KeyedHandle struct {
	Type             string        `json:"type"`
	KeyGroups        *KeyGroups    `json:"key_groups,omitempty"`
	Delegate         *Stream       `json:"delegate,omitempty"`
	BackendID        *string       `json:"backend_id,omitempty"`
	KeyGroupRange    *Range        `json:"key_group_range,omitempty"`
	CheckpointID     *int64        `json:"checkpoint_id,omitempty"`
	Shared           *[]SharedFile `json:"shared,omitempty"`
	Private          *[]SharedFile `json:"private,omitempty"`
	Meta             *Stream       `json:"meta,omitempty"`
	CheckpointedSize *int64        `json:"checkpointed_size,omitempty"`
	StateHandleID    *string       `json:"state_handle_id,omitempty"`
}

// The keyed handle types.
const (
	KeyGroupsStateHandle              = "KeyGroupsStateHandle"
	KeyGroupsSavepointStateHandle     = "KeyGroupsSavepointStateHandle"
	IncrementalRemoteKeyedStateHandle = "IncrementalRemoteKeyedStateHandle"
)

// KeyGroups is a KeyGroupRangeOffsets: one offset per key group of the range.
type KeyGroups struct {
	Range   Range   `json:"range"`
	Offsets []int64 `json:"offsets"`
}

// Range is a KeyGroupRange.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SharedFile is one (local path, handle) of an incremental handle.
type SharedFile struct {
	LocalPath string `json:"local_path"`
	Handle    Stream `json:"handle"`
}

// ChannelHandle is an InputChannelStateHandle (GateOrPartition = the input gate, Channel = the
// input channel) or a ResultSubpartitionStateHandle (the result partition and subpartition).
type ChannelHandle struct {
	SubtaskIndex    *int    `json:"subtask_index,omitempty"`
	GateOrPartition int     `json:"gate_or_partition"`
	Channel         int     `json:"channel"`
	Offsets         []int64 `json:"offsets"`
	StateSize       *int64  `json:"state_size,omitempty"`
	Delegate        Stream  `json:"delegate"`
}

// Stream is a StreamStateHandle: a FileStateHandle (Path is its file), a ByteStreamStateHandle
// (InMemory; Path is its name) or a RelativeFileStateHandle (Relative, with RelativePath).
type Stream struct {
	Path         string  `json:"path"`
	Size         int64   `json:"size"`
	InMemory     *bool   `json:"in_memory,omitempty"`
	Relative     *bool   `json:"relative,omitempty"`
	RelativePath *string `json:"relative_path,omitempty"`
}

// ErrInvalidCase is returned (wrapped, with the field's path) for a line that is not a case.
var ErrInvalidCase = errors.New("invalid case")

// DecodeCase reads one case, strictly (see strict.go): any problem is an error wrapping
// ErrInvalidCase whose one-line message names the field's path. It also checks what the
// format fixes beyond types: 32-hex ids, modes, mapper names, the shape of each keyed handle,
// a "finished" subtask without state. Whether the state could be built (as Flink's
// constructors would) is Case.Input's business.
func DecodeCase(data []byte) (*Case, error) {
	var c Case
	if err := decodeStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidCase, err)
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidCase, err)
	}
	return &c, nil
}

var hex32 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{32}$`) }) // (compiled when first used, not at start-up)

func checkID(path, id string) error {
	if !hex32().MatchString(id) {
		return fmt.Errorf("%s: %q is not 32 hex digits", path, id)
	}
	return nil
}

var (
	modes   = []string{"SPLIT_DISTRIBUTE", "UNION", "BROADCAST"}
	mappers = []string{"ARBITRARY", "FIRST", "FULL", "RANGE", "ROUND_ROBIN", "UNSUPPORTED"}
)

func (c *Case) validate() error {
	for i, v := range c.Vertices {
		p := fmt.Sprintf("vertices[%d]", i)
		if v.ID != nil {
			if err := checkID(p+".id", *v.ID); err != nil {
				return err
			}
		}
		if len(v.Operators) == 0 {
			return fmt.Errorf("%s.operators: empty (a vertex has at least one operator)", p)
		}
		for k, op := range v.Operators {
			if err := checkID(fmt.Sprintf("%s.operators[%d].id", p, k), op.ID); err != nil {
				return err
			}
			if op.UserDefinedID != nil {
				if err := checkID(fmt.Sprintf("%s.operators[%d].user_defined_id", p, k), *op.UserDefinedID); err != nil {
					return err
				}
			}
		}
		if v.MaxParallelismConfigured && v.MaxParallelism == nil {
			return fmt.Errorf("%s: max_parallelism_configured is true without max_parallelism", p)
		}
		for g, in := range v.Inputs {
			q := fmt.Sprintf("%s.inputs[%d]", p, g)
			if in.Upstream < 0 || in.Upstream >= len(c.Vertices) || in.Upstream == i {
				return fmt.Errorf("%s.upstream: %d is not another vertex of the case", q, in.Upstream)
			}
			if in.Partition != nil && *in.Partition < 0 {
				return fmt.Errorf("%s.partition: %d is negative", q, *in.Partition)
			}
			if !contains(mappers, in.UpstreamMapper) {
				return fmt.Errorf("%s.upstream_mapper: %q is not one of %v", q, in.UpstreamMapper, mappers)
			}
			if !contains(mappers, in.DownstreamMapper) {
				return fmt.Errorf("%s.downstream_mapper: %q is not one of %v", q, in.DownstreamMapper, mappers)
			}
			if d := in.DistributionPattern; d != nil && *d != "ALL_TO_ALL" && *d != "POINTWISE" {
				return fmt.Errorf("%s.distribution_pattern: %q is not ALL_TO_ALL or POINTWISE", q, *d)
			}
		}
	}
	for i, os := range c.Operators {
		p := fmt.Sprintf("operators[%d]", i)
		if err := checkID(p+".operator_id", os.OperatorID); err != nil {
			return err
		}
		if os.CoordinatorState != nil {
			if err := os.CoordinatorState.validate(p + ".coordinator_state"); err != nil {
				return err
			}
		}
		for j, st := range os.Subtasks {
			if st == nil {
				continue
			}
			if err := st.validate(fmt.Sprintf("%s.subtasks[%d]", p, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Subtask) validate(p string) error {
	if s.Finished != nil {
		if !*s.Finished {
			return fmt.Errorf("%s.finished: false (a finished subtask is {\"finished\": true}; leave it out otherwise)", p)
		}
		if s.ManagedOperatorState != nil || s.RawOperatorState != nil || s.ManagedKeyedState != nil || s.RawKeyedState != nil ||
			s.InputChannelState != nil || s.ResultSubpartitionState != nil {
			return fmt.Errorf("%s: a finished subtask holds no state", p)
		}
	}
	for _, l := range []struct {
		name string
		hs   []OperatorStateHandle
	}{{"managed_operator_state", s.ManagedOperatorState}, {"raw_operator_state", s.RawOperatorState}} {
		name, hs := l.name, l.hs
		for k, h := range hs {
			q := fmt.Sprintf("%s.%s[%d]", p, name, k)
			if err := h.Delegate.validate(q + ".delegate"); err != nil {
				return err
			}
			for n, st := range h.States {
				if !contains(modes, st.Mode) {
					return fmt.Errorf("%s.states[%d].mode: %q is not one of %v", q, n, st.Mode, modes)
				}
			}
		}
	}
	for _, l := range []struct {
		name string
		hs   []KeyedHandle
	}{{"managed_keyed_state", s.ManagedKeyedState}, {"raw_keyed_state", s.RawKeyedState}} {
		name, hs := l.name, l.hs
		for k := range hs {
			if err := hs[k].validate(fmt.Sprintf("%s.%s[%d]", p, name, k)); err != nil {
				return err
			}
		}
	}
	for _, l := range []struct {
		name string
		hs   []ChannelHandle
	}{{"input_channel_state", s.InputChannelState}, {"result_subpartition_state", s.ResultSubpartitionState}} {
		name, hs := l.name, l.hs
		for k, h := range hs {
			q := fmt.Sprintf("%s.%s[%d]", p, name, k)
			if h.GateOrPartition < 0 || h.Channel < 0 || (h.SubtaskIndex != nil && *h.SubtaskIndex < 0) {
				return fmt.Errorf("%s: a negative index", q)
			}
			if err := h.Delegate.validate(q + ".delegate"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *KeyedHandle) validate(p string) error {
	var need, forbid []string
	given := map[string]bool{
		"key_groups": h.KeyGroups != nil, "delegate": h.Delegate != nil, "backend_id": h.BackendID != nil,
		"key_group_range": h.KeyGroupRange != nil, "checkpoint_id": h.CheckpointID != nil, "shared": h.Shared != nil,
		"private": h.Private != nil, "meta": h.Meta != nil, "checkpointed_size": h.CheckpointedSize != nil,
	}
	keyGroups := []string{"key_groups", "delegate"}
	incremental := []string{"backend_id", "key_group_range", "checkpoint_id", "shared", "private", "meta"}
	switch h.Type {
	case KeyGroupsStateHandle, KeyGroupsSavepointStateHandle:
		need, forbid = keyGroups, append(incremental, "checkpointed_size")
	case IncrementalRemoteKeyedStateHandle:
		need, forbid = incremental, keyGroups
	default:
		return fmt.Errorf("%s.type: %q is not %s, %s or %s", p, h.Type, KeyGroupsStateHandle, KeyGroupsSavepointStateHandle, IncrementalRemoteKeyedStateHandle)
	}
	for _, f := range need {
		if !given[f] {
			return fmt.Errorf("%s: a %s needs %q", p, h.Type, f)
		}
	}
	for _, f := range forbid {
		if given[f] {
			return fmt.Errorf("%s: a %s has no %q", p, h.Type, f)
		}
	}
	if h.Delegate != nil {
		if err := h.Delegate.validate(p + ".delegate"); err != nil {
			return err
		}
	}
	if h.Meta != nil {
		if err := h.Meta.validate(p + ".meta"); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		name string
		fs   *[]SharedFile
	}{{"shared", h.Shared}, {"private", h.Private}} {
		if l.fs == nil {
			continue
		}
		for k, f := range *l.fs {
			if err := f.Handle.validate(fmt.Sprintf("%s.%s[%d].handle", p, l.name, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Stream) validate(p string) error {
	if s.Size < 0 {
		return fmt.Errorf("%s.size: %d is negative", p, s.Size)
	}
	relative := s.Relative != nil && *s.Relative
	if s.InMemory != nil && *s.InMemory && relative {
		return fmt.Errorf("%s: in_memory and relative at once", p)
	}
	if (s.RelativePath != nil) != relative {
		return fmt.Errorf("%s: relative_path goes with \"relative\": true, and only with it", p)
	}
	return nil
}
