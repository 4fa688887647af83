package metadata

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Write encodes f as Flink's MetadataV<f.Version>Serializer would (versions 2 to 7; Flink 1.16
// to 1.19 write version 4). For a File that Read returned, the bytes are the ones read, except
// for details the model does not keep: presence flags other than 1, modified-UTF-8 strings in
// overlong forms, and a v7 reference marker other than 0 or 1. Nothing is written when f cannot
// be encoded (the error is a *WriteError).
func Write(w io.Writer, f *File) error {
	b, err := Marshal(f)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal is Write into a new byte slice.
func Marshal(f *File) ([]byte, error) { return Append(nil, f) }

// Append appends Marshal(f)'s bytes to b and returns the extended buffer, or b and the error,
// so that a writer of many files can reuse one buffer instead of growing a new one for each.
func Append(b []byte, f *File) ([]byte, error) {
	if f == nil {
		return b, &WriteError{Field: "file", Err: fmt.Errorf("%w: nil File", ErrNotWritable)}
	}
	e := &encoder{buf: b, version: f.Version, changelog114: f.Changelog114}
	e.file(f)
	if e.err != nil {
		return b, e.err
	}
	return e.buf, nil
}

type encoder struct {
	buf          []byte
	version      int32
	changelog114 bool
	path         []pathElem // formatted only when a field fails
	err          *WriteError
	depth        int
}

func (e *encoder) fail(field string, format string, args ...any) {
	if e.err == nil {
		p := ""
		for _, s := range e.path {
			p += s.name
			if s.idx >= 0 {
				p += "[" + strconv.Itoa(s.idx) + "]"
			}
			p += "."
		}
		e.err = &WriteError{Field: p + field, Err: fmt.Errorf("%w: %s", ErrNotWritable, fmt.Sprintf(format, args...))}
	}
}

func (e *encoder) push(name string, idx int) { e.path = append(e.path, pathElem{name, idx}) }
func (e *encoder) pop()                      { e.path = e.path[:len(e.path)-1] }

func (e *encoder) u8(v byte)   { e.buf = append(e.buf, v) }
func (e *encoder) i32(v int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(v)) }
func (e *encoder) i64(v int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v)) }
func (e *encoder) boolean(v bool) {
	e.u8(boolByte(v))
}

func (e *encoder) count(field string, n int) {
	if n > 1<<31-1 {
		e.fail(field, "%d elements do not fit in an int", n)
		return
	}
	e.i32(int32(n))
}

func (e *encoder) utf(field, s string) {
	at := len(e.buf)
	e.buf = appendModifiedUTF8(append(e.buf, 0, 0), s) // the length is written once known
	n := len(e.buf) - at - 2
	if n > 65535 {
		e.buf = e.buf[:at]
		e.fail(field, "string of %d encoded bytes (writeUTF allows 65535)", n)
		return
	}
	binary.BigEndian.PutUint16(e.buf[at:], uint16(n))
}

func (e *encoder) bytesN(field string, b []byte) {
	e.count(field, len(b))
	e.buf = append(e.buf, b...)
}

func (e *encoder) offsets(field string, v []int64) {
	e.count(field, len(v))
	n := len(e.buf)
	e.buf = slices.Grow(e.buf, 8*len(v))[:n+8*len(v)]
	for i, o := range v {
		binary.BigEndian.PutUint64(e.buf[n+8*i:], uint64(o))
	}
}

func (e *encoder) file(f *File) {
	if f.Version < MinVersion || f.Version > MaxVersion {
		e.fail("version", "version %d (want %d to %d)", f.Version, MinVersion, MaxVersion)
		return
	}
	if f.CheckpointID < 0 {
		e.fail("checkpointId", "negative checkpoint id %d", f.CheckpointID)
	}
	e.buf = binary.BigEndian.AppendUint32(e.buf, Magic)
	e.i32(f.Version)
	e.i64(f.CheckpointID)
	e.count("numMasterStates", len(f.MasterStates))
	for i, m := range f.MasterStates {
		e.push("master_state", i)
		e.masterState(m)
		e.pop()
	}
	e.count("numOperators", len(f.Operators))
	for i := range f.Operators {
		e.push("operator", i)
		e.operator(&f.Operators[i])
		e.pop()
	}
	if f.Version >= 4 {
		e.buf = append(e.buf, cachedProperties(f.Properties)...)
	} else if f.Properties != nil {
		e.fail("checkpoint_properties", "version %d has no CheckpointProperties", f.Version)
	}
}

func (e *encoder) masterState(m MasterState) {
	e.buf = binary.BigEndian.AppendUint32(e.buf, masterStateMagic)
	lenAt := len(e.buf)
	e.i32(0)
	e.i32(m.Version)
	e.utf("name", m.Name)
	e.bytesN("bytes", m.Data)
	n := len(e.buf) - lenAt - 4
	if n > 1<<31-1 {
		e.fail("length", "master state of %d bytes", n)
		return
	}
	binary.BigEndian.PutUint32(e.buf[lenAt:], uint32(n))
}

func (e *encoder) operator(op *Operator) {
	if e.version >= 5 {
		e.utf("name", op.Name)
		e.utf("uid", op.UID)
	} else if op.Name != "" || op.UID != "" {
		e.fail("name", "version %d has no operator name or uid", e.version)
	}
	e.buf = append(e.buf, op.ID[:]...)
	e.i32(op.Parallelism)
	e.i32(op.MaxParallelism)
	if e.version == 2 {
		e.i32(op.ChainLength)
	}
	if e.version >= 3 {
		if op.CoordinatorState != nil && op.CoordinatorState.Tag != TagByteStream {
			e.fail("coordinator_state", "must be a ByteStreamStateHandle, not tag %d", op.CoordinatorState.Tag)
		}
		e.stream("coordinator_state", op.CoordinatorState)
	} else if op.CoordinatorState != nil {
		e.fail("coordinator_state", "version 2 has no coordinator state")
	}
	if op.FullyFinished {
		if e.version < 3 || len(op.Subtasks) > 0 || op.CoordinatorState != nil {
			e.fail("numSubtasks", "a fully finished operator needs version 3+, no subtasks and no coordinator state")
		}
		e.i32(-1)
		return
	}
	e.count("numSubtasks", len(op.Subtasks))
	for i := range op.Subtasks {
		e.push("subtask", i)
		e.subtask(&op.Subtasks[i])
		e.pop()
	}
}

func (e *encoder) subtask(s *Subtask) {
	if s.Index < 0 {
		e.fail("index", "negative subtask index %d", s.Index)
	}
	if s.Finished {
		if e.version < 3 {
			e.fail("index", "version 2 has no finished subtasks")
		}
		e.i32(-s.Index - 1)
		return
	}
	e.i32(s.Index)
	if e.version == 2 {
		e.i64(s.Duration)
		e.count("numLegacy", len(s.Legacy))
		for i, h := range s.Legacy {
			e.push("legacy", i)
			e.stream("", h)
			e.pop()
		}
	} else if len(s.Legacy) > 0 {
		e.fail("legacy", "only version 2 has legacy state")
	}
	e.operatorHandle("managed_operator_state", s.ManagedOperatorState)
	e.operatorHandle("raw_operator_state", s.RawOperatorState)
	e.push("managed_keyed_state", 0)
	e.keyed(s.ManagedKeyedState)
	e.pop()
	e.push("raw_keyed_state", 0)
	e.keyed(s.RawKeyedState)
	e.pop()
	if e.version >= 3 {
		e.channels("input_channel_state", s.InputChannels, true)
		e.channels("result_subpartition_state", s.OutputChannels, false)
	} else if len(s.InputChannels)+len(s.OutputChannels) > 0 {
		e.fail("input_channel_state", "version 2 has no channel state")
	}
	if e.version >= 7 {
		if s.RefCheckpointID != nil {
			e.u8(1)
			e.i64(*s.RefCheckpointID)
		} else {
			e.u8(0)
		}
	} else if s.RefCheckpointID != nil {
		e.fail("refCheckpointId", "only version 7 has a reference checkpoint id")
	}
}

func (e *encoder) channels(name string, v []ChannelHandle, input bool) {
	e.count("num_"+name, len(v))
	for i, h := range v {
		e.push(name, i)
		e.channel(h, input)
		e.pop()
	}
}

func (e *encoder) channel(h ChannelHandle, input bool) {
	plain, merged := ChannelOutput, ChannelMergedOutput
	if input {
		plain, merged = ChannelInput, ChannelMergedInput
	}
	switch {
	case h.Type == plain:
	case h.Type == merged && e.version >= 6:
	default:
		e.fail("type", "channel handle type %d does not fit this list in version %d", h.Type, e.version)
		return
	}
	if e.version >= 6 {
		e.u8(h.Type)
	}
	if h.Type == merged {
		e.i32(h.SubtaskIndex)
		e.i64(h.StateSize)
		e.stream("delegate", h.Delegate)
		e.bytesN("serializedChannelOffsets", h.SerializedOffsets)
		return
	}
	e.i32(h.SubtaskIndex)
	e.i32(h.GateOrPartition)
	e.i32(h.Channel)
	e.offsets("offsets", h.Offsets)
	e.i64(h.StateSize)
	e.stream("delegate", h.Delegate)
}

func (e *encoder) enter(field string) bool {
	if e.depth >= MaxDepth {
		e.fail(field, "handles nested more than %d levels", MaxDepth)
		return false
	}
	e.depth++
	return true
}

func (e *encoder) stream(field string, h *StreamHandle) {
	if field != "" {
		e.push(field, -1)
		defer e.pop()
	}
	if h == nil {
		e.u8(TagNull)
		return
	}
	if !e.enter("tag") {
		return
	}
	defer func() { e.depth-- }()
	e.u8(h.Tag)
	switch h.Tag {
	case TagByteStream:
		e.utf("handleName", h.Name)
		e.bytesN("data", h.Data)
	case TagFile:
		e.i64(h.Size)
		e.utf("filePath", h.Path)
	case TagRelativeFile:
		e.utf("relativePath", h.Path)
		e.i64(h.Size)
	case TagKeyGroups:
		if h.KeyGroups == nil {
			e.fail("keyGroups", "a tag-3 stream handle needs its key-groups handle")
			return
		}
		e.keyGroupsBody(h.KeyGroups, TagKeyGroups)
	case TagSegmentFile:
		e.i64(h.StartPos)
		e.i64(h.Size)
		e.i32(h.Scope)
		e.utf("physicalFilePath", h.Path)
		e.utf("logicalFileId", h.LogicalFileID)
	case TagEmptySegmentFile:
	default:
		e.fail("tag", "tag %d is not a stream handle", h.Tag)
	}
}

func (e *encoder) operatorHandle(name string, h *OperatorHandle) {
	e.push(name, 0)
	defer e.pop()
	if h == nil {
		e.i32(0)
		return
	}
	e.i32(1)
	e.u8(h.Tag)
	switch h.Tag {
	case TagNull:
		return
	case TagOperatorStream, TagFileMergingOperatorStream:
	default:
		e.fail("tag", "tag %d is not an operator-state handle", h.Tag)
		return
	}
	e.count("numStates", len(h.States))
	for i, s := range h.States {
		e.push("state", i)
		e.utf("name", s.Name)
		if s.Mode > 2 {
			e.fail("mode", "mode ordinal %d", s.Mode)
		}
		e.u8(s.Mode)
		e.offsets("offsets", s.Offsets)
		e.pop()
	}
	if h.Tag == TagFileMergingOperatorStream {
		e.utf("taskOwnedDirectory", h.TaskOwnedDir)
		e.utf("sharedDirectory", h.SharedDir)
		e.boolean(h.IsEmpty)
	}
	if h.Delegate == nil {
		e.fail("delegate", "operator state handle without a delegate")
	}
	e.stream("delegate", h.Delegate)
}

func (e *encoder) keyGroupsBody(h *KeyGroupsHandle, tag byte) {
	e.i32(h.StartKeyGroup)
	e.offsets("numKeyGroups", h.Offsets)
	if h.Delegate == nil {
		e.fail("delegate", "key-groups handle without a delegate")
	}
	e.stream("delegate", h.Delegate)
	if tag == TagKeyGroupsV2 {
		e.utf("stateHandleId", h.StateHandleID)
	}
}

func (e *encoder) keyed(h KeyedHandle) {
	if h == nil {
		e.u8(TagNull)
		return
	}
	if !e.enter("tag") {
		return
	}
	defer func() { e.depth-- }()
	switch h := h.(type) {
	case *KeyGroupsHandle:
		if h.Tag != TagKeyGroups && h.Tag != TagKeyGroupsV2 && h.Tag != TagKeyGroupsSavepoint {
			e.fail("tag", "tag %d is not a key-groups handle", h.Tag)
			return
		}
		e.u8(h.Tag)
		e.keyGroupsBody(h, h.Tag)
	case *IncrementalHandle:
		if h.Tag != TagIncrementalV1 && h.Tag != TagIncremental {
			e.fail("tag", "tag %d is not an incremental handle", h.Tag)
			return
		}
		e.u8(h.Tag)
		e.i64(h.CheckpointID)
		e.utf("backendIdentifier", h.BackendID)
		e.i32(h.StartKeyGroup)
		e.i32(h.NumKeyGroups)
		if h.Tag == TagIncremental {
			e.i64(h.CheckpointedSize)
		}
		e.stream("metaStateHandle", h.Meta)
		e.pathHandles("shared", h.Shared)
		e.pathHandles("private", h.Private)
		if h.Tag == TagIncremental {
			e.utf("stateHandleId", h.StateHandleID)
		}
	case *ChangelogBackendHandle:
		if h.Tag != TagChangelogBackendV1 && h.Tag != TagChangelogBackend {
			e.fail("tag", "tag %d is not a changelog backend handle", h.Tag)
			return
		}
		legacy := h.Tag == TagChangelogBackendV1 && e.changelog114
		e.u8(h.Tag)
		e.i32(h.StartKeyGroup)
		e.i32(h.NumKeyGroups)
		if !legacy {
			e.i64(h.CheckpointedSize)
		}
		e.keyedList("materialized", h.Materialized)
		e.keyedList("non_materialized", h.NonMaterialized)
		if legacy {
			return
		}
		e.i64(h.MaterializationID)
		if h.Tag == TagChangelogBackend {
			e.i64(h.CheckpointID)
		}
		e.utf("stateHandleId", h.StateHandleID)
	case *InMemoryChangelogHandle:
		e.u8(TagInMemoryChangelog)
		e.i32(h.StartKeyGroup)
		e.i32(h.NumKeyGroups)
		e.i64(h.From)
		e.i64(h.To)
		e.count("numChanges", len(h.Changes))
		for _, c := range h.Changes {
			e.i32(c.KeyGroup)
			e.bytesN("data", c.Data)
		}
		if !e.changelog114 {
			e.utf("stateHandleId", h.StateHandleID)
		}
	case *ChangelogStreamHandle:
		if h.Tag != TagChangelogStreamV1 && h.Tag != TagChangelogStream {
			e.fail("tag", "tag %d is not a changelog stream handle", h.Tag)
			return
		}
		legacy := h.Tag == TagChangelogStreamV1 && e.changelog114
		e.u8(h.Tag)
		e.i32(h.StartKeyGroup)
		e.i32(h.NumKeyGroups)
		e.count("numParts", len(h.Parts))
		for i, p := range h.Parts {
			e.push("part", i)
			e.i64(p.Offset)
			e.stream("handle", p.Handle)
			e.pop()
		}
		e.i64(h.StateSize)
		if legacy {
			return
		}
		e.i64(h.CheckpointedSize)
		e.utf("stateHandleId", h.StateHandleID)
		if h.Tag == TagChangelogStream {
			e.utf("storageIdentifier", h.StorageID)
		}
	default:
		e.fail("tag", "keyed handle type %T cannot be written", h)
	}
}

func (e *encoder) pathHandles(name string, v []PathHandle) {
	e.count("num_"+name, len(v))
	for i, p := range v {
		e.push(name, i)
		e.utf("localPath", p.LocalPath)
		e.stream("handle", p.Handle)
		e.pop()
	}
}

func (e *encoder) keyedList(name string, v []KeyedHandle) {
	e.count("num_"+name, len(v))
	for i, h := range v {
		e.push(name, i)
		e.keyed(h)
		e.pop()
	}
}
