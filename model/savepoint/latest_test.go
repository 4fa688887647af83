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

// withID is syntheticMetadata with checkpoint ID id, so a test can see which file was opened.
func withID(t *testing.T, id int64) []byte {
	t.Helper()
	sp, err := Read(strings.NewReader(string(syntheticMetadata(t))), "x")
	if err != nil {
		t.Fatal(err)
	}
	f := sp.File
	f.CheckpointID = id
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenLatest: the newest chk-N is picked by number (chk-12 over chk-9 and chk-2, which a
// string comparison would take), chk-13 and chk-20 without a _metadata file are skipped, and
// names that are not a checkpoint directory's are ignored.
func TestOpenLatest(t *testing.T) {
	fsys := fstest.MapFS{
		"job/chk-2/_metadata":       {Data: withID(t, 2)},
		"job/chk-9/_metadata":       {Data: withID(t, 9)},
		"job/chk-12/_metadata":      {Data: withID(t, 12)},
		"job/chk-13/op-state":       {Data: []byte("in progress")},
		"job/chk-20/_metadata":      {Mode: fs.ModeDir},
		"job/chk-0100/_metadata":    {Data: withID(t, 100)},
		"job/chk-99":                {Data: []byte("a file, not a directory")},
		"job/shared/x":              {Data: []byte("shared state")},
		"job/taskowned/y":           {Data: []byte("task-owned state")},
		"job/savepoint-3/_metadata": {Data: withID(t, 3)},
		"empty/shared/x":            {Data: []byte("shared state")},
		"none/chk-5/x":              {Data: []byte("x")},
		"none/chk-4/x":              {Data: []byte("x")},
		"file":                      {Data: []byte("x")},
	}
	for _, st := range []Storage{{FS: fsys, Scheme: "file"}} {
		sp, err := st.OpenLatest("/job", "ckpts/job")
		if err != nil {
			t.Fatal(err)
		}
		if sp.File.CheckpointID != 12 || sp.Path != "ckpts/job/chk-12/_metadata" || sp.Pointer != "file:/job/chk-12" {
			t.Errorf("OpenLatest: checkpoint %d, path %q, pointer %q; want 12 ckpts/job/chk-12/_metadata file:/job/chk-12", sp.File.CheckpointID, sp.Path, sp.Pointer)
		}
	}
	// The root of the file system is a checkpoint root too.
	sp, err := Storage{FS: fstest.MapFS{"chk-3/_metadata": {Data: withID(t, 3)}, "chk-10/x": {}}, Scheme: "file"}.OpenLatest("/", "")
	if err != nil || sp.File.CheckpointID != 3 || sp.Path != "/chk-3/_metadata" {
		t.Errorf("root: %+v, %v", sp, err)
	}
	for _, tc := range []struct {
		root, want string
		is         error
	}{
		{"/empty", "empty: no chk-N directory with a _metadata file (none at all)", fs.ErrNotExist},
		{"/none", "none: no chk-N directory with a _metadata file (2 have none, newest chk-5)", fs.ErrNotExist},
		{"/job/chk-13", "chk-13: no chk-N directory with a _metadata file (none at all)", fs.ErrNotExist},
		{"/missing", "missing: no such file or directory", fs.ErrNotExist},
		{"/file", "file is a file, not a checkpoint root (the directory holding chk-N directories)", nil},
		{"hdfs://nn/x", "hdfs://nn/x: could not find a file system implementation for scheme", model.ErrUnsupportedFileSystemScheme},
		{"", ": Checkpoint/savepoint path '' is not a valid file URI", model.ErrCheckpointPointer},
	} {
		label := tc.root[strings.LastIndexByte(tc.root, '/')+1:]
		if tc.root == "" || strings.Contains(tc.root, "://") {
			label = tc.root
		}
		sp, err := Storage{FS: fsys, Scheme: "file"}.OpenLatest(tc.root, label)
		if err == nil || sp != nil || !strings.HasPrefix(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("OpenLatest(%q) = %v, %v; want an error %q matching %v", tc.root, sp, err, tc.want, tc.is)
		}
	}
	// One chk-N without a _metadata file is named.
	_, err = Storage{FS: fstest.MapFS{"r/chk-13/x": {}}, Scheme: "file"}.OpenLatest("/r", "r")
	var nc *NoCompletedCheckpointError
	if !errors.As(err, &nc) || err.Error() != "r: no chk-N directory with a _metadata file (chk-13 has none)" {
		t.Errorf("one without: %v", err)
	}
}

// TestStorage: a storage of another scheme and authority (an object store's bucket) serves
// exactly its own paths, and names the checkpoint in Flink's messages by them.
func TestStorage(t *testing.T) {
	b := withID(t, 7)
	st := Storage{FS: fstest.MapFS{"ckpt/chk-7/_metadata": {Data: b}, "_metadata": {Data: b}}, Scheme: "s3", Authority: "bucket"}
	sp, err := st.Open("s3://bucket/ckpt/chk-7", "s3://bucket/ckpt/chk-7/")
	if err != nil || sp.Pointer != "s3://bucket/ckpt/chk-7" || sp.Path != "s3://bucket/ckpt/chk-7/_metadata" || sp.File.CheckpointID != 7 {
		t.Fatalf("Open: %+v, %v", sp, err)
	}
	sp, err = st.Open("s3://bucket", "s3://bucket")
	if err != nil || sp.Pointer != "s3://bucket/" || sp.Path != "s3://bucket/_metadata" {
		t.Errorf("the bucket's root: %+v, %v", sp, err)
	}
	sp, err = st.OpenLatest("s3://bucket/ckpt/", "s3://bucket/ckpt/")
	if err != nil || sp.Pointer != "s3://bucket/ckpt/chk-7" || sp.Path != "s3://bucket/ckpt/chk-7/_metadata" {
		t.Errorf("OpenLatest: %+v, %v", sp, err)
	}
	for _, p := range []string{"s3://bucket2/ckpt/chk-7", "s3://other/ckpt/chk-7", "gs://bucket/ckpt/chk-7", "/ckpt/chk-7", "file:/ckpt/chk-7"} {
		if _, err := st.Open(p, ""); !errors.Is(err, model.ErrUnsupportedFileSystemScheme) {
			t.Errorf("Open(%q) on s3://bucket: %v; want ErrUnsupportedFileSystemScheme", p, err)
		}
	}
	if _, err := st.Open("s3://bucket/ckpt/chk-8", "s3://bucket/ckpt/chk-8"); err == nil || err.Error() != "s3://bucket/ckpt/chk-8: no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	// A refusal names the checkpoint by its storage's pointer, as Flink does.
	job := []Vertex{{JobVertex: model.JobVertex{Name: "other", Operators: []model.JobOperator{{ID: model.OperatorIDFromUID("other")}}, Parallelism: 2, MaxParallelism: 128}, Labels: []string{""}}}
	pl, err := PlanRestore(sp, Options{Parallelism: 2, Job: job})
	if err != nil || pl.Restorable || pl.Error == nil || !strings.Contains(*pl.Error, "s3://bucket/ckpt/chk-7") {
		t.Errorf("refusal: %+v, %v", pl, err)
	}
}
