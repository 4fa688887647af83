package metadata

import (
	"os"
	"path/filepath"
	"testing"
)

// benchFile is the largest real file (287 KB, version 2), or the synthetic one without it.
func benchFile(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join(optionalRealDir(), "target.test-classes.stateful-scala-with-broadcast-udf-migration-itcase-flink1.7-jobmanager-savepoint.metadata"))
	if err != nil {
		return smallBytes(b)
	}
	return data
}

func BenchmarkRead(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	f, err := Read(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Marshal(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModel(b *testing.B) {
	f, err := Read(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = f.Model()
	}
}
