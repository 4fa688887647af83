package metadata

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// realDir is where the real Flink _metadata files live: beside the module root.
const realDir = "../../../shared/flink-metadata/real"

// realFiles returns the real metadata files (name → bytes), skipping the test when the folder
// is absent.
func realFiles(t testing.TB) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(realDir)
	if err != nil {
		t.Skipf("real Flink metadata files not found at %s (%v); skipping", realDir, err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(realDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	if len(files) == 0 {
		t.Skipf("no files in %s; skipping", realDir)
	}
	return files
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestReadRealFiles(t *testing.T) {
	files := realFiles(t)
	perVersion := map[int32]int{}
	for _, name := range sortedNames(files) {
		b := files[name]
		version := int32(binary.BigEndian.Uint32(b[4:]))
		f, err := Read(b)
		if version == 1 {
			if err == nil {
				t.Errorf("%s: version 1 was read, want refusal", name)
			}
			perVersion[1]++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		perVersion[f.Version]++
		out, err := Marshal(f)
		if err != nil {
			t.Errorf("%s: re-encode: %v", name, err)
			continue
		}
		if !bytes.Equal(out, b) {
			i := 0
			for i < len(out) && i < len(b) && out[i] == b[i] {
				i++
			}
			t.Errorf("%s: re-encoding differs from offset %#x (len %d, want %d)", name, i, len(out), len(b))
		}
	}
	t.Logf("files per version: %v", perVersion)
}
