package metadata

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
)

// realDir is where the real Flink _metadata files live (see internal/realmeta): the test is
// skipped, or fails under CI, when they are absent.
func realDir(t testing.TB) string {
	t.Helper()
	return realmeta.Sub(t, "real")
}

// optionalRealDir is realDir for tests that use the real files only when present ("" if not).
func optionalRealDir() string {
	dir, _ := realmeta.Find("real")
	return dir
}

// realFiles returns the real metadata files (name → bytes), skipping the test when the folder
// is absent.
func realFiles(t testing.TB) map[string][]byte {
	t.Helper()
	realDir := realDir(t)
	entries, err := os.ReadDir(realDir)
	if err != nil {
		t.Fatal(err)
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
		t.Fatalf("no files in %s (a copy of shared/flink-metadata/real has them)", realDir)
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

func readReal(t *testing.T, name string) *File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// TestKafkaFacts checks the facts the issue lists on the Kafka connector's files.
func TestKafkaFacts(t *testing.T) {
	tests := []struct {
		file, uid, id string
		parallelism   int32
	}{
		{"kafka-enum1.metadata", "kafka-source-operator-uid", "cb16aa5adb311e8ac72482def19accbe", 3},
		{"kafka-enum2.metadata", "kafka-source-operator-uid", "cb16aa5adb311e8ac72482def19accbe", 3},
		{"kafka-enum3.metadata", "kafka-source-operator-uid", "cb16aa5adb311e8ac72482def19accbe", 3},
		{"kafka-table-state-offsets.metadata", "kafka-source-uid", "a4122ae5704b2a344a4284a3b4b9ee29", 10},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := readReal(t, tt.file)
			if got := model.OperatorIDFromUID(tt.uid).String(); got != tt.id {
				t.Fatalf("OperatorIDFromUID(%q) = %s, want %s", tt.uid, got, tt.id)
			}
			var op *Operator
			for i := range f.Operators {
				if f.Operators[i].ID.String() == tt.id {
					op = &f.Operators[i]
				}
			}
			if op == nil {
				t.Fatalf("no operator %s in %s", tt.id, tt.file)
			}
			if f.Version >= 5 && op.UID != tt.uid {
				t.Errorf("stored uid = %q, want %q", op.UID, tt.uid)
			}
			if op.Parallelism != tt.parallelism || op.MaxParallelism != 128 {
				t.Errorf("parallelism %d, max %d; want %d, 128", op.Parallelism, op.MaxParallelism, tt.parallelism)
			}
			if tt.file == "kafka-table-state-offsets.metadata" {
				return
			}
			if op.CoordinatorState == nil {
				t.Errorf("no coordinator state")
			}
			perSubtask := map[int32]int{}
			for _, s := range op.Subtasks {
				h := s.ManagedOperatorState
				if h == nil || len(h.States) != 1 || h.States[0].Name != "SourceReaderState" || h.States[0].Mode != 0 {
					t.Fatalf("subtask %d: want one SPLIT_DISTRIBUTE SourceReaderState, got %+v", s.Index, h)
				}
				perSubtask[s.Index] = len(h.States[0].Offsets)
			}
			if diff := cmp.Diff(map[int32]int{0: 3, 1: 4, 2: 3}, perSubtask); diff != "" {
				t.Errorf("SourceReaderState entries per subtask (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUIDsMatchIDs checks, on every version-5 file, that an operator's stored uid hashes to its
// operator ID.
func TestUIDsMatchIDs(t *testing.T) {
	files := realFiles(t)
	checked := 0
	for _, name := range sortedNames(files) {
		f, err := Read(files[name])
		if err != nil {
			continue
		}
		for _, op := range f.Operators {
			if op.UID == "" {
				continue
			}
			checked++
			if got := model.OperatorIDFromUID(op.UID); got != op.ID {
				t.Errorf("%s: uid %q hashes to %s, operator ID is %s", name, op.UID, got, op.ID)
			}
		}
	}
	if checked == 0 {
		t.Errorf("no operator with a uid found")
	}
}

// TestModelRealFiles converts every real file and checks that the model agrees with the file:
// subtask slots, key-group ranges inside [0, max parallelism), and the model's total state size
// equals the file's.
func TestModelRealFiles(t *testing.T) {
	files := realFiles(t)
	for _, name := range sortedNames(files) {
		f, err := Read(files[name])
		if err != nil {
			continue
		}
		md := f.Model()
		if len(md.Operators) != len(f.Operators) || md.CheckpointID != f.CheckpointID {
			t.Fatalf("%s: model has %d operators, file %d", name, len(md.Operators), len(f.Operators))
		}
		if (md.Properties == nil) != (f.Version < 4) {
			t.Errorf("%s: properties presence wrong for version %d", name, f.Version)
		}
		for i, op := range md.Operators {
			fo := f.Operators[i]
			if len(op.Subtasks) > op.Parallelism {
				t.Errorf("%s: operator %s has %d subtask slots for parallelism %d", name, op.OperatorID, len(op.Subtasks), op.Parallelism)
			}
			if op.NumberOfSubtaskEntries() != len(fo.Subtasks) {
				t.Errorf("%s: operator %s: %d model entries, %d in file", name, op.OperatorID, op.NumberOfSubtaskEntries(), len(fo.Subtasks))
			}
			for _, st := range op.Subtasks {
				if st == nil {
					continue
				}
				for _, h := range append(append([]model.KeyedStateHandle{}, st.ManagedKeyedState...), st.RawKeyedState...) {
					r := h.KeyGroupRange()
					if !r.IsEmpty() && (r.Start < 0 || r.End >= op.MaxParallelism) {
						t.Errorf("%s: operator %s: keyed range %v outside max parallelism %d", name, op.OperatorID, r, op.MaxParallelism)
					}
				}
			}
		}
	}
}

// TestHandleStateSizes checks the StateSize methods of the file's keyed handles against the
// model's handles (KeyedModel(h).StateSize()) on every keyed handle of the real files,
// including the ones nested in changelog handles.
func TestHandleStateSizes(t *testing.T) {
	files := realFiles(t)
	seen := map[byte]int{}
	var check func(name string, h KeyedHandle)
	check = func(name string, h KeyedHandle) {
		var got int64
		switch h := h.(type) {
		case *IncrementalHandle:
			got = h.StateSize()
		case *KeyGroupsHandle:
			got = h.StateSize()
		case *ChangelogBackendHandle:
			for _, c := range h.Materialized {
				if c != nil {
					check(name, c)
				}
			}
			return
		default:
			return
		}
		seen[h.HandleTag()]++
		if want := KeyedModel(h).StateSize(); got != want {
			t.Errorf("%s: %s StateSize %d, the model's %d", name, h.ClassName(), got, want)
		}
	}
	for _, name := range sortedNames(files) {
		f, err := Read(files[name])
		if err != nil {
			continue
		}
		for _, op := range f.Operators {
			for _, st := range op.Subtasks {
				for _, h := range []KeyedHandle{st.ManagedKeyedState, st.RawKeyedState} {
					if h != nil {
						check(name, h)
					}
				}
			}
		}
	}
	for _, tag := range []byte{TagKeyGroups, TagKeyGroupsV2, TagKeyGroupsSavepoint, TagIncremental} {
		if seen[tag] == 0 {
			t.Errorf("no handle with tag %d in the real files: the check proves nothing for it", tag)
		}
	}
}
