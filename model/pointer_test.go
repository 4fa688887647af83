package model

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// memFS is an in-memory CheckpointFS over "file" paths: files with their lengths; every parent
// of a file is a directory.
type memFS struct {
	files map[string]int64
	// fail, if set, is returned by every Stat.
	fail error
}

func newMemFS(files map[string]int64) *memFS { return &memFS{files: files} }

func (m *memFS) Stat(path string) (FileInfo, error) {
	if m.fail != nil {
		return FileInfo{}, m.fail
	}
	scheme, rest, ok := strings.Cut(path, ":")
	if !ok || scheme != "file" {
		return FileInfo{}, fmt.Errorf("%w %q", ErrUnsupportedFileSystemScheme, scheme)
	}
	if n, ok := m.files[rest]; ok {
		return FileInfo{Len: n}, nil
	}
	prefix := strings.TrimSuffix(rest, "/") + "/"
	for f := range m.files {
		if strings.HasPrefix(f, prefix) {
			return FileInfo{IsDir: true}, nil
		}
	}
	return FileInfo{}, fs.ErrNotExist
}

// §K.10 testPointerPathResolution: the metadata file, the directory and "dir/" resolve alike.
func TestResolveCheckpointPointer(t *testing.T) {
	fsys := newMemFS(map[string]int64{
		"/ckpt/job/chk-7/_metadata":   23686,
		"/ckpt/job/chk-7/op-state":    10,
		"/ckpt/job/shared/000012.sst": 99,
		"/savepoints/sp-1/other-name": 5,
		"/empty-dir/file":             1,
	})
	want7 := CheckpointLocation{ExternalPointer: "file:/ckpt/job/chk-7",
		Metadata: StreamHandle{Path: "file:/ckpt/job/chk-7/_metadata", Size: 23686}}
	tests := []struct {
		pointer string
		want    CheckpointLocation
	}{
		{"/ckpt/job/chk-7/_metadata", want7},
		{"/ckpt/job/chk-7", want7},
		{"/ckpt/job/chk-7/", want7},
		{"file:/ckpt/job/chk-7", want7},
		{"file:///ckpt/job/chk-7/_metadata", want7},
		{"file:/ckpt//job/./chk-7/", want7},
		{"/ckpt/job/shared/../chk-7", want7},
		{"  /ckpt/job/chk-7  ", want7},
		// Any existing file is taken as the metadata file.
		{"/savepoints/sp-1/other-name", CheckpointLocation{ExternalPointer: "file:/savepoints/sp-1",
			Metadata: StreamHandle{Path: "file:/savepoints/sp-1/other-name", Size: 5}}},
		// Relative paths resolve under the root (the virtual FS's working directory).
		{"ckpt/job/chk-7", want7},
	}
	for _, tt := range tests {
		got, err := ResolveCheckpointPointer(fsys, tt.pointer)
		if err != nil {
			t.Errorf("ResolveCheckpointPointer(%q): %v", tt.pointer, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ResolveCheckpointPointer(%q) (-want +got):\n%s", tt.pointer, diff)
		}
	}
}

// §K.10 testFailingPointerPathResolution, and the other failure paths of §I.
func TestResolveCheckpointPointerFailures(t *testing.T) {
	fsys := newMemFS(map[string]int64{"/ckpt/chk-3/op-state": 10})
	tests := []struct {
		name, pointer string
		fsys          CheckpointFS
		check         func(error) bool
	}{
		{"empty pointer is an IllegalArgumentException", "", fsys,
			func(err error) bool {
				return errors.Is(err, ErrEmptyCheckpointPointer) && !errors.Is(err, ErrCheckpointPointer)
			}},
		{"Flink's 'this-is_not/a#filepath.at.all' fails as an IOException (nothing there)", "this-is_not/a#filepath.at.all", fsys,
			func(err error) bool { return errors.Is(err, ErrCheckpointPointer) && errors.Is(err, fs.ErrNotExist) }},
		{"non-existing file URI", "file:/does/not/exist/_metadata", fsys,
			func(err error) bool {
				var e *CheckpointNotFoundError
				return errors.As(err, &e) && e.Scheme == "file" && e.Dir == "" && errors.Is(err, ErrCheckpointPointer)
			}},
		{"directory without _metadata", "/ckpt/chk-3", fsys,
			func(err error) bool {
				var e *CheckpointNotFoundError
				return errors.As(err, &e) && e.Dir == "file:/ckpt/chk-3" && strings.Contains(err.Error(), "_metadata")
			}},
		{"relative path with a scheme is not a valid file URI", "file:ckpt/chk-3", fsys, isInvalidPointer},
		{"bad scheme characters", "1x:/ckpt", fsys, isInvalidPointer},
		{"empty scheme", ":/ckpt", fsys, isInvalidPointer},
		{"scheme without anything after it", "s3:", fsys, isInvalidPointer},
		{"only blanks", "   ", fsys, isInvalidPointer},
		{"unsupported file system scheme", "hdfs://nn:8020/ckpt/chk-3", fsys,
			func(err error) bool {
				var e *CheckpointFileSystemError
				return errors.As(err, &e) && errors.Is(err, ErrUnsupportedFileSystemScheme) &&
					strings.HasPrefix(err.Error(), "Cannot access file system")
			}},
		{"other file system failure", "/ckpt", &memFS{fail: errors.New("disk on fire")},
			func(err error) bool {
				var e *CheckpointFileSystemError
				return errors.As(err, &e) && errors.Is(err, ErrCheckpointPointer)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ResolveCheckpointPointer(tt.fsys, tt.pointer)
			if err == nil || !tt.check(err) {
				t.Errorf("ResolveCheckpointPointer(%q) err = %v (%T)", tt.pointer, err, err)
			}
		})
	}
}

func isInvalidPointer(err error) bool {
	var e *InvalidCheckpointPointerError
	return errors.As(err, &e) && errors.Is(err, ErrCheckpointPointer) && strings.Contains(err.Error(), "is not a valid file URI")
}

func TestParseFlinkPath(t *testing.T) {
	tests := []struct {
		in   string
		want FlinkPath
	}{
		{"/a/b", FlinkPath{Path: "/a/b"}},
		{"a/b/", FlinkPath{Path: "a/b"}},
		{"/", FlinkPath{Path: "/"}},
		{"file:/a", FlinkPath{Scheme: "file", Path: "/a"}},
		{"file:///a//b/", FlinkPath{Scheme: "file", Path: "/a/b"}},
		{"hdfs://nn:8020/a/./b/../c", FlinkPath{Scheme: "hdfs", Authority: "nn:8020", Path: "/a/c"}},
		{"s3://bucket", FlinkPath{Scheme: "s3", Authority: "bucket", Path: ""}},
		{"C:/x", FlinkPath{Path: "/C:/x"}}, // a Windows drive, not a scheme
		{"a#b?c", FlinkPath{Path: "a#b?c"}},
		{"../x", FlinkPath{Path: "../x"}},
		{`\a\b`, FlinkPath{Path: "/a/b"}},
	}
	for _, tt := range tests {
		got, err := ParseFlinkPath(tt.in)
		if err != nil {
			t.Errorf("ParseFlinkPath(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFlinkPath(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func ExampleResolveCheckpointPointer() {
	fsys := newMemFS(map[string]int64{"/ckpt/job/chk-7/_metadata": 23686})
	for _, p := range []string{"/ckpt/job/chk-7/_metadata", "/ckpt/job/chk-7/", "file:///ckpt/job/chk-8"} {
		loc, err := ResolveCheckpointPointer(fsys, p)
		fmt.Println(loc.ExternalPointer, loc.Metadata.Size, err)
	}
	// Output:
	// file:/ckpt/job/chk-7 23686 <nil>
	// file:/ckpt/job/chk-7 23686 <nil>
	//  0 Cannot find checkpoint or savepoint file/directory 'file:///ckpt/job/chk-8' on file system 'file'.
}

// TestCheckpointDirID reads back exactly the names "chk-" + Long.toString(id) gives for IDs ≥ 1.
func TestCheckpointDirID(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   int64
		ok   bool
	}{
		{"chk-1", 1, true}, {"chk-12", 12, true}, {"chk-9223372036854775807", 9223372036854775807, true},
		{"chk-0", 0, false}, {"chk-007", 0, false}, {"chk--1", 0, false}, {"chk-+1", 0, false}, {"chk-", 0, false},
		{"chk-1a", 0, false}, {"chk-9223372036854775808", 0, false}, {"CHK-1", 0, false}, {"shared", 0, false},
		{"chk-1 ", 0, false}, {"savepoint-7", 0, false},
	} {
		if id, ok := CheckpointDirID(tc.name); id != tc.id || ok != tc.ok {
			t.Errorf("CheckpointDirID(%q) = %d, %v; want %d, %v", tc.name, id, ok, tc.id, tc.ok)
		}
	}
}
