package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallFile is a synthetic version-4 file with a master state, coordinator state, operator
// state, every common keyed-handle kind and channel state: a compact target for truncation
// and bit flips.
func smallFile() *File {
	bs := func(name string, n int) *StreamHandle {
		return &StreamHandle{Tag: TagByteStream, Name: name, Data: make([]byte, n)}
	}
	return &File{Version: 4, CheckpointID: 7,
		MasterStates: []MasterState{{Name: "hook", Version: 1, Data: []byte{1, 2, 3}}},
		Operators: []Operator{{
			ID: [16]byte{1, 2, 3}, Parallelism: 2, MaxParallelism: 4,
			CoordinatorState: bs("coord", 3),
			Subtasks: []Subtask{
				{Index: 0,
					ManagedOperatorState: &OperatorHandle{Tag: TagOperatorStream, Delegate: bs("op", 4),
						States: []StateEntry{{Name: "s", Mode: 0, Offsets: []int64{0, 2}}, {Name: "u", Mode: 1, Offsets: []int64{3}}}},
					ManagedKeyedState: &KeyGroupsHandle{Tag: TagKeyGroupsV2, StartKeyGroup: 0, Offsets: []int64{0, 1}, Delegate: bs("kg", 2), StateHandleID: "id"},
					RawKeyedState: &IncrementalHandle{Tag: TagIncremental, BackendID: "b", NumKeyGroups: 2, Meta: &StreamHandle{Tag: TagRelativeFile, Path: "m", Size: 1},
						Shared: []PathHandle{{LocalPath: "1.sst", Handle: &StreamHandle{Tag: TagFile, Path: "/s", Size: 2}}}},
					InputChannels: []ChannelHandle{{Type: ChannelInput, Offsets: []int64{0}, StateSize: 1, Delegate: bs("ch", 1)}},
				},
				{Index: 1, Finished: true},
			},
		}, {ID: [16]byte{9}, Parallelism: 1, MaxParallelism: 1, FullyFinished: true}},
		Properties: PropertiesFromModel(nil),
	}
}

func smallBytes(t testing.TB) []byte {
	b, err := Marshal(smallFile())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkFormatError checks that err is one *FormatError, on one line, at an offset inside the
// data, naming a field.
func checkFormatError(t *testing.T, what string, err error, size int) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: error %v (%T) is not a *FormatError", what, err, err)
	}
	if fe.Offset < 0 || fe.Offset > int64(size) || fe.Field == "" || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%s: bad error %q (offset %d, size %d)", what, err, fe.Offset, size)
	}
}

// damageTargets are the synthetic file and, when present, the smallest real files of each
// version.
func damageTargets(t *testing.T) map[string][]byte {
	targets := map[string][]byte{"synthetic": smallBytes(t)}
	for _, name := range []string{
		"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint.metadata", // v4, incremental
		"kafka-enum2.metadata", // v5, coordinator, savepoint properties
		"new-stateful-udf-migration-itcase-flink1.15-hashmap-savepoint.metadata",                    // v3
		"target.test-classes.type-serializer-snapshot-migration-itcase-flink1.9-savepoint.metadata", // v2
	} {
		if b, err := os.ReadFile(filepath.Join(optionalRealDir(), name)); err == nil {
			targets[name] = b
		}
	}
	return targets
}

// TestTruncation cuts files at every offset: each prefix must fail with a *FormatError.
func TestTruncation(t *testing.T) {
	for name, b := range damageTargets(t) {
		for i := 0; i < len(b); i++ {
			_, err := Read(b[:i])
			checkFormatError(t, name+" cut at "+strconv.Itoa(i), err, i)
		}
	}
}

// TestBitFlips flips every bit of the small files: Read must not panic, must fail with a
// *FormatError or give a File that writes and reads back consistently.
func TestBitFlips(t *testing.T) {
	n := 0
	for name, b := range damageTargets(t) {
		if len(b) > 4000 {
			continue
		}
		c := make([]byte, len(b))
		for i := 0; i < len(b); i++ {
			for bit := 0; bit < 8; bit++ {
				copy(c, b)
				c[i] ^= 1 << bit
				n++
				f, err := Read(c)
				if err != nil {
					checkFormatError(t, name+" flip "+strconv.Itoa(i), err, len(c))
					continue
				}
				checkConsistent(t, f)
			}
		}
	}
	t.Logf("%d flipped files", n)
}

func checkConsistent(t *testing.T, f *File) {
	t.Helper()
	out, err := Marshal(f)
	if err != nil {
		t.Fatalf("a file Read accepted does not write: %v", err)
	}
	g, err := Read(out)
	if err != nil {
		t.Fatalf("a written file does not read: %v", err)
	}
	// Comparing encodings is much faster than cmp.Diff; diff only on a mismatch.
	if out2, err := Marshal(g); err != nil || !bytes.Equal(out, out2) {
		t.Fatalf("read → write → read changed the file (-want +got):\n%s", cmp.Diff(f, g, fileOpts))
	}
	_ = f.Model() // must not panic
}

// buf builds byte strings for the exact-error cases.
type buf struct{ b []byte }

func (w *buf) i32(v int32) *buf { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)); return w }
func (w *buf) i64(v int64) *buf { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)); return w }
func (w *buf) u8(v byte) *buf   { w.b = append(w.b, v); return w }
func (w *buf) utf(s string) *buf {
	w.b = binary.BigEndian.AppendUint16(w.b, uint16(len(s)))
	w.b = append(w.b, s...)
	return w
}
func (w *buf) at() int { return len(w.b) }

// header starts a file: magic, version, checkpoint id 1, no master states.
func header(version int32) *buf {
	return (&buf{}).i32(int32(Magic)).i32(version).i64(1).i32(0)
}

// v3op starts a v3 operator with parallelism p (max 128) and no coordinator state.
func (w *buf) v3op(p int32) *buf { return w.i64(1).i64(2).i32(p).i32(128).u8(0) }

func TestDamagedInputs(t *testing.T) {
	type tc struct {
		name   string
		data   []byte
		offset int64
		field  string
		want   error
		text   string // substring of the message
	}
	var tests []tc
	add := func(name string, data []byte, offset int, field string, want error, text string) {
		tests = append(tests, tc{name, data, int64(offset), field, want, text})
	}
	add("empty file", nil, 0, "magic", ErrTruncated, "need 4 bytes")
	add("wrong magic", (&buf{}).i32(0x12345678).i32(4).b, 0, "magic", ErrBadMagic, "0x12345678")
	add("version 1", (&buf{}).i32(int32(Magic)).i32(1).b, 4, "version", ErrUnsupportedVersion, "Flink 1.2")
	add("unknown version", (&buf{}).i32(int32(Magic)).i32(8).b, 4, "version", ErrUnsupportedVersion, "8")
	add("version 0", (&buf{}).i32(int32(Magic)).i32(0).b, 4, "version", ErrUnsupportedVersion, "0")
	add("negative checkpoint id", (&buf{}).i32(int32(Magic)).i32(3).i64(-1).b, 8, "checkpointId", ErrInvalid, "-1")
	add("negative master count", (&buf{}).i32(int32(Magic)).i32(3).i64(1).i32(-3).b, 16, "numMasterStates", ErrNegative, "-3")
	add("huge operator count", header(3).i32(0x7fffffff).b, 20, "numOperators", ErrTooLarge, "2147483647")
	add("negative operator count", header(3).i32(-1).b, 20, "numOperators", ErrNegative, "-1")
	add("trailing byte", header(3).i32(0).u8(0).b, 24, "end", ErrTrailingBytes, "1 bytes")
	add("v4 without properties", header(4).i32(0).b, 24, "checkpoint_properties.magic", ErrTruncated, "")

	w := header(3).i32(1).v3op(1).i32(1).i32(0).i32(0).i32(0).u8(TagKeyGroupsV2).i32(0)
	at := w.at()
	add("negative numKeyGroups", w.i32(-5).b, at, "operator[0].subtask[0].managed_keyed_state[0].numKeyGroups", ErrNegative, "-5")

	w = header(3).i32(1).v3op(1).i32(1).i32(0).i32(0).i32(0).u8(TagKeyGroupsV2).i32(0)
	at = w.at()
	add("huge numKeyGroups", w.i32(1<<30).b, at, "operator[0].subtask[0].managed_keyed_state[0].numKeyGroups", ErrTooLarge, "")

	w = header(3).i32(1).v3op(1).i32(1).i32(0).i32(0).i32(0)
	at = w.at()
	add("unknown keyed tag", w.u8(42).b, at, "operator[0].subtask[0].managed_keyed_state[0].tag", ErrUnknownTag, "42")

	w = header(3).i32(1).v3op(1).i32(1).i32(0).i32(1).u8(TagOperatorStream).i32(1).utf("s")
	at = w.at()
	add("unknown mode", append(w.u8(3).b, make([]byte, 40)...), at, "operator[0].subtask[0].managed_operator_state[0].state[0].mode", ErrUnknownTag, "3")

	w = header(3).i32(1).v3op(1).i32(1).i32(0).i32(1).u8(TagOperatorStream).i32(0)
	at = w.at()
	add("unknown stream tag", w.u8(99).b, at, "operator[0].subtask[0].managed_operator_state[0].delegate.tag", ErrUnknownTag, "99")

	w = header(3).i32(1).v3op(2).i32(1)
	at = w.at()
	add("subtask index beyond parallelism", w.i32(2).b, at, "operator[0].subtask[0].index", ErrInvalid, "outside 0..1")

	w = header(3).i32(1).i64(1).i64(2)
	at = w.at()
	add("parallelism above max", append(w.i32(5).i32(4).b, make([]byte, 40)...), at, "operator[0].parallelism", ErrInvalid, "max parallelism 4")

	w = header(3).i32(1).i64(1).i64(2).i32(1).i32(1)
	at = w.at()
	add("file coordinator state", w.u8(TagFile).i64(1).utf("/p").i32(0).b, at, "operator[0].coordinator_state", ErrInvalid, "ByteStreamStateHandle")

	w = header(3).i32(1).i64(1).i64(2).i32(1).i32(1).u8(TagByteStream).utf("c").i32(0)
	at = w.at()
	add("finished operator with coordinator", w.i32(-1).b, at, "operator[0].numSubtasks", ErrInvalid, "fully finished")

	w = (&buf{}).i32(int32(Magic)).i32(3).i64(1).i32(1).i32(int32(-0x3694e96a))
	at = w.at()
	add("master frame too long", append(w.i32(100).b, make([]byte, 12)...), at, "master_state[0].length", ErrInvalid, "frame length 100")

	w = (&buf{}).i32(int32(Magic)).i32(3).i64(1).i32(1).i32(int32(-0x3694e96a)).i32(12).i32(1).utf("n").i32(0)
	at = w.at()
	add("master frame with slack", w.u8(0).i32(0).b, at, "master_state[0].end", ErrInvalid, "1 trailing bytes")

	// Version 6: an output channel handle in the input list.
	w = header(6).i32(1).utf("").utf("").i64(1).i64(2).i32(1).i32(1).u8(0).i32(1).i32(0).i32(0).i32(0).u8(0).u8(0).i32(1)
	at = w.at()
	add("v6 output handle in input list", append(w.u8(ChannelOutput).b, make([]byte, 40)...), at,
		"operator[0].subtask[0].input_channel_state[0].type", ErrUnknownTag, "channel handle type 2 in the input list")

	// A finished subtask at index 2^31-2 costs 4 bytes but would need 2^31-1 model slots.
	w = header(3).i32(1).i64(1).i64(2).i32(1<<31 - 1).i32(1<<31 - 1).u8(0).i32(1)
	at = w.at()
	add("huge subtask index", w.i32(-(1<<31 - 1)).b, at, "operator[0].subtask[0].index", ErrTooLarge, "subtask index 2147483646")

	// Changelog handles nested deeper than MaxDepth.
	w = header(3).i32(1).v3op(1).i32(1).i32(0).i32(0).i32(0)
	for i := 0; i < MaxDepth; i++ {
		w.u8(TagChangelogBackend).i32(0).i32(1).i64(0).i32(1)
	}
	at = w.at()
	deep := "operator[0].subtask[0].managed_keyed_state[0]" + strings.Repeat(".materialized[0]", MaxDepth) + ".tag"
	add("nesting too deep", w.u8(TagChangelogBackend).b, at, deep, ErrTooDeep, "16 levels")

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Read(tt.data)
			if err == nil {
				t.Fatalf("Read accepted the file: %+v", f)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("error %q does not wrap %q", err, tt.want)
			}
			if fe.Offset != tt.offset || fe.Field != tt.field {
				t.Errorf("error at offset %d field %q, want offset %d field %q (%v)", fe.Offset, fe.Field, tt.offset, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.text) || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q should be one line containing %q", err, tt.text)
			}
		})
	}
}

// TestFormatErrorMessage pins the message format.
func TestFormatErrorMessage(t *testing.T) {
	w := header(3).i32(1).v3op(1).i32(1).i32(0).i32(0).i32(0).u8(TagKeyGroupsV2).i32(0).i32(-5)
	_, err := Read(w.b)
	want := "metadata: offset 0x46 (70): operator[0].subtask[0].managed_keyed_state[0].numKeyGroups: negative count: -5"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestReadFromLimit checks the size cap of ReadFrom.
func TestReadFromLimit(t *testing.T) {
	b := smallBytes(t)
	if _, err := ReadFrom(strings.NewReader(string(b)), int64(len(b))); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := ReadFrom(strings.NewReader(string(b)), int64(len(b)-1)); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("over the limit: %v, want ErrFileTooLarge", err)
	}
}

// TestWriteErrors checks that Write refuses what the version cannot express.
func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		f    *File
	}{
		{"nil", nil},
		{"version 1", &File{Version: 1}},
		{"v3 with properties", &File{Version: 3, Properties: &Properties{}}},
		{"v2 coordinator", &File{Version: 2, Operators: []Operator{{CoordinatorState: &StreamHandle{Tag: TagByteStream}}}}},
		{"long string", &File{Version: 3, MasterStates: []MasterState{{Name: strings.Repeat("x", 70000)}}}},
		{"bad mode", &File{Version: 3, Operators: []Operator{{Parallelism: 1, MaxParallelism: 1, Subtasks: []Subtask{{
			ManagedOperatorState: &OperatorHandle{Tag: TagOperatorStream, States: []StateEntry{{Mode: 3}}, Delegate: &StreamHandle{Tag: TagEmptySegmentFile}}}}}}}},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.f)
		var we *WriteError
		if !errors.As(err, &we) || !errors.Is(err, ErrNotWritable) {
			t.Errorf("%s: got %v, want a *WriteError wrapping ErrNotWritable", tt.name, err)
		}
	}
}

// countingZeros is an endless stream of zero bytes that counts what was read of it.
type countingZeros struct{ n int64 }

func (c *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	c.n += int64(len(p))
	return len(p), nil
}

// TestReadFromRefusesOtherFilesEarly: a stream that does not start with the magic number is
// refused after its head, not read up to the (4 GiB) limit; short streams and the magic number
// followed by nothing still give Read's errors.
func TestReadFromRefusesOtherFilesEarly(t *testing.T) {
	z := &countingZeros{}
	if _, err := ReadFrom(z, 0); !errors.Is(err, ErrBadMagic) {
		t.Errorf("endless zeros: %v, want ErrBadMagic", err)
	}
	if z.n > 4096 {
		t.Errorf("endless zeros: read %d bytes before refusing", z.n)
	}
	for _, in := range []string{"", "\xC9", "\xC9\x6B\x16\x96"} {
		_, want := Read([]byte(in))
		_, got := ReadFrom(strings.NewReader(in), 0)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("ReadFrom(%q) = %v, want Read's %v", in, got, want)
		}
	}
}
