package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := WriteFile(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("second")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); got != "second" {
		t.Errorf("content %q, want second", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != Mode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), Mode)
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"out.txt"}) {
		t.Errorf("directory holds %q, want out.txt only", names)
	}
}

func TestWriteFileRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := WriteFile("rel.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, "rel.txt"); got != "x" {
		t.Errorf("content %q", got)
	}
}

// A write that fails after the temporary file was complete (here: syncing or renaming fails)
// leaves the old file as it was and no temporary file behind.
func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(path, []byte("the user's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	injected := errors.New("injected failure")
	var sawTmp string
	beforeRename = func(tmp string) error {
		sawTmp = tmp
		if got := mustRead(t, tmp); got != "new content" {
			t.Errorf("temporary file holds %q before the rename", got)
		}
		return injected
	}
	t.Cleanup(func() { beforeRename = nil })
	err := WriteFile(path, []byte("new content"))
	if !errors.Is(err, injected) || !strings.HasPrefix(err.Error(), "writing "+path+": ") {
		t.Fatalf("error %v, want the injected one, prefixed with the path", err)
	}
	if !strings.HasPrefix(filepath.Base(sawTmp), ".keep.txt.tmp-") || filepath.Dir(sawTmp) != dir {
		t.Errorf("temporary file %q, want .keep.txt.tmp-* in %s", sawTmp, dir)
	}
	if got := mustRead(t, path); got != "the user's file" {
		t.Errorf("old file now holds %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("old file's mode changed to %v", fi.Mode().Perm())
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"keep.txt"}) {
		t.Errorf("directory holds %q, want keep.txt only", names)
	}
}

// A rename that fails for real (over a non-empty directory) leaves that directory as it was and
// no temporary file behind.
func TestWriteFileRenameFails(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("data")); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"busy"}) {
		t.Errorf("directory holds %q, want busy only", names)
	}
	if names := listDir(t, target); !slices.Equal(names, []string{"x"}) {
		t.Errorf("busy/ holds %q, want x only", names)
	}
}

func TestWriteFileBadPaths(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "missing", "a.txt"), nil); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if err := WriteFile(dir+string(filepath.Separator), nil); err == nil || !strings.Contains(err.Error(), "not a file name") {
		t.Errorf("directory path: %v", err)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q, want nothing", names)
	}
}

// TestWriteFileErrorsNameThePath: an error names the path asked for and why, never the
// temporary file (issue 28: "rename ./.d.png.tmp-561906266 d.png: file exists").
func TestWriteFileErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("d.png", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("plain", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"d.png", "writing d.png: it is a directory"},
		{"nodir/x.png", "writing nodir/x.png: directory nodir does not exist"},
		{"a/b/x.png", "writing a/b/x.png: directory a/b does not exist"},
		{"plain/x.png", "writing plain/x.png: plain is not a directory"},
	} {
		err := WriteFile(c.path, []byte("x"))
		if err == nil || err.Error() != c.want {
			t.Errorf("WriteFile(%q) = %v, want %q", c.path, err, c.want)
		}
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"d.png", "plain"}) {
		t.Errorf("directory holds %q, want d.png and plain only", names)
	}
}
