package model

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model/internal/javamap"
	"github.com/restoresim/restoresim/model/internal/mutant"
)

// OperatorID models org.apache.flink.runtime.jobgraph.OperatorID (an AbstractID: 16 bytes, the
// upper and lower long in big-endian order). String gives Flink's 32 lowercase hex digits.
type OperatorID [16]byte

// String gives the 32 lowercase hex digits Flink prints.
func (id OperatorID) String() string { return hex.EncodeToString(id[:]) }

// MarshalText encodes the ID as 32 lowercase hex digits.
func (id OperatorID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses 32 hex digits.
func (id *OperatorID) UnmarshalText(b []byte) error {
	p, err := ParseOperatorID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// ErrInvalidOperatorID is returned by ParseOperatorID.
var ErrInvalidOperatorID = errors.New("invalid operator ID (want 32 hex digits)")

// ParseOperatorID parses 32 hex digits (either case).
func ParseOperatorID(s string) (OperatorID, error) {
	var id OperatorID
	if len(s) != 32 {
		return id, fmt.Errorf("%w: %q", ErrInvalidOperatorID, s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("%w: %q", ErrInvalidOperatorID, s)
	}
	return id, nil
}

// DistributionMode models OperatorStateHandle.Mode. The zero value is invalid.
type DistributionMode uint8

const (
	// SplitDistribute is SPLIT_DISTRIBUTE: list state split round-robin over the new subtasks.
	SplitDistribute DistributionMode = iota + 1
	// Union is UNION: every new subtask receives every element.
	Union
	// Broadcast is BROADCAST: every subtask holds an identical copy.
	Broadcast
)

// String gives Flink's enum name, e.g. "SPLIT_DISTRIBUTE".
func (m DistributionMode) String() string {
	switch m {
	case SplitDistribute:
		return "SPLIT_DISTRIBUTE"
	case Union:
		return "UNION"
	case Broadcast:
		return "BROADCAST"
	}
	return fmt.Sprintf("DistributionMode(%d)", uint8(m))
}

// ErrUnknownDistributionMode is returned by ParseDistributionMode.
var ErrUnknownDistributionMode = errors.New("unknown distribution mode (want SPLIT_DISTRIBUTE, UNION or BROADCAST)")

// ParseDistributionMode parses Flink's enum name.
func ParseDistributionMode(s string) (DistributionMode, error) {
	switch s {
	case "SPLIT_DISTRIBUTE":
		return SplitDistribute, nil
	case "UNION":
		return Union, nil
	case "BROADCAST":
		return Broadcast, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownDistributionMode, s)
}

// MarshalText encodes the mode as Flink's enum name.
func (m DistributionMode) MarshalText() ([]byte, error) {
	if m < SplitDistribute || m > Broadcast {
		return nil, fmt.Errorf("%w: %d", ErrUnknownDistributionMode, uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText parses Flink's enum name.
func (m *DistributionMode) UnmarshalText(b []byte) error {
	p, err := ParseDistributionMode(string(b))
	if err != nil {
		return err
	}
	*m = p
	return nil
}

// StreamHandle identifies the bytes behind a state handle (Flink's StreamStateHandle: a
// FileStateHandle, RelativeFileStateHandle or ByteStreamStateHandle). The model takes two
// handles for the same stream iff they are equal (==); Flink's equals compares the path (or
// name) only, not the size, which is what the shared-state registry compares
// (SharedHandle.sameAs).
type StreamHandle struct {
	// Path is the file path (absolute, or relative to the checkpoint directory when Relative),
	// or the handle name of an in-memory ByteStreamStateHandle.
	Path string `json:"path"`
	// Size is the state size in bytes.
	Size int64 `json:"size"`
	// InMemory marks a ByteStreamStateHandle (bytes inline in the metadata).
	InMemory bool `json:"in_memory,omitempty"`
	// Relative marks a RelativeFileStateHandle.
	Relative bool `json:"relative,omitempty"`
}

// NamedOperatorState is one entry of an OperatorStateHandle's name → StateMetaInfo map.
type NamedOperatorState struct {
	Name    string           `json:"name"`
	Mode    DistributionMode `json:"mode"`
	Offsets []int64          `json:"offsets"`
}

// OperatorStateHandle models OperatorStreamStateHandle: a delegate stream plus the named states
// in it. States are listed in the order Flink iterates the handle's map (the order the
// repartitioner visits them; see SPEC §E.3 and the metadata FORMAT §8.4).
type OperatorStateHandle struct {
	Delegate StreamHandle         `json:"delegate"`
	States   []NamedOperatorState `json:"states"`
}

// KeyedStateHandle models org.apache.flink.runtime.state.KeyedStateHandle: keyed state for a
// range of key groups that can be cut to a new range (KeyedStateHandle.getIntersection).
type KeyedStateHandle interface {
	// KeyGroupRange is the range of key groups the handle holds.
	KeyGroupRange() KeyGroupRange
	// Intersection models getIntersection: the handle to hand to a subtask owning r, or nil
	// when the handle holds nothing for r (SPEC §D.3).
	Intersection(r KeyGroupRange) KeyedStateHandle
	// StateSize is the size of the state in bytes.
	StateSize() int64
}

// KeyGroupsStateHandle models KeyGroupsStateHandle (and, with Savepoint set,
// KeyGroupsSavepointStateHandle): full snapshots of the heap backend, canonical savepoints.
// Offsets give, per key group, where its data starts in Delegate.
type KeyGroupsStateHandle struct {
	Offsets  KeyGroupRangeOffsets `json:"key_groups"`
	Delegate StreamHandle         `json:"delegate"`
	// StateHandleID is kept by intersections (modern Flink).
	StateHandleID string `json:"state_handle_id,omitempty"`
	Savepoint     bool   `json:"savepoint,omitempty"`
}

// KeyGroupRange implements KeyedStateHandle.
func (h *KeyGroupsStateHandle) KeyGroupRange() KeyGroupRange { return h.Offsets.Range }

// StateSize implements KeyedStateHandle.
func (h *KeyGroupsStateHandle) StateSize() int64 { return h.Delegate.Size }

// Intersection implements KeyedStateHandle: the overlapping key groups with their offsets over
// the same stream, or nil when nothing overlaps.
func (h *KeyGroupsStateHandle) Intersection(r KeyGroupRange) KeyedStateHandle {
	o := h.Offsets.Intersection(r)
	if o.Range.NumberOfKeyGroups() == 0 {
		return nil
	}
	return &KeyGroupsStateHandle{Offsets: o, Delegate: h.Delegate, StateHandleID: h.StateHandleID, Savepoint: h.Savepoint}
}

// SharedFile is one (local path, stream) entry of an incremental handle's shared or private
// file list (Flink's HandleAndLocalPath).
type SharedFile struct {
	LocalPath string       `json:"local_path"`
	Handle    StreamHandle `json:"handle"`
}

// IncrementalKeyedStateHandle models IncrementalRemoteKeyedStateHandle (RocksDB incremental
// checkpoints, native savepoints) and, with Local set, the local/directory handles of local
// recovery. It is cut all-or-nothing (SPEC §D.3).
type IncrementalKeyedStateHandle struct {
	BackendID    string        `json:"backend_id"`
	Range        KeyGroupRange `json:"key_group_range"`
	CheckpointID int64         `json:"checkpoint_id"`
	Shared       []SharedFile  `json:"shared"`
	Private      []SharedFile  `json:"private"`
	Meta         StreamHandle  `json:"meta"`
	// CheckpointedSize is the incremental size (format tag 11); 0 when unknown.
	CheckpointedSize int64  `json:"checkpointed_size,omitempty"`
	StateHandleID    string `json:"state_handle_id,omitempty"`
	Local            bool   `json:"local,omitempty"`
}

// KeyGroupRange implements KeyedStateHandle.
func (h *IncrementalKeyedStateHandle) KeyGroupRange() KeyGroupRange { return h.Range }

// StateSize implements KeyedStateHandle: the sum of the meta, shared and private file sizes.
func (h *IncrementalKeyedStateHandle) StateSize() int64 {
	n := h.Meta.Size
	for _, f := range h.Shared {
		n += f.Handle.Size
	}
	for _, f := range h.Private {
		n += f.Handle.Size
	}
	return n
}

// Intersection implements KeyedStateHandle: the whole, unmodified handle when its range overlaps
// r at all, else nil.
func (h *IncrementalKeyedStateHandle) Intersection(r KeyGroupRange) KeyedStateHandle {
	if h.Range.Intersection(r).IsEmpty() {
		return nil
	}
	if mutant.On(mutant.IncrementalCutToRange) {
		c := *h
		c.Range = h.Range.Intersection(r)
		return &c
	}
	return h
}

// ChannelStateHandle models one in-flight (unaligned checkpoint) channel state handle:
// InputChannelStateHandle (input channel state) or ResultSubpartitionStateHandle (result
// subpartition state). AssignStates redistributes them over the job edges (channel.go).
type ChannelStateHandle struct {
	SubtaskIndex int          `json:"subtask_index"`
	Delegate     StreamHandle `json:"delegate"`
	// GateOrPartition is InputChannelInfo.gateIdx (input) or ResultSubpartitionInfo.partitionIdx
	// (output); Channel is inputChannelIdx or subPartitionIdx.
	GateOrPartition int `json:"gate_or_partition,omitempty"`
	Channel         int `json:"channel,omitempty"`
	// Offsets are the handle's buffer offsets in Delegate. A handle without offsets holds no data:
	// checkForUnsupportedToplogyChanges ignores it (hasChannelState).
	Offsets []int64 `json:"offsets,omitempty"`
	// StateSize is the handle's own bytes in Delegate (getStateSize: the sum of its buffers; a
	// subtask's handles usually share one delegate file); 0 when not known.
	StateSize int64 `json:"state_size,omitempty"`
}

// OperatorSubtaskState models OperatorSubtaskState: the state of one operator instance. An
// empty (non-nil) OperatorSubtaskState in an OperatorState still counts as an entry.
type OperatorSubtaskState struct {
	// Finished marks FinishedOperatorSubtaskState (1.18, FLIP-147): the subtask had finished
	// before the checkpoint; it holds no state (VertexFinishedStateChecker reads it).
	Finished bool `json:"finished,omitempty"`

	ManagedOperatorState []OperatorStateHandle `json:"managed_operator_state"`
	RawOperatorState     []OperatorStateHandle `json:"raw_operator_state"`
	ManagedKeyedState    []KeyedStateHandle    `json:"managed_keyed_state"`
	RawKeyedState        []KeyedStateHandle    `json:"raw_keyed_state"`
	// InputChannelState and ResultSubpartitionState are in-flight data (unaligned checkpoints).
	InputChannelState       []ChannelStateHandle `json:"input_channel_state,omitempty"`
	ResultSubpartitionState []ChannelStateHandle `json:"result_subpartition_state,omitempty"`
	// InputRescalingDescriptor and OutputRescalingDescriptor are set by AssignStates on a
	// restore object's input and output operator (getInputRescalingDescriptor,
	// getOutputRescalingDescriptor); nil is InflightDataRescalingDescriptor.NO_RESCALE.
	InputRescalingDescriptor  *InflightDataRescalingDescriptor `json:"input_rescaling_descriptor,omitempty"`
	OutputRescalingDescriptor *InflightDataRescalingDescriptor `json:"output_rescaling_descriptor,omitempty"`
}

// HasState models OperatorSubtaskState.hasState: any handle in any of the six collections
// (an operator-state handle with no named states still counts).
func (s *OperatorSubtaskState) HasState() bool {
	if s == nil {
		return false
	}
	for _, h := range s.ManagedKeyedState {
		if h != nil {
			return true
		}
	}
	for _, h := range s.RawKeyedState {
		if h != nil {
			return true
		}
	}
	return len(s.ManagedOperatorState) > 0 || len(s.RawOperatorState) > 0 ||
		len(s.InputChannelState) > 0 || len(s.ResultSubpartitionState) > 0
}

// OperatorState models org.apache.flink.runtime.checkpoint.OperatorState: one operator's state
// over all its subtasks in a checkpoint.
type OperatorState struct {
	OperatorID     OperatorID `json:"operator_id"`
	Parallelism    int        `json:"parallelism"`
	MaxParallelism int        `json:"max_parallelism"`
	// Subtasks is indexed by subtask index; nil means no entry for that subtask. Its length may be
	// below Parallelism (trailing subtasks without entry) but never above.
	Subtasks []*OperatorSubtaskState `json:"subtasks"`
	// CoordinatorState is the operator coordinator's state, if any (modern only).
	CoordinatorState *StreamHandle `json:"coordinator_state,omitempty"`
	// FullyFinished marks FLIP-147's FullyFinishedOperatorState.
	FullyFinished bool `json:"fully_finished,omitempty"`
}

// Subtask returns subtask i's entry, or nil when there is none.
func (s *OperatorState) Subtask(i int) *OperatorSubtaskState {
	if i < 0 || i >= len(s.Subtasks) {
		return nil
	}
	return s.Subtasks[i]
}

// NumberOfSubtaskEntries counts the non-nil subtask entries.
func (s *OperatorState) NumberOfSubtaskEntries() int {
	n := 0
	for _, st := range s.Subtasks {
		if st != nil {
			n++
		}
	}
	return n
}

// HasSubtaskStates models OperatorState.hasSubtaskStates: at least one subtask entry exists.
func (s *OperatorState) HasSubtaskStates() bool { return s.NumberOfSubtaskEntries() > 0 }

// JobOperator is one operator of a job vertex's chain.
type JobOperator struct {
	// ID is the generated operator ID (hash of the topology position, or of uid(...)).
	ID OperatorID `json:"id"`
	// UserDefinedID is the ID set with setUidHash, if any.
	UserDefinedID *OperatorID `json:"user_defined_id,omitempty"`
}

// JobVertex models the parts of an ExecutionJobVertex the restore path reads: one task (a chain
// of operators) with its parallelism and max parallelism.
type JobVertex struct {
	// Name is for messages only.
	Name string `json:"name"`
	// Operators lists the chain as Flink lists it: tail-first, the last element is the chain head.
	Operators   []JobOperator `json:"operators"`
	Parallelism int           `json:"parallelism"`
	// MaxParallelism is the vertex's max parallelism; when MaxParallelismConfigured is false it
	// was derived by ComputeDefaultMaxParallelism and may be replaced by the restored one.
	MaxParallelism           int  `json:"max_parallelism"`
	MaxParallelismConfigured bool `json:"max_parallelism_configured"`
	// Inputs are the vertex's input gates in order (ExecutionJobVertex.getInputs, each a
	// JobEdge from the producing vertex). Only the restore of in-flight channel state reads
	// them; a vertex without edges keeps its channel state 1:1 at unchanged parallelism.
	Inputs []JobEdge `json:"inputs,omitempty"`
}

// SharingFilesStrategy models SnapshotType.SharingFilesStrategy.
type SharingFilesStrategy uint8

const (
	// ForwardBackward is FORWARD_BACKWARD: regular (incremental) checkpoints.
	ForwardBackward SharingFilesStrategy = iota + 1
	// Forward is FORWARD.
	Forward
	// NoSharing is NO_SHARING: savepoints (canonical and native).
	NoSharing
)

// CheckpointProperties models the parts of CheckpointProperties the restore path reads.
type CheckpointProperties struct {
	// Savepoint is true for savepoints (CheckpointProperties.isSavepoint).
	Savepoint bool `json:"savepoint"`
	// Synchronous is true for a stop-with-savepoint (postCheckpointAction SUSPEND/TERMINATE).
	Synchronous bool `json:"synchronous,omitempty"`
	// Forced is CheckpointProperties.forced.
	Forced bool `json:"forced"`
	// Unclaimed marks a snapshot restored in NO_CLAIM mode.
	Unclaimed bool `json:"unclaimed,omitempty"`
	// DiscardSubsumed: the snapshot's files are deleted when it is subsumed (regular checkpoints).
	DiscardSubsumed bool `json:"discard_subsumed"`
	// Native marks a NATIVE-format savepoint (canonical otherwise; meaningless for checkpoints).
	Native  bool                 `json:"native,omitempty"`
	Sharing SharingFilesStrategy `json:"sharing,omitempty"`

	// Retention is the retention policy of a regular checkpoint (CheckpointProperties.
	// forCheckpoint(policy)): which job terminations discard it (ShouldBeDiscardedOnShutdown).
	Retention CheckpointRetentionPolicy `json:"retention,omitempty"`
}

// MasterState is one master-hook state of a checkpoint (opaque bytes).
type MasterState struct {
	Name    string `json:"name"`
	Version int32  `json:"version"`
	Bytes   int    `json:"bytes"`
}

// CheckpointMetadata models checkpoint.metadata.CheckpointMetadata: what a _metadata file holds.
type CheckpointMetadata struct {
	CheckpointID int64         `json:"checkpoint_id"`
	MasterStates []MasterState `json:"master_states,omitempty"`
	// Operators are in metadata order.
	Operators []OperatorState `json:"operators"`
	// Properties is nil before format version 4.
	Properties *CheckpointProperties `json:"properties,omitempty"`
}

// LoadedOperatorStates models the map an operator-state handle's named states end up in when
// Flink's metadata loader reads them: a java.util.HashMap made with
// CollectionUtil.newHashMapWithExpectedSize(n) (new HashMap<>(n) in 1.10.1), filled with put in
// the order written — a repeated name keeps its first place and its last value. It gives the
// states in that map's iteration order, the order an OperatorStateHandle lists them in. The
// offsets are shared with states.
func LoadedOperatorStates(v FlinkVersion, states []NamedOperatorState) []NamedOperatorState {
	m := javamap.WithExpectedSize(javamap.String, len(states))
	if v == Flink1101 {
		m = javamap.WithInitialCapacity(javamap.String, len(states))
	}
	var values []NamedOperatorState // by key number: the last put of each name
	for _, st := range states {
		if n, added := m.Put(st.Name); added {
			values = append(values, st)
		} else {
			values[n] = st
		}
	}
	out := make([]NamedOperatorState, 0, len(values))
	for _, n := range m.Order() {
		out = append(out, values[n])
	}
	return out
}
