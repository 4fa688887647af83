package realmeta

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatal instead of stopping.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()              {}
func (r *recorder) Skip(args ...any)     { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any)    { r.failed = fmt.Sprint(args...) }
func (r *recorder) Skipf(string, ...any) { panic("Skipf") }

func TestLookup(t *testing.T) {
	tmp := t.TempDir()
	module := filepath.Join(tmp, "repo")
	pkg := filepath.Join(module, "model", "metadata")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(module, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd := func() (string, error) { return pkg, nil }
	shared := filepath.Join(tmp, "shared", "flink-metadata")

	_, err := lookup("", wd)
	if err == nil || !strings.Contains(err.Error(), shared) || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("absent default folder: %v; want it named with %s", err, EnvVar)
	}
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, err := lookup("", wd); dir != shared || err != nil {
		t.Errorf("default folder: %q, %v; want %q", dir, err, shared)
	}
	other := t.TempDir()
	if dir, err := lookup(other, wd); dir != other || err != nil {
		t.Errorf("%s=%s: %q, %v", EnvVar, other, dir, err)
	}
	if _, err := lookup(filepath.Join(other, "none"), wd); err == nil || !strings.Contains(err.Error(), EnvVar+"=") {
		t.Errorf("%s pointing nowhere: %v", EnvVar, err)
	}
	if _, err := lookup("", func() (string, error) { return tmp, nil }); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("outside a module: %v", err)
	}
}

// TestSubSkipsOrFails: absent files skip the test on one line, but fail it under CI or when
// the variable points nowhere.
func TestSubSkipsOrFails(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	for _, c := range []struct {
		env, ci    string
		skip, fail bool
	}{
		{env: missing, fail: true},
		{env: missing, ci: "true", fail: true},
	} {
		t.Setenv(EnvVar, c.env)
		t.Setenv("CI", c.ci)
		r := &recorder{TB: t}
		Sub(r, "real")
		if (r.skipped != "") != c.skip || (r.failed != "") != c.fail {
			t.Errorf("%s=%q CI=%q: skipped %q, failed %q", EnvVar, c.env, c.ci, r.skipped, r.failed)
		}
		if msg := r.skipped + r.failed; strings.Contains(msg, "\n") || !strings.Contains(msg, EnvVar) {
			t.Errorf("message %q: want one line naming %s", msg, EnvVar)
		}
	}
	// The real folder, under an existing one: Sub of a missing subfolder skips, or fails under CI.
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	if got := Sub(r, ""); got != dir || r.skipped != "" || r.failed != "" {
		t.Errorf("Sub(%q) = %q (skipped %q, failed %q)", dir, got, r.skipped, r.failed)
	}
	Sub(r, "real")
	if r.failed == "" || !strings.Contains(r.failed, filepath.Join(dir, "real")) {
		t.Errorf("missing subfolder with the variable set: failed %q", r.failed)
	}
}
