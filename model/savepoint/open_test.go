package savepoint

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// syntheticMetadata is a small version-4 metadata file written by the project's writer: one
// keyed operator ("my-uid") at parallelism 2, max parallelism 8, state on subtask 1 only.
func syntheticMetadata(t *testing.T) []byte {
	t.Helper()
	r, _ := model.ComputeKeyGroupRangeForOperatorIndex(8, 2, 1)
	md := model.CheckpointMetadata{CheckpointID: 3, Operators: []model.OperatorState{{
		OperatorID: model.OperatorIDFromUID("my-uid"), Parallelism: 2, MaxParallelism: 8,
		Subtasks: []*model.OperatorSubtaskState{nil, {
			ManagedKeyedState: []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
				Offsets:  model.KeyGroupRangeOffsets{Range: r, Offsets: []int64{5, 9, 12, 30}},
				Delegate: model.StreamHandle{Path: "kg", Size: 50, InMemory: true}}},
		}},
	}}}
	f, err := metadata.FromModel(md)
	if err != nil {
		t.Fatal(err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpen(t *testing.T) {
	b := syntheticMetadata(t)
	v1 := append([]byte{}, b[:8]...)
	v1[7] = 1
	fsys := fstest.MapFS{
		"ckpt/chk-3/_metadata":  {Data: b},
		"ckpt/sp/savepoint.bin": {Data: b},
		"ckpt/empty":            {Mode: fs.ModeDir},
		"ckpt/weird/_metadata":  {Mode: fs.ModeDir},
		"ckpt/garbage":          {Data: []byte("not a savepoint")},
		"ckpt/v1/_metadata":     {Data: v1},
	}
	for _, tc := range []struct {
		pointer, label, wantPath, wantPointer string
	}{
		{"/ckpt/chk-3", "chk-3", "chk-3/_metadata", "file:/ckpt/chk-3"},
		{"file:/ckpt/chk-3/", "", "file:/ckpt/chk-3/_metadata", "file:/ckpt/chk-3"},
		{"/ckpt/chk-3/_metadata", "x/_metadata", "x/_metadata", "file:/ckpt/chk-3"},
		{"/ckpt/sp/savepoint.bin", "sp.bin", "sp.bin", "file:/ckpt/sp"},
	} {
		sp, err := Open(fsys, tc.pointer, tc.label)
		if err != nil {
			t.Errorf("Open(%q): %v", tc.pointer, err)
			continue
		}
		if sp.Path != tc.wantPath || sp.Pointer != tc.wantPointer || sp.FormatVersion != 4 || sp.File == nil || sp.File.CheckpointID != 3 {
			t.Errorf("Open(%q): path %q pointer %q version %d; want %q %q 4", tc.pointer, sp.Path, sp.Pointer, sp.FormatVersion, tc.wantPath, tc.wantPointer)
		}
	}
	for _, tc := range []struct {
		pointer, label, want string
		is                   error
	}{
		{"/ckpt/missing", "missing", "missing: no such file or directory", fs.ErrNotExist},
		{"/ckpt/empty", "empty", "cannot find meta data file '_metadata' in directory 'empty'; please try to load the checkpoint/savepoint directly from the metadata file instead of the directory", model.ErrCheckpointPointer},
		{"/ckpt/weird", "weird", "weird/_metadata is a directory, not a metadata file", nil},
		{"/ckpt/garbage", "g", "g: metadata: offset", metadata.ErrBadMagic},
		{"hdfs://nn/ckpt", "", "Cannot access file system", model.ErrUnsupportedFileSystemScheme},
		{"", "", "empty checkpoint pointer", model.ErrEmptyCheckpointPointer},
	} {
		sp, err := Open(fsys, tc.pointer, tc.label)
		if err == nil || sp != nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("Open(%q) = %v, %v; want an error with %q matching %v", tc.pointer, sp, err, tc.want, tc.is)
		}
	}
	// A format version no modelled Flink reads: a Savepoint without File and an error; the
	// plan is a refusal by the check metadata-version.
	sp, err := Open(fsys, "/ckpt/v1", "v1")
	if !errors.Is(err, metadata.ErrUnsupportedVersion) || sp == nil || sp.File != nil || sp.FormatVersion != 1 || sp.Unreadable == nil {
		t.Fatalf("version 1: %+v, %v", sp, err)
	}
	pl, err := PlanRestore(sp, Options{Parallelism: 2})
	if err != nil || pl.Restorable || pl.Refusal == nil || pl.Refusal.Check != model.CheckMetadataVersion || *pl.Check != model.CheckMetadataVersion ||
		pl.FormatVersion != 1 || *pl.Error != sp.Unreadable.Error() || len(pl.Operators) != 0 || *pl.NewParallelism != 2 {
		t.Errorf("version 1 plan: %+v, %v", pl, err)
	}
}

func TestCheckpointFS(t *testing.T) {
	c := CheckpointFS(fstest.MapFS{"a/b": {Data: []byte("xyz")}})
	if fi, err := c.Stat("file:/a/b"); err != nil || fi.IsDir || fi.Len != 3 {
		t.Errorf("file: %+v, %v", fi, err)
	}
	if fi, err := c.Stat("file:/a"); err != nil || !fi.IsDir {
		t.Errorf("directory: %+v, %v", fi, err)
	}
	if fi, err := c.Stat("file:/"); err != nil || !fi.IsDir {
		t.Errorf("root: %+v, %v", fi, err)
	}
	if _, err := c.Stat("file:/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := c.Stat("s3://bucket/a"); !errors.Is(err, model.ErrUnsupportedFileSystemScheme) {
		t.Errorf("s3: %v", err)
	}
}

// PlanRestore plans a synthetic savepoint: the key groups of the one old handle are cut for the
// new subtasks and named by old subtask, with the bytes from each offset to the next.
func TestPlanRestoreSynthetic(t *testing.T) {
	sp, err := Open(fstest.MapFS{"chk-3/_metadata": {Data: syntheticMetadata(t)}}, "/chk-3", "chk-3")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := PlanRestore(sp, Options{Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !pl.Restorable || pl.Refusal != nil || len(pl.Operators) != 1 {
		t.Fatalf("plan: %+v", pl)
	}
	op := pl.Operators[0]
	// Old subtask 1 held key groups 4..7 at offsets 5, 9, 12, 30 of a 50-byte stream: 4, 3, 18
	// and 20 bytes.
	want := [][]KeyedPart{nil, nil,
		{{OldSubtask: 1, Start: 4, End: 5, Handle: "KeyGroupsStateHandle", Bytes: 7}},
		{{OldSubtask: 1, Start: 6, End: 7, Handle: "KeyGroupsStateHandle", Bytes: 38}}}
	for i, s := range op.Subtasks {
		if len(s.ManagedKeyedState) != len(want[i]) || (len(want[i]) > 0 && s.ManagedKeyedState[0] != want[i][0]) {
			t.Errorf("subtask %d: %+v, want %+v", i, s.ManagedKeyedState, want[i])
		}
	}
	// State bytes: the 50-byte handle the checkpoint holds; the subtasks receive 45 of them
	// (the 5-byte header is no key group's).
	if op.StateBytes != 50 || op.Parallelism != 4 || op.NewMaxParallelism != 8 || len(op.Notes) != 1 {
		t.Errorf("operator: %+v", op)
	}
	var received int64
	for _, s := range op.Subtasks {
		received += s.ReceivedBytes
	}
	if received != 45 || pl.StateBytes != 50 {
		t.Errorf("received %d bytes, want 45; %d state bytes in the plan, want 50", received, pl.StateBytes)
	}
	for _, bad := range []Options{{}, {Parallelism: -1}, {Parallelism: model.UpperBoundMaxParallelism + 1}} {
		if _, err := PlanRestore(sp, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// decodedFS serves its files as DecodedFile: decoded, when not nil, is what Decoded gives.
type decodedFS struct {
	fstest.MapFS
	decoded *metadata.File
}

type decodedFile struct {
	fs.File
	f *metadata.File
}

func (d decodedFile) Decoded() *metadata.File { return d.f }

func (d decodedFS) Open(name string) (fs.File, error) {
	f, err := d.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, _ := f.Stat(); fi != nil && fi.IsDir() {
		return f, nil
	}
	return decodedFile{f, d.decoded}, nil
}

// TestOpenDecoded: a file that gives its metadata decoded is not read (Open takes the decoded
// file, checkpoint ID 77, over the bytes, ID 3); one that gives nil is read.
func TestOpenDecoded(t *testing.T) {
	b := syntheticMetadata(t)
	cached, err := metadata.Read(withID(t, 77))
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"ckpt/chk-3/_metadata": {Data: b}}
	for _, c := range []struct {
		decoded *metadata.File
		want    int64
	}{{cached, 77}, {nil, 3}} {
		sp, err := Storage{FS: decodedFS{files, c.decoded}, Scheme: "file"}.Open("/ckpt/chk-3", "")
		if err != nil {
			t.Fatal(err)
		}
		if sp.File.CheckpointID != c.want || sp.Pointer != "file:/ckpt/chk-3" || sp.FormatVersion != sp.File.Version {
			t.Errorf("decoded %v: checkpoint %d, pointer %q, format %d; want checkpoint %d", c.decoded != nil, sp.File.CheckpointID, sp.Pointer, sp.FormatVersion, c.want)
		}
	}
}
