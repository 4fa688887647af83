package metadata

import (
	"cmp"
	"fmt"
	"math"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/internal/javamap"
)

// Model converts the file into the model's values as Flink 1.18's reader builds them (see
// ModelFor).
func (f *File) Model() model.CheckpointMetadata { return f.ModelFor(model.Flink118) }

// ModelFor converts the file into the model's values as the given Flink version's
// MetadataV2V3SerializerBase rebuilds them:
//
//   - Operators keep file order. Subtasks are indexed by subtask index (a later entry for the
//     same index replaces an earlier one, as OperatorState.putState does); a finished subtask
//     becomes an empty OperatorSubtaskState (the model has no finished marker).
//   - The states of an operator-state handle are listed in the iteration order of the HashMap
//     Flink's reader puts them into: HashMap(n) up to 1.17 (and in 1.10.1),
//     CollectionUtil.newHashMapWithExpectedSize(n) from 1.18 (FORMAT.md §8.4). A duplicate name
//     keeps its first position and its last value, as HashMap.put does.
//   - Null handles are dropped (StateObjectCollection.singletonOrEmpty); so are null entries
//     of changelog handles.
//   - Changelog handles become *ChangelogStateBackendHandle and *ChangelogStateHandle.
//
// The metadata shares the file's offset arrays (key groups, operator-state entries, channel
// buffers): treat them as read only, or copy what is changed.
func (f *File) ModelFor(v model.FlinkVersion) model.CheckpointMetadata {
	md := model.CheckpointMetadata{CheckpointID: f.CheckpointID, Operators: []model.OperatorState{}}
	for _, m := range f.MasterStates {
		md.MasterStates = append(md.MasterStates, model.MasterState{Name: m.Name, Version: m.Version, Bytes: len(m.Data)})
	}
	for i := range f.Operators {
		md.Operators = append(md.Operators, operatorModel(&f.Operators[i], v))
	}
	if f.Properties != nil {
		md.Properties = f.Properties.Model()
	}
	return md
}

// Model converts the properties into the model's CheckpointProperties.
func (p *Properties) Model() *model.CheckpointProperties {
	cp := &model.CheckpointProperties{
		Savepoint:       p.Savepoint,
		Forced:          p.Forced,
		Unclaimed:       p.Unclaimed,
		DiscardSubsumed: p.DiscardSubsumed,
	}
	if p.Savepoint {
		cp.Synchronous = p.PostCheckpointAction != "" && p.PostCheckpointAction != "NONE"
		cp.Native = p.Format == "NATIVE"
		cp.Sharing = model.NoSharing
		return cp
	}
	switch p.Sharing {
	case "FORWARD_BACKWARD":
		cp.Sharing = model.ForwardBackward
	case "FORWARD":
		cp.Sharing = model.Forward
	case "NO_SHARING":
		cp.Sharing = model.NoSharing
	}
	return cp
}

func operatorModel(op *Operator, v model.FlinkVersion) model.OperatorState {
	s := model.OperatorState{
		OperatorID:     op.ID,
		Parallelism:    int(op.Parallelism),
		MaxParallelism: int(op.MaxParallelism),
		FullyFinished:  op.FullyFinished,
		Subtasks:       []*model.OperatorSubtaskState{},
	}
	if op.CoordinatorState != nil {
		h := streamModel(op.CoordinatorState)
		s.CoordinatorState = &h
	}
	n := 0 // the highest subtask index + 1
	for i := range op.Subtasks {
		if idx := int(op.Subtasks[i].Index); idx >= 0 && idx < int(op.Parallelism) {
			n = max(n, idx+1)
		}
	}
	if n > 0 {
		s.Subtasks = make([]*model.OperatorSubtaskState, n)
	}
	// The subtasks' states and their one-handle collections, each kind in one allocation.
	b := &subtaskBacking{states: make([]model.OperatorSubtaskState, len(op.Subtasks))}
	for i := range op.Subtasks {
		st := &op.Subtasks[i]
		idx := int(st.Index)
		if idx < 0 || idx >= int(op.Parallelism) {
			continue // Read rejects these; a hand-built File may hold them
		}
		s.Subtasks[idx] = b.subtaskModel(i, st, v)
	}
	return s
}

// subtaskBacking holds an operator's subtask states and their handle collections, handed out
// as one-element slices of capacity one (an append copies).
type subtaskBacking struct {
	states   []model.OperatorSubtaskState
	operator []model.OperatorStateHandle
	keyed    []model.KeyedStateHandle
}

func (b *subtaskBacking) operatorHandle(h model.OperatorStateHandle) []model.OperatorStateHandle {
	if b.operator == nil {
		b.operator = make([]model.OperatorStateHandle, 0, len(b.states)) // (one per subtask, as a rule)
	}
	b.operator = append(b.operator, h)
	n := len(b.operator)
	return b.operator[n-1 : n : n]
}

func (b *subtaskBacking) keyedHandle(h model.KeyedStateHandle) []model.KeyedStateHandle {
	if b.keyed == nil {
		b.keyed = make([]model.KeyedStateHandle, 0, len(b.states))
	}
	b.keyed = append(b.keyed, h)
	n := len(b.keyed)
	return b.keyed[n-1 : n : n]
}

func (b *subtaskBacking) subtaskModel(i int, st *Subtask, v model.FlinkVersion) *model.OperatorSubtaskState {
	s := &b.states[i]
	*s = model.OperatorSubtaskState{
		ManagedOperatorState: []model.OperatorStateHandle{},
		RawOperatorState:     []model.OperatorStateHandle{},
		ManagedKeyedState:    []model.KeyedStateHandle{},
		RawKeyedState:        []model.KeyedStateHandle{},
	}
	if st.Finished {
		return s
	}
	if h := st.ManagedOperatorState; h != nil && h.Tag != TagNull {
		s.ManagedOperatorState = b.operatorHandle(operatorHandleModel(h, v))
	}
	if h := st.RawOperatorState; h != nil && h.Tag != TagNull {
		s.RawOperatorState = b.operatorHandle(operatorHandleModel(h, v))
	}
	if h := KeyedModel(st.ManagedKeyedState); h != nil {
		s.ManagedKeyedState = b.keyedHandle(h)
	}
	if h := KeyedModel(st.RawKeyedState); h != nil {
		s.RawKeyedState = b.keyedHandle(h)
	}
	for _, c := range st.InputChannels {
		s.InputChannelState = append(s.InputChannelState, channelModel(c))
	}
	for _, c := range st.OutputChannels {
		s.ResultSubpartitionState = append(s.ResultSubpartitionState, channelModel(c))
	}
	return s
}

// channelModel gives the model's handle: subtask, delegate, gate or partition, channel and
// offsets. A merged handle (format version 6) keeps its delegate only: its channels are in its
// opaque serialized offsets, which the model does not unmerge.
func channelModel(c ChannelHandle) model.ChannelStateHandle {
	h := model.ChannelStateHandle{SubtaskIndex: int(c.SubtaskIndex), Delegate: streamModel(c.Delegate), StateSize: c.StateSize}
	if c.Type != ChannelMergedInput && c.Type != ChannelMergedOutput {
		h.GateOrPartition, h.Channel = int(c.GateOrPartition), int(c.Channel)
		h.Offsets = c.Offsets
	}
	return h
}

func operatorHandleModel(h *OperatorHandle, v model.FlinkVersion) model.OperatorStateHandle {
	named := func(e StateEntry) model.NamedOperatorState {
		return model.NamedOperatorState{Name: e.Name, Mode: modeFromOrdinal(e.Mode), Offsets: sharedOffsets(e.Offsets)}
	}
	if len(h.States) == 1 { // a HashMap holding one key iterates just it: no table to model
		return model.OperatorStateHandle{Delegate: streamModel(h.Delegate), States: []model.NamedOperatorState{named(h.States[0])}}
	}
	names := make([]string, len(h.States))
	for i, e := range h.States {
		names[i] = e.Name
	}
	order, last := putOrder(readerMap(len(names), v), names)
	out := model.OperatorStateHandle{Delegate: streamModel(h.Delegate), States: make([]model.NamedOperatorState, 0, len(order))}
	for _, i := range order {
		out.States = append(out.States, named(h.States[last[i]]))
	}
	return out
}

// streamModel converts a stream handle; nil gives the zero StreamHandle.
func streamModel(h *StreamHandle) model.StreamHandle {
	if h == nil {
		return model.StreamHandle{}
	}
	switch h.Tag {
	case TagByteStream:
		return model.StreamHandle{Path: h.Name, Size: int64(len(h.Data)), InMemory: true}
	case TagRelativeFile:
		return model.StreamHandle{Path: h.Path, Size: h.Size, Relative: true}
	case TagKeyGroups:
		if h.KeyGroups != nil {
			return streamModel(h.KeyGroups.Delegate)
		}
		return model.StreamHandle{}
	case TagEmptySegmentFile:
		return model.StreamHandle{}
	}
	return model.StreamHandle{Path: h.Path, Size: h.Size}
}

// KeyedModel converts one keyed handle of the file into the model's KeyedStateHandle: a
// *model.KeyGroupsStateHandle, *model.IncrementalKeyedStateHandle,
// *ChangelogStateBackendHandle or *ChangelogStateHandle; nil for nil.
func KeyedModel(h KeyedHandle) model.KeyedStateHandle {
	switch h := h.(type) {
	case *KeyGroupsHandle:
		if h == nil {
			return nil
		}
		return &model.KeyGroupsStateHandle{
			Offsets:       model.KeyGroupRangeOffsets{Range: h.KeyGroupRange(), Offsets: sharedOffsets(h.Offsets)},
			Delegate:      streamModel(h.Delegate),
			StateHandleID: h.StateHandleID,
			Savepoint:     h.Tag == TagKeyGroupsSavepoint,
		}
	case *IncrementalHandle:
		if h == nil {
			return nil
		}
		m := &model.IncrementalKeyedStateHandle{
			BackendID:        h.BackendID,
			Range:            h.KeyGroupRange(),
			CheckpointID:     h.CheckpointID,
			Shared:           make([]model.SharedFile, 0, len(h.Shared)),
			Private:          make([]model.SharedFile, 0, len(h.Private)),
			Meta:             streamModel(h.Meta),
			CheckpointedSize: h.CheckpointedSize,
			StateHandleID:    h.StateHandleID,
		}
		for _, p := range h.Shared {
			m.Shared = append(m.Shared, model.SharedFile{LocalPath: p.LocalPath, Handle: streamModel(p.Handle)})
		}
		for _, p := range h.Private {
			m.Private = append(m.Private, model.SharedFile{LocalPath: p.LocalPath, Handle: streamModel(p.Handle)})
		}
		return m
	case *ChangelogBackendHandle:
		if h == nil {
			return nil
		}
		m := &ChangelogStateBackendHandle{
			Range:             h.KeyGroupRange(),
			Materialized:      []model.KeyedStateHandle{},
			NonMaterialized:   []*ChangelogStateHandle{},
			CheckpointedSize:  h.CheckpointedSize,
			MaterializationID: h.MaterializationID,
			CheckpointID:      h.CheckpointID,
			StateHandleID:     h.StateHandleID,
		}
		if h.Tag == TagChangelogBackendV1 {
			m.CheckpointID = h.MaterializationID
		}
		for _, c := range h.Materialized {
			if k := KeyedModel(c); k != nil {
				m.Materialized = append(m.Materialized, k)
			}
		}
		for _, c := range h.NonMaterialized {
			if k, ok := KeyedModel(c).(*ChangelogStateHandle); ok && k != nil {
				m.NonMaterialized = append(m.NonMaterialized, k)
			}
		}
		return m
	case *InMemoryChangelogHandle:
		if h == nil {
			return nil
		}
		var size int64
		for _, c := range h.Changes {
			size += int64(len(c.Data))
		}
		return &ChangelogStateHandle{Range: h.KeyGroupRange(), Size: size, InMemory: true, StateHandleID: h.StateHandleID}
	case *ChangelogStreamHandle:
		if h == nil {
			return nil
		}
		m := &ChangelogStateHandle{Range: h.KeyGroupRange(), Size: h.StateSize, StateHandleID: h.StateHandleID, StorageID: h.StorageID}
		for _, p := range h.Parts {
			m.Parts = append(m.Parts, streamModel(p.Handle))
		}
		return m
	}
	return nil
}

// ChangelogStateBackendHandle models ChangelogStateBackendHandleImpl for the model: materialized
// keyed handles plus non-materialized changelog parts over one key-group range.
type ChangelogStateBackendHandle struct {
	Range             model.KeyGroupRange
	Materialized      []model.KeyedStateHandle
	NonMaterialized   []*ChangelogStateHandle
	CheckpointedSize  int64
	MaterializationID int64
	CheckpointID      int64
	StateHandleID     string
}

// KeyGroupRange implements model.KeyedStateHandle.
func (h *ChangelogStateBackendHandle) KeyGroupRange() model.KeyGroupRange { return h.Range }

// StateSize implements model.KeyedStateHandle: the sum over all parts.
func (h *ChangelogStateBackendHandle) StateSize() int64 {
	var n int64
	for _, m := range h.Materialized {
		n += m.StateSize()
	}
	for _, c := range h.NonMaterialized {
		n += c.StateSize()
	}
	return n
}

// Intersection implements model.KeyedStateHandle as ChangelogStateBackendHandleImpl.
// getIntersection does: nil when the ranges do not overlap, else a handle over the overlap whose
// parts are the parts' own non-nil intersections.
func (h *ChangelogStateBackendHandle) Intersection(r model.KeyGroupRange) model.KeyedStateHandle {
	in := h.Range.Intersection(r)
	if in.NumberOfKeyGroups() == 0 {
		return nil
	}
	out := &ChangelogStateBackendHandle{
		Range: in, Materialized: []model.KeyedStateHandle{}, NonMaterialized: []*ChangelogStateHandle{},
		CheckpointedSize: h.CheckpointedSize, MaterializationID: h.MaterializationID,
		CheckpointID: h.CheckpointID, StateHandleID: h.StateHandleID,
	}
	for _, m := range h.Materialized {
		if k := m.Intersection(r); k != nil {
			out.Materialized = append(out.Materialized, k)
		}
	}
	for _, c := range h.NonMaterialized {
		if k, ok := c.Intersection(r).(*ChangelogStateHandle); ok && k != nil {
			out.NonMaterialized = append(out.NonMaterialized, k)
		}
	}
	return out
}

// ChangelogStateHandle models the non-materialized changelog handles (ChangelogStateHandle:
// InMemoryChangelogStateHandle when InMemory, else ChangelogStateHandleStreamImpl).
type ChangelogStateHandle struct {
	Range         model.KeyGroupRange
	Size          int64
	InMemory      bool
	Parts         []model.StreamHandle
	StateHandleID string
	StorageID     string
}

// KeyGroupRange implements model.KeyedStateHandle.
func (h *ChangelogStateHandle) KeyGroupRange() model.KeyGroupRange { return h.Range }

// StateSize implements model.KeyedStateHandle.
func (h *ChangelogStateHandle) StateSize() int64 { return h.Size }

// Intersection implements model.KeyedStateHandle: the same changes over the overlapping range,
// or nil when the ranges do not overlap (ChangelogStateHandleStreamImpl.getIntersection; the
// in-memory handle is treated alike).
func (h *ChangelogStateHandle) Intersection(r model.KeyGroupRange) model.KeyedStateHandle {
	in := h.Range.Intersection(r)
	if in.NumberOfKeyGroups() == 0 {
		return nil
	}
	out := *h
	out.Range = in
	return &out
}

// readerMap models the HashMap<String, StateMetaInfo> Flink's reader puts the n named states
// of an operator-state handle into: new HashMap<>(n) up to 1.17 (and in 1.10.1),
// CollectionUtil.newHashMapWithExpectedSize(n) from 1.18 (FORMAT.md §8.4).
func readerMap(n int, v model.FlinkVersion) *javamap.Map[string] {
	if v != model.Flink1101 {
		return javamap.WithExpectedSize(javamap.String, n)
	}
	return javamap.WithInitialCapacity(javamap.String, n)
}

// putOrder calls m.put(keys[0]), m.put(keys[1]), … on an empty m and returns the distinct keys
// as indexes of their first occurrence, in iteration order, and for each such index the index
// of the last occurrence (whose value the map holds).
func putOrder(m *javamap.Map[string], keys []string) (order []int, last map[int]int) {
	var first []int
	last = map[int]int{}
	for i, k := range keys {
		n, added := m.Put(k)
		if added {
			first = append(first, i)
		}
		last[first[n]] = i
	}
	for _, n := range m.Order() {
		order = append(order, first[n])
	}
	return order, last
}

// FromModel builds the version-4 File for md (what Flink 1.16–1.20 write; FromModelAs gives
// versions 5 to 7). Each subtask may hold at most one handle per kind, as in Flink; subtasks
// are written in index order. In-memory stream handles get Size zero bytes of data
// (the model keeps sizes, not contents; at most MaxInlineBytes each). Keyed handles become tag
// 12 (tag 7 for savepoint handles), 11, 14, 9 or 13. Nil Properties give a regular
// checkpoint's (Checkpoint, FORWARD_BACKWARD, discarded on subsumption). The states of an
// operator-state handle are written in the iteration order of the map Flink's reader rebuilds
// (so Flink reads and writes the file back byte for byte, as the reference checks); a state named
// twice, or a file handle with an empty path (which Flink's Path refuses), is ErrNotWritable.
//
// The File shares the model's offset arrays (a file is built to be written): treat it as read
// only, or copy what it changes.
func FromModel(md model.CheckpointMetadata) (*File, error) {
	f := &File{Version: WriteVersion, CheckpointID: md.CheckpointID}
	for _, m := range md.MasterStates {
		if m.Bytes < 0 || m.Bytes > MaxInlineBytes {
			return nil, fmt.Errorf("metadata: master state %q: %w: %d bytes", m.Name, ErrNotWritable, m.Bytes)
		}
		f.MasterStates = append(f.MasterStates, MasterState{Name: m.Name, Version: m.Version, Data: make([]byte, m.Bytes)})
	}
	for i, s := range md.Operators {
		op, err := operatorFromModel(s)
		if err != nil {
			return nil, fmt.Errorf("metadata: operator[%d] %s: %w", i, s.OperatorID, err)
		}
		f.Operators = append(f.Operators, op)
	}
	f.Properties = PropertiesFromModel(md.Properties)
	return f, nil
}

// MaxInlineBytes caps the zero-filled data FromModel makes for one in-memory handle.
const MaxInlineBytes = 64 << 20

// PropertiesFromModel gives the file form of p; nil gives a regular checkpoint's properties.
func PropertiesFromModel(p *model.CheckpointProperties) *Properties {
	if p == nil {
		return &Properties{DiscardCancelled: true, DiscardFailed: true, DiscardFinished: true, DiscardSubsumed: true,
			DiscardSuspended: true, TypeName: "Checkpoint", Sharing: "FORWARD_BACKWARD"}
	}
	if p.Savepoint {
		out := &Properties{Savepoint: true, Forced: p.Forced, Unclaimed: p.Unclaimed, DiscardSubsumed: p.DiscardSubsumed,
			TypeName: "Savepoint", Format: "CANONICAL", PostCheckpointAction: "NONE"}
		if p.Native {
			out.Format = "NATIVE"
		}
		if p.Synchronous {
			out.TypeName, out.PostCheckpointAction = "Suspend Savepoint", "SUSPEND"
		}
		return out
	}
	d := p.DiscardSubsumed
	out := &Properties{Forced: p.Forced, Unclaimed: p.Unclaimed, DiscardCancelled: d, DiscardFailed: d,
		DiscardFinished: d, DiscardSubsumed: d, DiscardSuspended: d, TypeName: "Checkpoint", Sharing: "FORWARD_BACKWARD"}
	switch p.Sharing {
	case model.Forward:
		out.TypeName, out.Sharing = "Full Checkpoint", "FORWARD"
	case model.NoSharing:
		out.Sharing = "NO_SHARING"
	}
	return out
}

func operatorFromModel(s model.OperatorState) (Operator, error) {
	if s.Parallelism < 0 || s.Parallelism > math.MaxInt32 || s.MaxParallelism > math.MaxInt32 || s.Parallelism > s.MaxParallelism {
		return Operator{}, fmt.Errorf("%w: parallelism %d, max parallelism %d", ErrNotWritable, s.Parallelism, s.MaxParallelism)
	}
	if len(s.Subtasks) > s.Parallelism {
		return Operator{}, fmt.Errorf("%w: %d subtask entries for parallelism %d", ErrNotWritable, len(s.Subtasks), s.Parallelism)
	}
	op := Operator{ID: s.OperatorID, Parallelism: int32(s.Parallelism), MaxParallelism: int32(s.MaxParallelism), FullyFinished: s.FullyFinished}
	if s.CoordinatorState != nil {
		h, err := streamFromModel(*s.CoordinatorState)
		if err != nil {
			return op, err
		}
		h.Tag, h.Name, h.Path, h.Size = TagByteStream, s.CoordinatorState.Path, "", 0
		if h.Data == nil {
			if s.CoordinatorState.Size < 0 || s.CoordinatorState.Size > MaxInlineBytes {
				return op, fmt.Errorf("%w: coordinator state of %d bytes", ErrNotWritable, s.CoordinatorState.Size)
			}
			h.Data = make([]byte, s.CoordinatorState.Size)
		}
		op.CoordinatorState = h
	}
	if s.FullyFinished {
		return op, nil
	}
	n := 0
	for _, st := range s.Subtasks {
		if st != nil {
			n++
		}
	}
	op.Subtasks = make([]Subtask, 0, n)
	for i, st := range s.Subtasks {
		if st == nil {
			continue
		}
		sub, err := subtaskFromModel(i, st)
		if err != nil {
			return op, fmt.Errorf("subtask %d: %w", i, err)
		}
		op.Subtasks = append(op.Subtasks, sub)
	}
	return op, nil
}

func subtaskFromModel(i int, st *model.OperatorSubtaskState) (Subtask, error) {
	s := Subtask{Index: int32(i)}
	if len(st.ManagedOperatorState) > 1 || len(st.RawOperatorState) > 1 || len(st.ManagedKeyedState) > 1 || len(st.RawKeyedState) > 1 {
		return s, fmt.Errorf("%w: more than one handle of a kind (Flink's writer allows one)", ErrNotWritable)
	}
	var err error
	if len(st.ManagedOperatorState) == 1 {
		if s.ManagedOperatorState, err = operatorHandleFromModel(st.ManagedOperatorState[0]); err != nil {
			return s, err
		}
	}
	if len(st.RawOperatorState) == 1 {
		if s.RawOperatorState, err = operatorHandleFromModel(st.RawOperatorState[0]); err != nil {
			return s, err
		}
	}
	if len(st.ManagedKeyedState) == 1 {
		if s.ManagedKeyedState, err = KeyedFromModel(st.ManagedKeyedState[0]); err != nil {
			return s, err
		}
	}
	if len(st.RawKeyedState) == 1 {
		if s.RawKeyedState, err = KeyedFromModel(st.RawKeyedState[0]); err != nil {
			return s, err
		}
	}
	for _, c := range st.InputChannelState {
		h, err := channelFromModel(c, ChannelInput)
		if err != nil {
			return s, err
		}
		s.InputChannels = append(s.InputChannels, h)
	}
	for _, c := range st.ResultSubpartitionState {
		h, err := channelFromModel(c, ChannelOutput)
		if err != nil {
			return s, err
		}
		s.OutputChannels = append(s.OutputChannels, h)
	}
	return s, nil
}

// sharedOffsets is offs shared between a File and the model (never nil: an empty array reads
// back empty).
func sharedOffsets(offs []int64) []int64 {
	if offs == nil {
		return []int64{}
	}
	return offs
}

func channelFromModel(c model.ChannelStateHandle, typ byte) (ChannelHandle, error) {
	d, err := streamFromModel(c.Delegate)
	if err != nil {
		return ChannelHandle{}, err
	}
	return ChannelHandle{Type: typ, SubtaskIndex: int32(c.SubtaskIndex), GateOrPartition: int32(c.GateOrPartition), Channel: int32(c.Channel),
		Offsets: sharedOffsets(c.Offsets), StateSize: cmp.Or(c.StateSize, c.Delegate.Size), Delegate: d}, nil
}

func operatorHandleFromModel(h model.OperatorStateHandle) (*OperatorHandle, error) {
	d, err := streamFromModel(h.Delegate)
	if err != nil {
		return nil, err
	}
	out := &OperatorHandle{Tag: TagOperatorStream, Delegate: d, States: make([]StateEntry, 0, len(h.States))}
	for _, s := range h.States {
		if s.Mode < model.SplitDistribute || s.Mode > model.Broadcast {
			return nil, fmt.Errorf("%w: state %q has mode %v", ErrNotWritable, s.Name, s.Mode)
		}
	}
	// Flink's handle holds the states in a map, which its writer iterates: the file lists them in
	// the iteration order of the map Flink's reader rebuilds, so that Flink reads and writes the
	// file back unchanged (and Model gives the model's order back).
	if len(h.States) == 1 { // (a map of one name iterates that name: most handles hold one state)
		s := h.States[0]
		out.States = append(out.States, StateEntry{Name: s.Name, Mode: byte(s.Mode - 1), Offsets: sharedOffsets(s.Offsets)})
		return out, nil
	}
	names := make([]string, len(h.States))
	for i, s := range h.States {
		names[i] = s.Name
	}
	order, last := putOrder(readerMap(len(names), model.Flink118), names)
	if len(order) != len(names) {
		return nil, fmt.Errorf("%w: state %q is named twice (Flink's handle maps names to states)", ErrNotWritable, names[firstDuplicate(last)])
	}
	for _, i := range order {
		s := h.States[i]
		out.States = append(out.States, StateEntry{Name: s.Name, Mode: byte(s.Mode - 1), Offsets: sharedOffsets(s.Offsets)})
	}
	return out, nil
}

// firstDuplicate is the smallest index whose name putOrder saw again later.
func firstDuplicate(last map[int]int) int {
	i := -1
	for k, l := range last {
		if l != k && (i < 0 || k < i) {
			i = k
		}
	}
	return i
}

func streamFromModel(h model.StreamHandle) (*StreamHandle, error) {
	switch {
	case h.InMemory:
		if h.Size < 0 || h.Size > MaxInlineBytes {
			return nil, fmt.Errorf("%w: in-memory handle %q of %d bytes", ErrNotWritable, h.Path, h.Size)
		}
		return &StreamHandle{Tag: TagByteStream, Name: h.Path, Data: make([]byte, h.Size)}, nil
	case h.Path == "":
		// Flink's reader builds a Path of it (new Path(path), new Path(dir, relativePath)), which
		// refuses an empty string: "Can not create a Path from an empty string".
		return nil, fmt.Errorf("%w: a file handle with an empty path (Flink cannot read it back)", ErrNotWritable)
	case h.Relative:
		return &StreamHandle{Tag: TagRelativeFile, Path: h.Path, Size: h.Size}, nil
	}
	return &StreamHandle{Tag: TagFile, Path: h.Path, Size: h.Size}, nil
}

// KeyedFromModel converts a model keyed handle into the file's handle (see FromModel).
func KeyedFromModel(h model.KeyedStateHandle) (KeyedHandle, error) {
	switch h := h.(type) {
	case nil:
		return nil, nil
	case *model.KeyGroupsStateHandle:
		if h == nil {
			return nil, nil
		}
		r := h.Offsets.Range
		if len(h.Offsets.Offsets) != r.NumberOfKeyGroups() || r.Start > math.MaxInt32 {
			return nil, fmt.Errorf("%w: %d offsets for %v", ErrNotWritable, len(h.Offsets.Offsets), r)
		}
		d, err := streamFromModel(h.Delegate)
		if err != nil {
			return nil, err
		}
		out := &KeyGroupsHandle{Tag: TagKeyGroupsV2, StartKeyGroup: int32(r.Start), Offsets: sharedOffsets(h.Offsets.Offsets), Delegate: d, StateHandleID: h.StateHandleID}
		if h.Savepoint {
			out.Tag, out.StateHandleID = TagKeyGroupsSavepoint, ""
		}
		return out, nil
	case *model.IncrementalKeyedStateHandle:
		if h == nil {
			return nil, nil
		}
		start, num, err := rangeFromModel(h.Range)
		if err != nil {
			return nil, err
		}
		meta, err := streamFromModel(h.Meta)
		if err != nil {
			return nil, err
		}
		out := &IncrementalHandle{Tag: TagIncremental, CheckpointID: h.CheckpointID, BackendID: h.BackendID,
			StartKeyGroup: start, NumKeyGroups: num, CheckpointedSize: h.CheckpointedSize, Meta: meta, StateHandleID: h.StateHandleID}
		for _, f := range h.Shared {
			s, err := streamFromModel(f.Handle)
			if err != nil {
				return nil, err
			}
			out.Shared = append(out.Shared, PathHandle{LocalPath: f.LocalPath, Handle: s})
		}
		for _, f := range h.Private {
			s, err := streamFromModel(f.Handle)
			if err != nil {
				return nil, err
			}
			out.Private = append(out.Private, PathHandle{LocalPath: f.LocalPath, Handle: s})
		}
		return out, nil
	case *ChangelogStateBackendHandle:
		if h == nil {
			return nil, nil
		}
		start, num, err := rangeFromModel(h.Range)
		if err != nil {
			return nil, err
		}
		out := &ChangelogBackendHandle{Tag: TagChangelogBackend, StartKeyGroup: start, NumKeyGroups: num,
			CheckpointedSize: h.CheckpointedSize, MaterializationID: h.MaterializationID, CheckpointID: h.CheckpointID, StateHandleID: h.StateHandleID}
		for _, m := range h.Materialized {
			k, err := KeyedFromModel(m)
			if err != nil {
				return nil, err
			}
			out.Materialized = append(out.Materialized, k)
		}
		for _, c := range h.NonMaterialized {
			k, err := KeyedFromModel(c)
			if err != nil {
				return nil, err
			}
			out.NonMaterialized = append(out.NonMaterialized, k)
		}
		return out, nil
	case *ChangelogStateHandle:
		if h == nil {
			return nil, nil
		}
		start, num, err := rangeFromModel(h.Range)
		if err != nil {
			return nil, err
		}
		if h.InMemory {
			if h.Size < 0 || h.Size > MaxInlineBytes {
				return nil, fmt.Errorf("%w: in-memory changelog of %d bytes", ErrNotWritable, h.Size)
			}
			out := &InMemoryChangelogHandle{StartKeyGroup: start, NumKeyGroups: num, StateHandleID: h.StateHandleID}
			if h.Size > 0 {
				out.Changes = []StateChange{{KeyGroup: start, Data: make([]byte, h.Size)}}
			}
			return out, nil
		}
		out := &ChangelogStreamHandle{Tag: TagChangelogStream, StartKeyGroup: start, NumKeyGroups: num, StateSize: h.Size,
			CheckpointedSize: h.Size, StateHandleID: h.StateHandleID, StorageID: h.StorageID}
		for _, p := range h.Parts {
			s, err := streamFromModel(p)
			if err != nil {
				return nil, err
			}
			out.Parts = append(out.Parts, ChangelogPart{Handle: s})
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: keyed handle of type %T", ErrNotWritable, h)
}

func rangeFromModel(r model.KeyGroupRange) (start, num int32, err error) {
	if r.IsEmpty() {
		return 0, 0, nil
	}
	if r.Start < 0 || r.End > math.MaxInt32 {
		return 0, 0, fmt.Errorf("%w: key-group range %v", ErrNotWritable, r)
	}
	return int32(r.Start), int32(r.NumberOfKeyGroups()), nil
}
