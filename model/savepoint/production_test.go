package savepoint_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// This file builds the production-size metadata of issue #17 (item 10) for the benchmarks in
// production_bench_test.go: many keyed operators at a high parallelism, each subtask holding
// one RocksDB incremental handle (IncrementalRemoteKeyedStateHandle) of many shared SST files.
// The shape is what a Flink 1.16–1.20 job checkpointing to S3 writes: format version 4,
// tag-11 handles whose shared files are FileStateHandles under <checkpoints>/<job>/shared/
// and whose private files and meta data are under <checkpoints>/<job>/chk-<id>/.

// productionShape is the size of a generated file.
type productionShape struct {
	Operators, Subtasks, MaxParallelism int
	// Shared and Private are the files of each subtask's incremental handle.
	Shared, Private int
}

// productionSizes is the shape of issue #17 with the given subtask count: 50 operators of
// max parallelism 4096 (enough for P = 2,000; Flink's default for 2,000 subtasks), 200
// shared and 3 private files per handle (MANIFEST, OPTIONS, CURRENT, as RocksDB has).
func productionSizes(subtasks int) productionShape {
	return productionShape{Operators: 50, Subtasks: subtasks, MaxParallelism: 4096, Shared: 200, Private: 3}
}

// productionFile builds the metadata file of shape s, deterministically (one PCG stream).
// Every string is distinct where Flink's are: UUID file names, backend and state-handle IDs;
// the local SST names (000042.sst) repeat across subtasks, as each RocksDB instance numbers
// its own files.
func productionFile(s productionShape) *metadata.File {
	rng := rand.New(rand.NewPCG(17, 10))
	uuid := func() string {
		var b [16]byte
		for i := 0; i < 16; i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
		h := hex.EncodeToString(b[:])
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	}
	const checkpointID = 4711
	job := fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()) // a JobID
	base := "s3://flink-checkpoints/" + job
	shared, chk := base+"/shared/", fmt.Sprintf("%s/chk-%d/", base, checkpointID)
	privateNames := []string{"MANIFEST-000004", "OPTIONS-000011", "CURRENT"}

	f := &metadata.File{Version: 4, CheckpointID: checkpointID, Properties: metadata.PropertiesFromModel(nil),
		Operators: make([]metadata.Operator, 0, s.Operators)}
	for o := 0; o < s.Operators; o++ {
		var id model.OperatorID
		for i := range id {
			id[i] = byte(rng.Uint32())
		}
		op := metadata.Operator{ID: id, Parallelism: int32(s.Subtasks), MaxParallelism: int32(s.MaxParallelism),
			Subtasks: make([]metadata.Subtask, 0, s.Subtasks)}
		for st := 0; st < s.Subtasks; st++ {
			r, err := model.ComputeKeyGroupRangeForOperatorIndex(s.MaxParallelism, s.Subtasks, st)
			if err != nil {
				panic(err)
			}
			h := &metadata.IncrementalHandle{Tag: metadata.TagIncremental, CheckpointID: checkpointID, BackendID: uuid(),
				StartKeyGroup: int32(r.Start), NumKeyGroups: int32(r.NumberOfKeyGroups()),
				Meta:   &metadata.StreamHandle{Tag: metadata.TagFile, Path: chk + uuid(), Size: 1500 + rng.Int64N(1000)},
				Shared: make([]metadata.PathHandle, s.Shared), Private: make([]metadata.PathHandle, s.Private),
				StateHandleID: uuid()}
			sst := 10 + rng.IntN(1000)
			for i := range h.Shared {
				sst += 1 + rng.IntN(4)
				size := 1<<20 + rng.Int64N(63<<20)
				h.Shared[i] = metadata.PathHandle{LocalPath: fmt.Sprintf("%06d.sst", sst),
					Handle: &metadata.StreamHandle{Tag: metadata.TagFile, Path: shared + uuid(), Size: size}}
				if i >= s.Shared-3 {
					h.CheckpointedSize += size // the files new since the last checkpoint
				}
			}
			for i := range h.Private {
				h.Private[i] = metadata.PathHandle{LocalPath: privateNames[i%len(privateNames)],
					Handle: &metadata.StreamHandle{Tag: metadata.TagFile, Path: chk + uuid(), Size: 16 + rng.Int64N(8000)}}
				h.CheckpointedSize += h.Private[i].Handle.Size
			}
			op.Subtasks = append(op.Subtasks, metadata.Subtask{Index: int32(st), ManagedKeyedState: h})
		}
		f.Operators = append(f.Operators, op)
	}
	return f
}

// TestProductionFileRoundTrip checks, at a small size, that the generated file is what the
// benchmarks say it is: the project's writer encodes it, the reader reads back the same File,
// the writer re-encodes those bytes unchanged, and the restore plans at twice the parallelism.
func TestProductionFileRoundTrip(t *testing.T) {
	s := productionShape{Operators: 3, Subtasks: 7, MaxParallelism: 4096, Shared: 5, Private: 3}
	f := productionFile(s)
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := metadata.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("the file read back differs from the one written")
	}
	again, err := metadata.Marshal(got)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("re-encoding the file read back: %v, same bytes %v", err, bytes.Equal(again, b))
	}
	if n := len(got.Operators); n != s.Operators {
		t.Fatalf("%d operators, want %d", n, s.Operators)
	}
	for _, op := range got.Operators {
		if len(op.Subtasks) != s.Subtasks {
			t.Fatalf("operator %v: %d subtasks, want %d", op.ID, len(op.Subtasks), s.Subtasks)
		}
		for _, st := range op.Subtasks {
			h, ok := st.ManagedKeyedState.(*metadata.IncrementalHandle)
			if !ok || len(h.Shared) != s.Shared || len(h.Private) != s.Private {
				t.Fatalf("operator %v subtask %d: %T, want an incremental handle with %d shared and %d private files", op.ID, st.Index, st.ManagedKeyedState, s.Shared, s.Private)
			}
			want, _ := model.ComputeKeyGroupRangeForOperatorIndex(s.MaxParallelism, s.Subtasks, int(st.Index))
			if r := h.KeyGroupRange(); r != want {
				t.Fatalf("operator %v subtask %d: key groups %v, want the subtask's %v", op.ID, st.Index, r, want)
			}
		}
	}
	pl := planProduction(t, b, 2*s.Subtasks)
	if !pl.Restorable || len(pl.Operators) != s.Operators {
		t.Fatalf("plan: restorable %v, %d operators", pl.Restorable, len(pl.Operators))
	}
	for _, o := range pl.Operators {
		if len(o.Subtasks) != 2*s.Subtasks {
			t.Fatalf("operator %s: %d new subtasks, want %d", o.OperatorID, len(o.Subtasks), 2*s.Subtasks)
		}
		for _, st := range o.Subtasks {
			if len(st.ManagedKeyedState) == 0 {
				t.Fatalf("operator %s subtask %d receives no keyed state", o.OperatorID, st.Index)
			}
		}
	}
}
