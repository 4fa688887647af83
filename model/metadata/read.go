package metadata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth caps how deeply handles may nest (changelog handles hold keyed handles, key-groups
// stream handles hold stream handles). Real files nest at most 3 deep.
const MaxDepth = 16

// MaxSubtaskSlots bounds the subtask slots a file may need: Model gives every operator one slot
// per subtask index up to its highest, so Read refuses a file whose operators need more than
// MaxSubtaskSlots + len(b)/2 slots in all (a real file lists nearly every subtask, at 4 bytes or
// more each). Flink keeps subtask states in hash maps and has no such limit; without it a
// 30-byte file with a finished subtask at index 2^31-2 would make Model allocate 16 GiB.
const MaxSubtaskSlots = 1 << 20

// DefaultMaxFileSize is the limit ReadFrom uses when given a limit ≤ 0: 4 GiB, room for the
// _metadata of a production job (50 operators × 1,000 subtasks of incremental handles with 200
// shared files each is 1.25 GB). A stream that does not start with the magic number is refused
// after its first four bytes, whatever the limit.
const DefaultMaxFileSize = 4 << 30

const masterStateMagic uint32 = 0xC96B1696

// Read decodes a complete _metadata file (format versions 2 to 7), as Flink's
// Checkpoints.loadCheckpointMetadata and MetadataV2…V7Serializer.deserialize do. It never panics
// and never allocates more than a small multiple of len(b): every count is checked against the
// bytes left before anything is allocated, and subtask indexes are bounded (MaxSubtaskSlots) so
// that Model cannot allocate more either. Any problem is a *FormatError naming the byte offset
// and the field; a file that continues after its last structure is an error too. Version 1
// (Flink 1.2) is refused with ErrUnsupportedVersion, as current Flink does.
//
// The File does not share memory with b.
func Read(b []byte) (*File, error) {
	d := &decoder{b: b}
	f := d.file()
	if d.err == nil {
		return f, nil
	}
	if d.sawChangelogV1 {
		// Flink 1.14 wrote tags 8, 9 and 10 without the fields 1.15 added (FORMAT.md §8.3).
		d2 := &decoder{b: b, changelog114: true}
		if f2 := d2.file(); d2.err == nil {
			f2.Changelog114 = true
			return f2, nil
		}
	}
	return nil, d.err
}

// ReadFrom reads all of r (at most limit bytes; DefaultMaxFileSize when limit ≤ 0) and decodes
// it with Read. More than limit bytes give ErrFileTooLarge.
func ReadFrom(r io.Reader, limit int64) (*File, error) {
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	// The magic number first, so that a large file of another kind is not read whole.
	head := make([]byte, 4)
	n, err := io.ReadFull(r, head)
	if err == nil && binary.BigEndian.Uint32(head) != Magic {
		return Read(head)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head[:n]), r), limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("metadata: %w (more than %d bytes)", ErrFileTooLarge, limit)
	}
	return Read(b)
}

type pathElem struct {
	name string
	idx  int // < 0: no index
}

// decoder reads big-endian fields with a sticky error: once err is set every read returns a
// zero value and every count is 0, so loops end and the first error is the one reported.
type decoder struct {
	b              []byte
	off            int
	path           []pathElem
	err            *FormatError
	depth          int
	version        int32
	changelog114   bool
	sawChangelogV1 bool
	slots          int64 // Σ over operators of (highest subtask index + 1)
	arena          strings.Builder
	interned       map[string]string
	streams        []StreamHandle // preallocated stream handles, taken in order (newStream)
	streamsMade    int            // the size of the last chunk of streams
}

// streamChunk is how many stream handles newStream allocates at most at once, the chunks
// doubling from 16 (a file's bytes do not say how many handles it holds; 256 × 112 bytes is a
// size class of Go's allocator, so nothing is wasted).
const streamChunk = 256

// newStream gives a new stream handle with the tag, from a chunk of preallocated ones (a file
// has one or more per state file; a chunk lives as long as any of its handles).
func (d *decoder) newStream(tag byte) *StreamHandle {
	if len(d.streams) == 0 {
		d.streamsMade = min(streamChunk, max(16, 2*d.streamsMade), max(1, d.left()/16))
		d.streams = make([]StreamHandle, d.streamsMade)
	}
	h := &d.streams[0]
	d.streams = d.streams[1:]
	h.Tag = tag
	return h
}

func (d *decoder) push(name string, idx int) { d.path = append(d.path, pathElem{name, idx}) }
func (d *decoder) pop()                      { d.path = d.path[:len(d.path)-1] }

func (d *decoder) fieldPath(field string) string {
	var sb strings.Builder
	for i, p := range d.path {
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(p.name)
		if p.idx >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(p.idx))
			sb.WriteByte(']')
		}
	}
	if field != "" {
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(field)
	}
	return sb.String()
}

// failAt records the first error.
func (d *decoder) failAt(at int, field string, err error) {
	if d.err == nil {
		d.err = &FormatError{Offset: int64(at), Field: d.fieldPath(field), Err: err}
	}
}

func (d *decoder) left() int { return len(d.b) - d.off }

func (d *decoder) need(n int, field string) bool {
	if d.err != nil {
		return false
	}
	if n > d.left() {
		d.failAt(d.off, field, fmt.Errorf("%w: need %d bytes, %d left", ErrTruncated, n, d.left()))
		return false
	}
	return true
}

func (d *decoder) u8(field string) byte {
	if !d.need(1, field) {
		return 0
	}
	v := d.b[d.off]
	d.off++
	return v
}

func (d *decoder) i32(field string) int32 {
	if !d.need(4, field) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(d.b[d.off:]))
	d.off += 4
	return v
}

func (d *decoder) i64(field string) int64 {
	if !d.need(8, field) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *decoder) boolean(field string) bool { return d.u8(field) != 0 }

// count reads an i32 count of elements that each take at least minSize bytes, and checks it
// against the bytes left before anything is allocated.
func (d *decoder) count(field string, minSize int) int {
	at := d.off
	n := d.i32(field)
	if d.err != nil {
		return 0
	}
	if n < 0 {
		d.failAt(at, field, fmt.Errorf("%w: %d", ErrNegative, n))
		return 0
	}
	if int64(n)*int64(minSize) > int64(d.left()) {
		d.failAt(at, field, fmt.Errorf("%w: %d elements of at least %d bytes, %d bytes left", ErrTooLarge, n, minSize, d.left()))
		return 0
	}
	return int(n)
}

// bytesN reads an i32 length and that many bytes (a copy).
func (d *decoder) bytesN(field string) []byte {
	n := d.count(field, 1)
	if d.err != nil {
		return nil
	}
	v := make([]byte, n)
	copy(v, d.b[d.off:])
	d.off += n
	return v
}

// utf reads a Java writeUTF string: u16 length, then modified UTF-8.
func (d *decoder) utf(field string) string { return d.utfIn(field, false) }

// internedUTF is utf for strings that repeat (see maxInterned).
func (d *decoder) internedUTF(field string) string { return d.utfIn(field, true) }

func (d *decoder) utfIn(field string, intern bool) string {
	at := d.off
	if !d.need(2, field) {
		return ""
	}
	n := int(binary.BigEndian.Uint16(d.b[d.off:]))
	if n > d.left()-2 {
		d.failAt(at, field, fmt.Errorf("%w: string of %d bytes, %d left", ErrTruncated, n, d.left()-2))
		return ""
	}
	d.off += 2
	raw := d.b[d.off : d.off+n]
	d.off += n
	if !isASCII(raw) {
		s, ok := decodeModifiedUTF8(raw)
		if !ok {
			d.failAt(at, field, fmt.Errorf("%w: malformed modified UTF-8", ErrInvalid))
			return ""
		}
		return s
	}
	if !intern {
		return d.str(raw)
	}
	if s, ok := d.interned[string(raw)]; ok {
		return s
	}
	s := d.str(raw)
	if d.interned == nil {
		d.interned = map[string]string{}
	}
	if len(d.interned) < maxInterned {
		d.interned[s] = s
	}
	return s
}

// The decoder's strings are copied into chunks of arenaChunk bytes (strings of more than
// arenaMax bytes each get their own), so a file's many short strings (paths, IDs) cost one
// allocation per chunk and no size-class rounding each; a chunk lives as long as any of its
// strings. Local paths of incremental handles (SST names, which repeat across subtasks) are
// interned, up to maxInterned distinct ones.
const (
	arenaChunk  = 32 << 10
	arenaMax    = 1 << 10
	maxInterned = 1 << 16
)

// str gives b as a string in the decoder's arena.
func (d *decoder) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaMax {
		return string(b)
	}
	if d.arena.Cap()-d.arena.Len() < len(b) {
		// A new chunk; the strings of the old one stay valid (a Builder never changes
		// bytes it has written).
		d.arena = strings.Builder{}
		d.arena.Grow(min(arenaChunk, max(len(b), d.left())))
	}
	start := d.arena.Len()
	d.arena.Write(b)
	return d.arena.String()[start:]
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func (d *decoder) offsets(field string) []int64 {
	n := d.count(field, 8)
	if d.err != nil {
		return nil
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(binary.BigEndian.Uint64(d.b[d.off:]))
		d.off += 8
	}
	return v
}

func (d *decoder) file() *File {
	f := &File{}
	at := d.off
	if magic := uint32(d.i32("magic")); d.err == nil && magic != Magic {
		d.failAt(at, "magic", fmt.Errorf("%w: %#08x, want %#08x (a Flink 1.0/1.1 savepoint, not a metadata file, or corrupt)", ErrBadMagic, magic, Magic))
	}
	at = d.off
	f.Version = d.i32("version")
	if d.err != nil {
		return nil
	}
	switch {
	case f.Version == 1:
		d.failAt(at, "version", fmt.Errorf("%w: 1 (written by Flink 1.2; Flink 1.4 and later cannot restore it either)", ErrUnsupportedVersion))
	case f.Version < MinVersion || f.Version > MaxVersion:
		d.failAt(at, "version", fmt.Errorf("%w: %d (this reader knows versions %d to %d)", ErrUnsupportedVersion, f.Version, MinVersion, MaxVersion))
	}
	d.version = f.Version
	at = d.off
	f.CheckpointID = d.i64("checkpointId")
	if d.err == nil && f.CheckpointID < 0 {
		d.failAt(at, "checkpointId", fmt.Errorf("%w: negative checkpoint id %d", ErrInvalid, f.CheckpointID))
	}
	n := d.count("numMasterStates", 18)
	for i := 0; i < n && d.err == nil; i++ {
		d.push("master_state", i)
		f.MasterStates = append(f.MasterStates, d.masterState())
		d.pop()
	}
	minOp := 29
	switch {
	case d.version == 2:
		minOp = 32
	case d.version >= 5:
		minOp = 33
	}
	n = d.count("numOperators", minOp)
	if d.err == nil {
		f.Operators = make([]Operator, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		d.push("operator", i)
		f.Operators = append(f.Operators, d.operator())
		d.pop()
	}
	if d.version >= 4 && d.err == nil {
		p, end, err := parseProperties(d.b, d.off, MaxDepth)
		if err != nil {
			d.err = err
		} else {
			f.Properties = p
			d.off = end
		}
	}
	if d.err == nil && d.left() > 0 {
		d.failAt(d.off, "end", fmt.Errorf("%w: %d bytes", ErrTrailingBytes, d.left()))
	}
	if d.err != nil {
		return nil
	}
	return f
}

func (d *decoder) masterState() MasterState {
	var m MasterState
	at := d.off
	if magic := uint32(d.i32("magic")); d.err == nil && magic != masterStateMagic {
		d.failAt(at, "magic", fmt.Errorf("%w: master state magic %#08x, want %#08x", ErrInvalid, magic, masterStateMagic))
	}
	at = d.off
	length := d.i32("length")
	if d.err != nil {
		return m
	}
	if length <= 0 || int64(length) > int64(d.left()) {
		d.failAt(at, "length", fmt.Errorf("%w: frame length %d, %d bytes left", ErrInvalid, length, d.left()))
		return m
	}
	// Read the frame's content with the data cut at the frame's end.
	end := d.off + int(length)
	full := d.b
	d.b = d.b[:end]
	m.Version = d.i32("version")
	m.Name = d.utf("name")
	m.Data = d.bytesN("bytes")
	if d.err == nil && d.off != end {
		d.failAt(d.off, "end", fmt.Errorf("%w: %d trailing bytes in the master state frame", ErrInvalid, end-d.off))
	}
	d.b = full
	return m
}

func (d *decoder) operator() Operator {
	var op Operator
	if d.version >= 5 {
		op.Name = d.utf("name")
		op.UID = d.utf("uid")
	}
	lower := d.i64("operatorId.lower")
	upper := d.i64("operatorId.upper")
	binary.BigEndian.PutUint64(op.ID[:8], uint64(lower))
	binary.BigEndian.PutUint64(op.ID[8:], uint64(upper))
	at := d.off
	op.Parallelism = d.i32("parallelism")
	op.MaxParallelism = d.i32("maxParallelism")
	if d.err == nil && (op.Parallelism < 0 || op.Parallelism > op.MaxParallelism) {
		d.failAt(at, "parallelism", fmt.Errorf("%w: parallelism %d with max parallelism %d (need 0 <= parallelism <= max parallelism)", ErrInvalid, op.Parallelism, op.MaxParallelism))
	}
	if d.version == 2 {
		op.ChainLength = d.i32("chainLength")
	}
	if d.version >= 3 {
		at = d.off
		op.CoordinatorState = d.stream("coordinator_state")
		if d.err == nil && op.CoordinatorState != nil && op.CoordinatorState.Tag != TagByteStream {
			d.failAt(at, "coordinator_state", fmt.Errorf("%w: coordinator state must be a ByteStreamStateHandle (tag 1), got tag %d", ErrInvalid, op.CoordinatorState.Tag))
		}
	}
	at = d.off
	n := d.i32("numSubtasks")
	if d.err != nil {
		return op
	}
	if n < 0 {
		if d.version < 3 {
			d.failAt(at, "numSubtasks", fmt.Errorf("%w: %d", ErrNegative, n))
			return op
		}
		if op.CoordinatorState != nil {
			d.failAt(at, "numSubtasks", fmt.Errorf("%w: a fully finished operator cannot have coordinator state", ErrInvalid))
			return op
		}
		op.FullyFinished = true
		return op
	}
	if int64(n)*4 > int64(d.left()) {
		d.failAt(at, "numSubtasks", fmt.Errorf("%w: %d elements of at least 4 bytes, %d bytes left", ErrTooLarge, n, d.left()))
		return op
	}
	op.Subtasks = make([]Subtask, 0, n)
	var maxIndex int64 // highest subtask index + 1 so far
	for i := 0; i < int(n) && d.err == nil; i++ {
		d.push("subtask", i)
		at := d.off
		s := d.subtask(op.Parallelism)
		if d.err == nil && int64(s.Index) >= maxIndex {
			// Model keeps one slot per subtask index up to the highest one.
			d.slots += int64(s.Index) - maxIndex + 1
			maxIndex = int64(s.Index) + 1
			if limit := MaxSubtaskSlots + int64(len(d.b)/2); d.slots > limit {
				d.failAt(at, "index", fmt.Errorf("%w: subtask index %d makes %d subtask slots in all, more than this reader allows for a file of %d bytes (%d)",
					ErrTooLarge, s.Index, d.slots, len(d.b), limit))
			}
		}
		op.Subtasks = append(op.Subtasks, s)
		d.pop()
	}
	return op
}

func (d *decoder) subtask(parallelism int32) Subtask {
	var s Subtask
	at := d.off
	idx := d.i32("index")
	if d.err != nil {
		return s
	}
	if idx < 0 && d.version >= 3 {
		s.Finished = true
		s.Index = -(idx + 1)
	} else {
		s.Index = idx
	}
	if s.Index < 0 || s.Index >= parallelism {
		d.failAt(at, "index", fmt.Errorf("%w: subtask index %d is outside 0..%d (parallelism %d)", ErrInvalid, idx, parallelism-1, parallelism))
		return s
	}
	if s.Finished {
		return s
	}
	if d.version == 2 {
		s.Duration = d.i64("duration")
		n := d.count("numLegacy", 1)
		for i := 0; i < n && d.err == nil; i++ {
			d.push("legacy", i)
			s.Legacy = append(s.Legacy, d.stream(""))
			d.pop()
		}
	}
	if d.i32("hasManagedOperatorState") != 0 {
		s.ManagedOperatorState = d.operatorHandle("managed_operator_state")
	}
	if d.i32("hasRawOperatorState") != 0 {
		s.RawOperatorState = d.operatorHandle("raw_operator_state")
	}
	s.ManagedKeyedState = d.keyedAt("managed_keyed_state")
	s.RawKeyedState = d.keyedAt("raw_keyed_state")
	if d.version >= 3 {
		s.InputChannels = d.channels("input_channel_state", true)
		s.OutputChannels = d.channels("result_subpartition_state", false)
	}
	if d.version >= 7 {
		if d.u8("refCheckpointIdMarker") == 1 {
			v := d.i64("refCheckpointId")
			s.RefCheckpointID = &v
		}
	}
	return s
}

// keyedAt reads the one keyed handle of a subtask under name[0].
func (d *decoder) keyedAt(name string) KeyedHandle {
	d.push(name, 0)
	defer d.pop()
	return d.keyed()
}

func (d *decoder) channels(name string, input bool) []ChannelHandle {
	min := 25
	if d.version >= 6 {
		min = 18
	}
	n := d.count("num_"+name, min)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]ChannelHandle, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		d.push(name, i)
		v = append(v, d.channel(input))
		d.pop()
	}
	return v
}

func (d *decoder) channel(input bool) ChannelHandle {
	var h ChannelHandle
	if input {
		h.Type = ChannelInput
	} else {
		h.Type = ChannelOutput
	}
	if d.version >= 6 {
		at := d.off
		h.Type = d.u8("type")
		if d.err != nil {
			return h
		}
		ok := h.Type == ChannelInput || h.Type == ChannelMergedInput
		if !input {
			ok = h.Type == ChannelOutput || h.Type == ChannelMergedOutput
		}
		if !ok {
			d.failAt(at, "type", fmt.Errorf("%w: channel handle type %d in the %s list", ErrUnknownTag, h.Type, map[bool]string{true: "input", false: "output"}[input]))
			return h
		}
		if h.Type == ChannelMergedInput || h.Type == ChannelMergedOutput {
			h.SubtaskIndex = d.i32("subtaskIndex")
			h.StateSize = d.i64("stateSize")
			h.Delegate = d.stream("delegate")
			h.SerializedOffsets = d.bytesN("serializedChannelOffsets")
			return h
		}
	}
	h.SubtaskIndex = d.i32("subtaskIndex")
	h.GateOrPartition = d.i32("gateOrPartitionIdx")
	h.Channel = d.i32("channelIdx")
	h.Offsets = d.offsets("offsets")
	h.StateSize = d.i64("stateSize")
	h.Delegate = d.stream("delegate")
	return h
}

func (d *decoder) enter(field string) bool {
	if d.err != nil {
		return false
	}
	if d.depth >= MaxDepth {
		d.failAt(d.off, field, fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxDepth))
		return false
	}
	d.depth++
	return true
}

// stream reads a stream-state handle (deserializeStreamStateHandle); nil for tag 0. The field
// name is pushed onto the path (when not "").
func (d *decoder) stream(field string) *StreamHandle {
	if field != "" {
		d.push(field, -1)
		defer d.pop()
	}
	if !d.enter("tag") {
		return nil
	}
	defer func() { d.depth-- }()
	at := d.off
	tag := d.u8("tag")
	if d.err != nil {
		return nil
	}
	switch tag {
	case TagNull:
		return nil
	case TagByteStream, TagFile, TagRelativeFile, TagKeyGroups, TagSegmentFile, TagEmptySegmentFile:
	default:
		d.failAt(at, "tag", fmt.Errorf("%w: %d in a stream-handle context", ErrUnknownTag, tag))
		return nil
	}
	h := d.newStream(tag)
	switch tag {
	case TagByteStream:
		h.Name = d.utf("handleName")
		h.Data = d.bytesN("data")
	case TagFile:
		h.Size = d.i64("stateSize")
		h.Path = d.utf("filePath")
	case TagRelativeFile:
		h.Path = d.utf("relativePath")
		h.Size = d.i64("stateSize")
	case TagKeyGroups:
		h.KeyGroups = d.keyGroups(TagKeyGroups)
	case TagSegmentFile:
		h.StartPos = d.i64("startPos")
		h.Size = d.i64("stateSize")
		sat := d.off
		h.Scope = d.i32("scope")
		if d.err == nil && h.Scope != 0 && h.Scope != 1 {
			d.failAt(sat, "scope", fmt.Errorf("%w: checkpointed state scope ordinal %d (want 0 EXCLUSIVE or 1 SHARED)", ErrUnknownTag, h.Scope))
		}
		h.Path = d.utf("physicalFilePath")
		h.LogicalFileID = d.utf("logicalFileId")
	}
	return h
}

// operatorHandle reads deserializeOperatorStateHandle under name[0].
func (d *decoder) operatorHandle(name string) *OperatorHandle {
	d.push(name, 0)
	defer d.pop()
	at := d.off
	tag := d.u8("tag")
	if d.err != nil {
		return nil
	}
	h := &OperatorHandle{Tag: tag}
	switch tag {
	case TagNull:
		return h
	case TagOperatorStream, TagFileMergingOperatorStream:
	default:
		d.failAt(at, "tag", fmt.Errorf("%w: %d in an operator-handle context", ErrUnknownTag, int8(tag)))
		return nil
	}
	n := d.count("numStates", 7)
	if d.err == nil {
		h.States = make([]StateEntry, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		d.push("state", i)
		var e StateEntry
		e.Name = d.utf("name")
		mat := d.off
		e.Mode = d.u8("mode")
		if d.err == nil && e.Mode > 2 {
			d.failAt(mat, "mode", fmt.Errorf("%w: distribution mode ordinal %d (want 0, 1 or 2)", ErrUnknownTag, int8(e.Mode)))
		}
		e.Offsets = d.offsets("offsets")
		h.States = append(h.States, e)
		d.pop()
	}
	if tag == TagFileMergingOperatorStream {
		h.TaskOwnedDir = d.utf("taskOwnedDirectory")
		h.SharedDir = d.utf("sharedDirectory")
		h.IsEmpty = d.boolean("isEmpty")
	}
	at = d.off
	h.Delegate = d.stream("delegate")
	if d.err == nil {
		switch {
		case h.Delegate == nil:
			d.failAt(at, "delegate", fmt.Errorf("%w: operator state handle without a delegate", ErrInvalid))
		case tag == TagFileMergingOperatorStream && h.Delegate.Tag != TagSegmentFile && h.Delegate.Tag != TagEmptySegmentFile:
			d.failAt(at, "delegate", fmt.Errorf("%w: a file-merging operator handle needs a segment-file delegate, got tag %d", ErrInvalid, h.Delegate.Tag))
		}
	}
	return h
}

// checkRange applies KeyGroupRange.of's checks to a start and count read at offset at.
func (d *decoder) checkRange(at int, start, num int32) {
	if d.err != nil || num <= 0 {
		return
	}
	if start < 0 || int64(start)+int64(num)-1 > math.MaxInt32 {
		d.failAt(at, "startKeyGroup", fmt.Errorf("%w: key-group range start %d with %d key groups", ErrInvalid, start, num))
	}
}

// keyGroups reads the body of a key-groups handle (tags 3, 7, 12) after its tag.
func (d *decoder) keyGroups(tag byte) *KeyGroupsHandle {
	h := &KeyGroupsHandle{Tag: tag}
	at := d.off
	h.StartKeyGroup = d.i32("startKeyGroup")
	h.Offsets = d.offsets("numKeyGroups")
	d.checkRange(at, h.StartKeyGroup, int32(len(h.Offsets)))
	at = d.off
	h.Delegate = d.stream("delegate")
	if d.err == nil && h.Delegate == nil {
		d.failAt(at, "delegate", fmt.Errorf("%w: key-groups handle without a delegate", ErrInvalid))
	}
	if tag == TagKeyGroupsV2 {
		h.StateHandleID = d.utf("stateHandleId")
	}
	return h
}

// keyed reads deserializeKeyedStateHandle; nil for tag 0.
func (d *decoder) keyed() KeyedHandle {
	if !d.enter("tag") {
		return nil
	}
	defer func() { d.depth-- }()
	at := d.off
	tag := d.u8("tag")
	if d.err != nil {
		return nil
	}
	switch tag {
	case TagNull:
		return nil
	case TagKeyGroups, TagKeyGroupsV2, TagKeyGroupsSavepoint:
		return d.keyGroups(tag)
	case TagIncrementalV1, TagIncremental:
		return d.incremental(tag)
	case TagChangelogBackendV1, TagChangelogBackend:
		return d.changelogBackend(tag)
	case TagInMemoryChangelog:
		return d.inMemoryChangelog()
	case TagChangelogStreamV1, TagChangelogStream:
		return d.changelogStream(tag)
	}
	d.failAt(at, "tag", fmt.Errorf("%w: %d in a keyed-handle context", ErrUnknownTag, int8(tag)))
	return nil
}

func (d *decoder) incremental(tag byte) *IncrementalHandle {
	h := &IncrementalHandle{Tag: tag}
	h.CheckpointID = d.i64("checkpointId")
	h.BackendID = d.utf("backendIdentifier")
	at := d.off
	h.StartKeyGroup = d.i32("startKeyGroup")
	h.NumKeyGroups = d.i32("numKeyGroups")
	d.checkRange(at, h.StartKeyGroup, h.NumKeyGroups)
	if tag == TagIncremental {
		h.CheckpointedSize = d.i64("checkpointedSize")
	}
	h.Meta = d.stream("metaStateHandle")
	h.Shared = d.pathHandles("shared")
	h.Private = d.pathHandles("private")
	if tag == TagIncremental {
		h.StateHandleID = d.utf("stateHandleId")
	}
	return h
}

func (d *decoder) pathHandles(name string) []PathHandle {
	n := d.count("num_"+name, 3)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]PathHandle, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		d.push(name, i)
		var p PathHandle
		p.LocalPath = d.internedUTF("localPath")
		p.Handle = d.stream("handle")
		v = append(v, p)
		d.pop()
	}
	return v
}

func (d *decoder) keyedList(name string) []KeyedHandle {
	n := d.count("num_"+name, 1)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]KeyedHandle, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		d.push(name, i)
		v = append(v, d.keyed())
		d.pop()
	}
	return v
}

func (d *decoder) changelogBackend(tag byte) *ChangelogBackendHandle {
	legacy := tag == TagChangelogBackendV1 && d.changelog114
	if tag == TagChangelogBackendV1 {
		d.sawChangelogV1 = true
	}
	h := &ChangelogBackendHandle{Tag: tag}
	at := d.off
	h.StartKeyGroup = d.i32("startKeyGroup")
	h.NumKeyGroups = d.i32("numKeyGroups")
	d.checkRange(at, h.StartKeyGroup, h.NumKeyGroups)
	if !legacy {
		h.CheckpointedSize = d.i64("checkpointedSize")
	}
	h.Materialized = d.keyedList("materialized")
	at = d.off
	h.NonMaterialized = d.keyedList("non_materialized")
	for i, c := range h.NonMaterialized {
		if c == nil || d.err != nil {
			continue
		}
		switch c.HandleTag() {
		case TagInMemoryChangelog, TagChangelogStreamV1, TagChangelogStream:
		default:
			d.failAt(at, fmt.Sprintf("non_materialized[%d]", i), fmt.Errorf("%w: a non-materialized part must be a changelog handle, got %s", ErrInvalid, c.ClassName()))
		}
	}
	if legacy {
		return h
	}
	h.MaterializationID = d.i64("materializationId")
	if tag == TagChangelogBackend {
		h.CheckpointID = d.i64("checkpointId")
	}
	h.StateHandleID = d.utf("stateHandleId")
	return h
}

func (d *decoder) inMemoryChangelog() *InMemoryChangelogHandle {
	d.sawChangelogV1 = true
	h := &InMemoryChangelogHandle{}
	at := d.off
	h.StartKeyGroup = d.i32("startKeyGroup")
	h.NumKeyGroups = d.i32("numKeyGroups")
	d.checkRange(at, h.StartKeyGroup, h.NumKeyGroups)
	h.From = d.i64("from")
	h.To = d.i64("to")
	n := d.count("numChanges", 8)
	for i := 0; i < n && d.err == nil; i++ {
		d.push("change", i)
		var c StateChange
		c.KeyGroup = d.i32("keyGroup")
		c.Data = d.bytesN("data")
		h.Changes = append(h.Changes, c)
		d.pop()
	}
	if !d.changelog114 {
		h.StateHandleID = d.utf("stateHandleId")
	}
	return h
}

func (d *decoder) changelogStream(tag byte) *ChangelogStreamHandle {
	legacy := tag == TagChangelogStreamV1 && d.changelog114
	if tag == TagChangelogStreamV1 {
		d.sawChangelogV1 = true
	}
	h := &ChangelogStreamHandle{Tag: tag}
	at := d.off
	h.StartKeyGroup = d.i32("startKeyGroup")
	h.NumKeyGroups = d.i32("numKeyGroups")
	d.checkRange(at, h.StartKeyGroup, h.NumKeyGroups)
	n := d.count("numParts", 9)
	for i := 0; i < n && d.err == nil; i++ {
		d.push("part", i)
		var p ChangelogPart
		p.Offset = d.i64("offset")
		p.Handle = d.stream("handle")
		h.Parts = append(h.Parts, p)
		d.pop()
	}
	h.StateSize = d.i64("stateSize")
	if legacy {
		return h
	}
	h.CheckpointedSize = d.i64("checkpointedSize")
	h.StateHandleID = d.utf("stateHandleId")
	if tag == TagChangelogStream {
		h.StorageID = d.utf("storageIdentifier")
	}
	return h
}

// decodeModifiedUTF8 decodes Java's modified UTF-8 as DataInputStream.readUTF does (it accepts
// overlong forms). Surrogate pairs are joined; an unpaired surrogate is kept as its 3-byte
// generalized UTF-8 form so that encodeModifiedUTF8 gives the same bytes back.
func decodeModifiedUTF8(b []byte) (string, bool) {
	if isASCII(b) {
		return string(b), true
	}
	units := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch c >> 4 {
		case 0, 1, 2, 3, 4, 5, 6, 7:
			units = append(units, uint16(c))
			i++
		case 12, 13:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return "", false
			}
			units = append(units, uint16(c&0x1F)<<6|uint16(b[i+1]&0x3F))
			i += 2
		case 14:
			if i+2 >= len(b) || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
				return "", false
			}
			units = append(units, uint16(c&0x0F)<<12|uint16(b[i+1]&0x3F)<<6|uint16(b[i+2]&0x3F))
			i += 3
		default:
			return "", false
		}
	}
	var sb strings.Builder
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			sb.WriteRune(utf16.DecodeRune(rune(u), rune(units[i+1])))
			i++
		case utf16.IsSurrogate(rune(u)):
			sb.Write([]byte{0xE0 | byte(u>>12), 0x80 | byte(u>>6)&0x3F, 0x80 | byte(u)&0x3F})
		default:
			sb.WriteRune(rune(u))
		}
	}
	return sb.String(), true
}

// encodeModifiedUTF8 is the inverse of decodeModifiedUTF8 (DataOutputStream.writeUTF without the
// length): NUL as C0 80, supplementary characters as two 3-byte surrogates. Invalid UTF-8 bytes
// that are not a kept surrogate become U+FFFD.
func encodeModifiedUTF8(s string) []byte { return appendModifiedUTF8(make([]byte, 0, len(s)), s) }

// appendModifiedUTF8 appends encodeModifiedUTF8(s) to out.
func appendModifiedUTF8(out []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			if i+2 < len(s) && c == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				out = append(out, s[i:i+3]...)
				i += 3
				continue
			}
			r, size = utf8.RuneError, 1
		}
		i += size
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			out = appendUnit(out, uint16(hi))
			out = appendUnit(out, uint16(lo))
			continue
		}
		out = appendUnit(out, uint16(r))
	}
	return out
}

func appendUnit(out []byte, u uint16) []byte {
	switch {
	case u != 0 && u < 0x80:
		return append(out, byte(u))
	case u < 0x800:
		return append(out, 0xC0|byte(u>>6), 0x80|byte(u)&0x3F)
	}
	return append(out, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
}
