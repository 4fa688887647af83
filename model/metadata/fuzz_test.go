package metadata

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// FuzzRead feeds arbitrary bytes to Read: it must never panic, must fail with a one-line
// *FormatError inside the data, or return a File that writes and reads back to the same bytes.
// Seeds: the synthetic small file, a few real files when present, and rapid-generated files.
//
//	go test -fuzz FuzzRead -fuzztime 60s ./model/metadata
func FuzzRead(f *testing.F) {
	f.Add(smallBytes(f))
	for _, name := range []string{
		"kafka-enum2.metadata",
		"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint.metadata",
		"new-stateful-udf-migration-itcase-flink1.15-hashmap-savepoint.metadata",
	} {
		if b, err := os.ReadFile(filepath.Join(optionalRealDir(), name)); err == nil {
			f.Add(b)
		}
	}
	// Generated files of every version and handle kind.
	for seed := uint64(0); seed < 16; seed++ {
		f.Add(rapid.Custom(func(t *rapid.T) []byte {
			out, err := Marshal(genFile(t))
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			return out
		}).Example(int(seed)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Read(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(b)) || fe.Field == "" {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		out, err := Marshal(file)
		if err != nil {
			t.Fatalf("Read accepted a file that Marshal refuses: %v", err)
		}
		back, err := Read(out)
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		out2, err := Marshal(back)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("write → read → write is not stable (err %v)", err)
		}
		_ = file.Model()
	})
}
