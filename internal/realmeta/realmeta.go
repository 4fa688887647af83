// Package realmeta finds the real Flink checkpoint/savepoint _metadata files that some tests
// read (FORMAT.md, INDEX.md, real/ and recent/ of shared/flink-metadata). They are not part of
// the repository: a plain clone has no copy, and its tests say so on one line and skip — or
// fail when the environment variable CI is set, so that CI never passes without them.
package realmeta

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that points at a copy of shared/flink-metadata.
const EnvVar = "RESTORESIM_FLINK_METADATA"

// Dir returns the folder holding the real Flink metadata files: $RESTORESIM_FLINK_METADATA
// when it is set, else shared/flink-metadata beside the module root (../shared/flink-metadata
// from the folder holding go.mod). When it is absent the test is skipped with one line naming
// the folder and the variable; it fails instead when the variable is set (it points nowhere)
// or when CI is set.
func Dir(t testing.TB) string {
	t.Helper()
	return Sub(t, "")
}

// Sub is Dir joined with name (e.g. "real"), which must be a folder too.
func Sub(t testing.TB, name string) string {
	t.Helper()
	dir, err := Find(name)
	switch {
	case err == nil:
		return dir
	case os.Getenv(EnvVar) != "" || os.Getenv("CI") != "":
		t.Fatal(err)
	default:
		t.Skip(err)
	}
	return ""
}

// Find is Sub for tests that use the files only when present: it returns the folder, or an
// error saying where it looked.
func Find(name string) (string, error) {
	dir, err := lookup(os.Getenv(EnvVar), os.Getwd)
	if err != nil {
		return "", err
	}
	sub := filepath.Join(dir, name)
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("real Flink metadata files: %s is not a folder (%s points at a copy of shared/flink-metadata)", sub, EnvVar)
	}
	return sub, nil
}

// lookup resolves the folder: env when not empty, else ../shared/flink-metadata from the
// module root found upwards from the working directory.
func lookup(env string, getwd func() (string, error)) (string, error) {
	if env != "" {
		if fi, err := os.Stat(env); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("real Flink metadata files: %s=%s is not a folder", EnvVar, env)
		}
		return env, nil
	}
	wd, err := getwd()
	if err != nil {
		return "", err
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("real Flink metadata files: no go.mod above %s, so no default folder; set %s to a copy of shared/flink-metadata", wd, EnvVar)
		}
		root = parent
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "flink-metadata")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("real Flink metadata files not found at %s: set %s to a copy of shared/flink-metadata (without them these tests skip, or fail when CI is set)", dir, EnvVar)
	}
	return dir, nil
}
