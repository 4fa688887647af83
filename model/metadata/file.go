package metadata

import "github.com/restoresim/restoresim/model"

// Magic is the first four bytes of every metadata file (Checkpoints.HEADER_MAGIC_NUMBER).
const Magic uint32 = 0x4960672D

// Format versions this package reads (MetadataV2Serializer … MetadataV7Serializer).
const (
	MinVersion = 2
	MaxVersion = 7
	// WriteVersion is the version Flink 1.16 to 1.20 write (MetadataV4Serializer) and the one
	// FromModel produces.
	WriteVersion = 4
)

// Stream-handle tags (MetadataV2V3SerializerBase.serializeStreamStateHandle).
const (
	TagNull                      byte = 0
	TagByteStream                byte = 1  // ByteStreamStateHandle
	TagFile                      byte = 2  // FileStateHandle
	TagKeyGroups                 byte = 3  // KeyGroupsStateHandle (no state-handle id)
	TagOperatorStream            byte = 4  // OperatorStreamStateHandle
	TagIncrementalV1             byte = 5  // IncrementalRemoteKeyedStateHandle (no sizes, no id)
	TagRelativeFile              byte = 6  // RelativeFileStateHandle
	TagKeyGroupsSavepoint        byte = 7  // KeyGroupsSavepointStateHandle
	TagChangelogBackendV1        byte = 8  // ChangelogStateBackendHandleImpl (no checkpoint id)
	TagInMemoryChangelog         byte = 9  // InMemoryChangelogStateHandle
	TagChangelogStreamV1         byte = 10 // ChangelogStateHandleStreamImpl (no storage id)
	TagIncremental               byte = 11 // IncrementalRemoteKeyedStateHandle with sizes and id
	TagKeyGroupsV2               byte = 12 // KeyGroupsStateHandle with a state-handle id
	TagChangelogStream           byte = 13 // ChangelogStateHandleStreamImpl with storage id
	TagChangelogBackend          byte = 14 // ChangelogStateBackendHandleImpl with checkpoint id
	TagSegmentFile               byte = 15 // SegmentFileStateHandle (file merging)
	TagEmptySegmentFile          byte = 16 // EmptySegmentFileStateHandle
	TagFileMergingOperatorStream byte = 17 // FileMergingOperatorStreamStateHandle
)

// File is one decoded _metadata file (Flink's CheckpointMetadata as MetadataV2…V7Serializer
// lays it out), keeping format-level detail so that Write reproduces the bytes: every handle
// keeps its tag, operators and subtasks keep file order, operator-state entries keep the
// writer's order. Model converts it to the model's values.
type File struct {
	// Version is the format version from the header (2 to 7).
	Version int32
	// CheckpointID is the checkpoint (or savepoint) id.
	CheckpointID int64
	// MasterStates are the master-hook states (MasterState), in file order.
	MasterStates []MasterState
	// Operators are in file order (Flink writes them in hash-map order; it means nothing).
	Operators []Operator
	// Properties is the Java-serialized CheckpointProperties of versions 4 and later; nil
	// before. In a version 4+ file nil is a serialized Java null (the 5 bytes ac ed 00 05 70):
	// savepoints written by the State Processor API carry no properties, Flink restores them
	// (CompletedCheckpoint's restored properties are then null) and Write re-encodes the null.
	Properties *Properties
	// Changelog114 is set when the changelog handles (tags 8, 9, 10) use Flink 1.14's layout
	// (no sizes, no ids); FORMAT.md §8.3.
	Changelog114 bool
}

// MasterState models checkpoint.MasterState: a master hook's opaque state.
type MasterState struct {
	Name    string
	Version int32
	Data    []byte
}

// Operator models checkpoint.OperatorState as written by serializeOperatorState.
type Operator struct {
	// Name and UID are written from version 5 on ("" = none).
	Name, UID string
	ID        model.OperatorID
	// Parallelism and MaxParallelism are the values at checkpoint time.
	Parallelism, MaxParallelism int32
	// ChainLength is version 2's dead chain-length field (always 1 in practice).
	ChainLength int32
	// CoordinatorState is the OperatorCoordinator's state (versions 3+); nil when there is none.
	// It is always a ByteStreamStateHandle.
	CoordinatorState *StreamHandle
	// FullyFinished marks a FullyFinishedOperatorState (subtask count written as -1).
	FullyFinished bool
	// Subtasks are in file order.
	Subtasks []Subtask
}

// Subtask models checkpoint.OperatorSubtaskState as written by serializeSubtaskState, with the
// subtask index that precedes it.
type Subtask struct {
	// Index is the subtask index.
	Index int32
	// Finished marks a FinishedOperatorSubtaskState (index written as -Index-1, no body).
	Finished bool
	// Duration is version 2's dead duration field (-1 in practice).
	Duration int64
	// Legacy holds version 2's legacy (pre-1.4 "Checkpointed") stream handles; nil entries
	// are null handles. Flink 1.4 and later refuse a file with a non-empty list; this reader
	// keeps it (two real Flink 1.3 files have one) and Model ignores it.
	Legacy []*StreamHandle
	// ManagedOperatorState and RawOperatorState are nil when the presence flag is 0.
	ManagedOperatorState, RawOperatorState *OperatorHandle
	// ManagedKeyedState and RawKeyedState are nil for tag 0.
	ManagedKeyedState, RawKeyedState KeyedHandle
	// InputChannels and OutputChannels are the unaligned-checkpoint channel states (v3+).
	InputChannels, OutputChannels []ChannelHandle
	// RefCheckpointID is version 7's optional reference checkpoint id.
	RefCheckpointID *int64
}

// StreamHandle is one StreamStateHandle; a nil *StreamHandle is the null handle (tag 0).
type StreamHandle struct {
	// Tag is TagByteStream, TagFile, TagRelativeFile, TagKeyGroups, TagSegmentFile or
	// TagEmptySegmentFile.
	Tag byte
	// Name is a ByteStreamStateHandle's handle name.
	Name string
	// Data is a ByteStreamStateHandle's inline bytes.
	Data []byte
	// Path is the file path (absolute for TagFile, relative to the checkpoint directory for
	// TagRelativeFile, the physical file for TagSegmentFile).
	Path string
	// Size is the state size of file and segment handles.
	Size int64
	// StartPos, Scope (0 EXCLUSIVE, 1 SHARED) and LogicalFileID describe a SegmentFileStateHandle.
	StartPos      int64
	Scope         int32
	LogicalFileID string
	// KeyGroups is the nested key-groups handle of a TagKeyGroups stream handle.
	KeyGroups *KeyGroupsHandle
}

// StateSize models StreamStateHandle.getStateSize.
func (h *StreamHandle) StateSize() int64 {
	if h == nil {
		return 0
	}
	switch h.Tag {
	case TagByteStream:
		return int64(len(h.Data))
	case TagKeyGroups:
		if h.KeyGroups != nil {
			return h.KeyGroups.Delegate.StateSize()
		}
		return 0
	case TagEmptySegmentFile:
		return 0
	}
	return h.Size
}

// ClassName is the Flink class of the handle.
func (h *StreamHandle) ClassName() string {
	if h == nil {
		return "null"
	}
	switch h.Tag {
	case TagByteStream:
		return "ByteStreamStateHandle"
	case TagFile:
		return "FileStateHandle"
	case TagRelativeFile:
		return "RelativeFileStateHandle"
	case TagKeyGroups:
		return "KeyGroupsStateHandle"
	case TagSegmentFile:
		return "SegmentFileStateHandle"
	case TagEmptySegmentFile:
		return "EmptySegmentFileStateHandle"
	}
	return "unknown"
}

// StateEntry is one entry of an operator-state handle's name → StateMetaInfo map.
type StateEntry struct {
	Name string
	// Mode is the OperatorStateHandle.Mode ordinal: 0 SPLIT_DISTRIBUTE, 1 UNION, 2 BROADCAST.
	Mode    byte
	Offsets []int64
}

// ModeName gives Flink's enum name of the entry's mode.
func (e StateEntry) ModeName() string { return modeFromOrdinal(e.Mode).String() }

// OperatorHandle models OperatorStreamStateHandle (tag 4) and FileMergingOperatorStreamStateHandle
// (tag 17). Tag 0 means the presence flag was set but the handle is null (Flink then treats the
// subtask as having no such state).
type OperatorHandle struct {
	Tag byte
	// States are in the writer's (file) order.
	States []StateEntry
	// TaskOwnedDir, SharedDir and IsEmpty belong to tag 17 only.
	TaskOwnedDir, SharedDir string
	IsEmpty                 bool
	Delegate                *StreamHandle
}

// ClassName is the Flink class of the handle.
func (h *OperatorHandle) ClassName() string {
	if h != nil && h.Tag == TagFileMergingOperatorStream {
		return "FileMergingOperatorStreamStateHandle"
	}
	return "OperatorStreamStateHandle"
}

// KeyedHandle is one keyed state handle as stored in the file: *KeyGroupsHandle,
// *IncrementalHandle, *ChangelogBackendHandle, *InMemoryChangelogHandle or
// *ChangelogStreamHandle.
type KeyedHandle interface {
	// HandleTag is the handle's tag byte.
	HandleTag() byte
	// ClassName is Flink's class name of the handle.
	ClassName() string
	// KeyGroupRange is the range of key groups the handle covers.
	KeyGroupRange() model.KeyGroupRange
}

// keyGroupRange models KeyGroupRange.of(start, start+num-1).
func keyGroupRange(start, num int32) model.KeyGroupRange {
	if num <= 0 {
		return model.EmptyKeyGroupRange
	}
	return model.KeyGroupRange{Start: int(start), End: int(start) + int(num) - 1}
}

// KeyGroupsHandle models KeyGroupsStateHandle (tags 3 and 12) and KeyGroupsSavepointStateHandle
// (tag 7): one offset per key group, from StartKeyGroup on, into Delegate.
type KeyGroupsHandle struct {
	Tag           byte
	StartKeyGroup int32
	Offsets       []int64
	Delegate      *StreamHandle
	// StateHandleID is written for tag 12 only.
	StateHandleID string
}

// HandleTag implements KeyedHandle.
func (h *KeyGroupsHandle) HandleTag() byte { return h.Tag }

// ClassName implements KeyedHandle.
func (h *KeyGroupsHandle) ClassName() string {
	if h.Tag == TagKeyGroupsSavepoint {
		return "KeyGroupsSavepointStateHandle"
	}
	return "KeyGroupsStateHandle"
}

// KeyGroupRange implements KeyedHandle.
func (h *KeyGroupsHandle) KeyGroupRange() model.KeyGroupRange {
	return keyGroupRange(h.StartKeyGroup, int32(len(h.Offsets)))
}

// StateSize models KeyGroupsStateHandle.getStateSize: its stream's size.
func (h *KeyGroupsHandle) StateSize() int64 { return h.Delegate.StateSize() }

// KeyGroupBytes gives the bytes of each key group of the handle, in range order, by the one
// byte rule of model.KeyGroupBytes: offset 0 is an empty key group (0 bytes), any other key
// group runs to the next larger offset of the handle, the last to the end of its stream.
func (h *KeyGroupsHandle) KeyGroupBytes() []int64 {
	return model.KeyGroupBytes(h.Offsets, h.Delegate.StateSize())
}

// PathHandle is one (local path, stream) entry of an incremental handle (HandleAndLocalPath).
type PathHandle struct {
	LocalPath string
	Handle    *StreamHandle
}

// IncrementalHandle models IncrementalRemoteKeyedStateHandle (tags 5 and 11).
type IncrementalHandle struct {
	Tag           byte
	CheckpointID  int64
	BackendID     string
	StartKeyGroup int32
	NumKeyGroups  int32
	// CheckpointedSize and StateHandleID are written for tag 11 only.
	CheckpointedSize int64
	Meta             *StreamHandle
	Shared, Private  []PathHandle
	StateHandleID    string
}

// HandleTag implements KeyedHandle.
func (h *IncrementalHandle) HandleTag() byte { return h.Tag }

// ClassName implements KeyedHandle.
func (h *IncrementalHandle) ClassName() string { return "IncrementalRemoteKeyedStateHandle" }

// KeyGroupRange implements KeyedHandle.
func (h *IncrementalHandle) KeyGroupRange() model.KeyGroupRange {
	return keyGroupRange(h.StartKeyGroup, h.NumKeyGroups)
}

// StateSize models IncrementalRemoteKeyedStateHandle.getStateSize: the sizes of the meta data,
// shared and private files (KeyedModel(h).StateSize() without building the model's handle).
func (h *IncrementalHandle) StateSize() int64 {
	n := h.Meta.StateSize()
	for _, l := range [][]PathHandle{h.Shared, h.Private} {
		for _, p := range l {
			n += p.Handle.StateSize()
		}
	}
	return n
}

// ChangelogBackendHandle models ChangelogStateBackendHandleImpl (tags 8 and 14): materialized
// keyed handles plus non-materialized changelog handles. Nil list entries are null handles
// (Flink drops them).
type ChangelogBackendHandle struct {
	Tag               byte
	StartKeyGroup     int32
	NumKeyGroups      int32
	CheckpointedSize  int64
	Materialized      []KeyedHandle
	NonMaterialized   []KeyedHandle
	MaterializationID int64
	CheckpointID      int64 // tag 14 only
	StateHandleID     string
}

// HandleTag implements KeyedHandle.
func (h *ChangelogBackendHandle) HandleTag() byte { return h.Tag }

// ClassName implements KeyedHandle.
func (h *ChangelogBackendHandle) ClassName() string { return "ChangelogStateBackendHandle" }

// KeyGroupRange implements KeyedHandle.
func (h *ChangelogBackendHandle) KeyGroupRange() model.KeyGroupRange {
	return keyGroupRange(h.StartKeyGroup, h.NumKeyGroups)
}

// StateChange is one change of an in-memory changelog (KeyGroup -1 is a metadata change).
type StateChange struct {
	KeyGroup int32
	Data     []byte
}

// InMemoryChangelogHandle models InMemoryChangelogStateHandle (tag 9).
type InMemoryChangelogHandle struct {
	StartKeyGroup int32
	NumKeyGroups  int32
	From, To      int64
	Changes       []StateChange
	StateHandleID string // not in the 1.14 layout
}

// HandleTag implements KeyedHandle.
func (h *InMemoryChangelogHandle) HandleTag() byte { return TagInMemoryChangelog }

// ClassName implements KeyedHandle.
func (h *InMemoryChangelogHandle) ClassName() string { return "InMemoryChangelogStateHandle" }

// KeyGroupRange implements KeyedHandle.
func (h *InMemoryChangelogHandle) KeyGroupRange() model.KeyGroupRange {
	return keyGroupRange(h.StartKeyGroup, h.NumKeyGroups)
}

// ChangelogPart is one (offset, stream) entry of a ChangelogStreamHandle.
type ChangelogPart struct {
	Offset int64
	Handle *StreamHandle
}

// ChangelogStreamHandle models ChangelogStateHandleStreamImpl (tags 10 and 13).
type ChangelogStreamHandle struct {
	Tag              byte
	StartKeyGroup    int32
	NumKeyGroups     int32
	Parts            []ChangelogPart
	StateSize        int64
	CheckpointedSize int64  // not in the 1.14 layout
	StateHandleID    string // not in the 1.14 layout
	StorageID        string // tag 13 only
}

// HandleTag implements KeyedHandle.
func (h *ChangelogStreamHandle) HandleTag() byte { return h.Tag }

// ClassName implements KeyedHandle.
func (h *ChangelogStreamHandle) ClassName() string { return "ChangelogStateHandleStreamImpl" }

// KeyGroupRange implements KeyedHandle.
func (h *ChangelogStreamHandle) KeyGroupRange() model.KeyGroupRange {
	return keyGroupRange(h.StartKeyGroup, h.NumKeyGroups)
}

// Channel-handle types of the V2 channel-state serializer (format versions 6 and 7).
const (
	ChannelInput        byte = 1 // InputChannelStateHandle
	ChannelOutput       byte = 2 // ResultSubpartitionStateHandle
	ChannelMergedInput  byte = 3 // MergedInputChannelStateHandle
	ChannelMergedOutput byte = 4 // MergedResultSubpartitionStateHandle
)

// ChannelHandle models one in-flight data handle of an unaligned checkpoint
// (InputChannelStateHandle, ResultSubpartitionStateHandle and their merged forms).
type ChannelHandle struct {
	// Type is one of the Channel… constants (before version 6 it is implied by the list).
	Type         byte
	SubtaskIndex int32
	// GateOrPartition and Channel are the gate and input channel index (input) or partition
	// and subpartition index (output); unused by merged handles.
	GateOrPartition, Channel int32
	Offsets                  []int64
	StateSize                int64
	Delegate                 *StreamHandle
	// SerializedOffsets is the opaque channel-offset blob of a merged handle.
	SerializedOffsets []byte
}

// ClassName is Flink's class name of the handle.
func (h ChannelHandle) ClassName() string {
	switch h.Type {
	case ChannelOutput:
		return "ResultSubpartitionStateHandle"
	case ChannelMergedInput:
		return "MergedInputChannelStateHandle"
	case ChannelMergedOutput:
		return "MergedResultSubpartitionStateHandle"
	}
	return "InputChannelStateHandle"
}

// Properties models the Java-serialized checkpoint.CheckpointProperties at the end of version
// 4+ files, decoded structurally (never by a Java deserializer).
type Properties struct {
	DiscardCancelled, DiscardFailed, DiscardFinished, DiscardSubsumed, DiscardSuspended bool
	Forced, Unclaimed                                                                   bool
	// Savepoint selects the snapshot type's class: SavepointType when true, CheckpointType
	// otherwise.
	Savepoint bool
	// TypeName is the snapshot type's name, e.g. "Checkpoint", "Savepoint",
	// "Suspend Savepoint".
	TypeName string
	// Sharing is a CheckpointType's SharingFilesStrategy: FORWARD_BACKWARD, FORWARD or
	// NO_SHARING.
	Sharing string
	// Format (CANONICAL or NATIVE) and PostCheckpointAction (NONE, SUSPEND or TERMINATE)
	// belong to a SavepointType.
	Format, PostCheckpointAction string
}

func modeFromOrdinal(b byte) model.DistributionMode { return model.DistributionMode(b + 1) }
