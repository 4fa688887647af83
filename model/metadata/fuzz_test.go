package metadata_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/metadata/metagen"
	"pgregory.net/rapid"
)

// FuzzRead feeds arbitrary bytes to Read: it must never panic, must fail with a one-line
// *FormatError inside the data, or return a File that writes and reads back to the same bytes.
// Seeds: the synthetic small file, a few real files when present, and rapid-generated files.
//
//	go test -fuzz FuzzRead -fuzztime 60s ./model/metadata
func FuzzRead(f *testing.F) {
	f.Add(metadata.SmallBytes(f))
	realDir, _ := realmeta.Find("real")
	for _, name := range []string{
		"kafka-enum2.metadata",
		"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint.metadata",
		"new-stateful-udf-migration-itcase-flink1.15-hashmap-savepoint.metadata",
	} {
		if b, err := os.ReadFile(filepath.Join(realDir, name)); err == nil && realDir != "" {
			f.Add(b)
		}
	}
	// Generated files of every version and handle kind.
	for seed := uint64(0); seed < 16; seed++ {
		f.Add(rapid.Custom(func(t *rapid.T) []byte {
			out, err := metadata.Marshal(metagen.File(t))
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			return out
		}).Example(int(seed)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := metadata.Read(b)
		if err != nil {
			var fe *metadata.FormatError
			if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(b)) || fe.Field == "" {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		out, err := metadata.Marshal(file)
		if err != nil {
			t.Fatalf("Read accepted a file that Marshal refuses: %v", err)
		}
		back, err := metadata.Read(out)
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		out2, err := metadata.Marshal(back)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("write → read → write is not stable (err %v)", err)
		}
		_ = file.Model()
	})
}
