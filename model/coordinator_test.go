package model

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// memStorage is an in-memory CheckpointStorage: memFS plus the metadata of each checkpoint
// directory (keyed by external pointer).
type memStorage struct {
	*memFS
	metadata map[string]CheckpointMetadata
}

func (m *memStorage) ReadMetadata(loc CheckpointLocation) (CheckpointMetadata, error) {
	md, ok := m.metadata[loc.ExternalPointer]
	if !ok {
		return CheckpointMetadata{}, fs.ErrNotExist
	}
	return md, nil
}

// storageWith holds one snapshot per directory ("/savepoints/sp-<id>").
func storageWith(mds ...CheckpointMetadata) *memStorage {
	s := &memStorage{memFS: newMemFS(map[string]int64{}), metadata: map[string]CheckpointMetadata{}}
	for _, md := range mds {
		dir := fmt.Sprint("/savepoints/sp-", md.CheckpointID)
		s.files[dir+"/_metadata"] = 1000
		s.metadata["file:"+dir] = md
	}
	return s
}

// keyedVertex is a one-operator vertex and the matching checkpointed operator state: parallelism
// p, max parallelism m, one key-groups handle per subtask (plus files, if given, as one
// incremental handle's shared files on subtask 0).
func keyedVertex(name string, p, m int, files ...StreamHandle) (JobVertex, OperatorState) {
	id := OperatorIDFromUID(name)
	v := JobVertex{Name: name, Operators: []JobOperator{{ID: id}}, Parallelism: p, MaxParallelism: m, MaxParallelismConfigured: true}
	os := OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: m}
	for i := range p {
		r, err := ComputeKeyGroupRangeForOperatorIndex(m, p, i)
		if err != nil {
			panic(err)
		}
		st := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle(fmt.Sprint(name, "/", i), r.Start, r.End)}}
		if i == 0 && len(files) > 0 {
			inc := &IncrementalKeyedStateHandle{BackendID: name, Range: r, CheckpointID: 1, StateHandleID: name + "-inc"}
			for _, f := range files {
				inc.Shared = append(inc.Shared, SharedFile{LocalPath: f.Path, Handle: f})
			}
			st.RawKeyedState = []KeyedStateHandle{inc}
		}
		os.Subtasks = append(os.Subtasks, st)
	}
	return v, os
}

func mustCoordinator(t *testing.T, v FlinkVersion, retained int) *Coordinator {
	t.Helper()
	c, err := NewCoordinator(v, retained)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckpointIDCounter(t *testing.T) {
	var c CheckpointIDCounter
	if got := []int64{c.Get(), c.GetAndIncrement(), c.GetAndIncrement(), c.Get()}; !cmp.Equal(got, []int64{1, 1, 2, 3}) {
		t.Errorf("fresh counter: Get, GetAndIncrement ×2, Get = %v, want [1 1 2 3]", got)
	}
	c.SetCount(42)
	if got := []int64{c.Get(), c.GetAndIncrement(), c.Get()}; !cmp.Equal(got, []int64{42, 42, 43}) {
		t.Errorf("after SetCount(42): %v, want [42 42 43]", got)
	}
}

// §H.1: after restoring savepoint s the next checkpoint gets id s+1, in both versions.
func TestRestoreSavepointResetsCounterAndRestores(t *testing.T) {
	for _, ver := range []FlinkVersion{Flink118, Flink1101} {
		t.Run(ver.String(), func(t *testing.T) {
			v, os := keyedVertex("map", 2, 128)
			st := storageWith(CheckpointMetadata{CheckpointID: 41, Operators: []OperatorState{os}})
			c := mustCoordinator(t, ver, 1)
			c.Counter.SetCount(7)
			res, err := c.RestoreSavepoint(st, SavepointRestoreSettings{Pointer: "/savepoints/sp-41/_metadata"}, []JobVertex{v})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Restored() || res.Checkpoint.CheckpointID != 41 || res.Location.ExternalPointer != "file:/savepoints/sp-41" {
				t.Fatalf("restored %+v from %+v", res.Checkpoint, res.Location)
			}
			if got := c.Counter.GetAndIncrement(); got != 42 {
				t.Errorf("next checkpoint id = %d, want 42", got)
			}
			for i, tr := range res.Assignment.Vertices[0].Subtasks {
				if tr == nil || tr.CheckpointID != 41 || !tr.HasState() {
					t.Errorf("subtask %d restore = %+v, want checkpoint 41's state", i, tr)
				}
			}
			wantFlags := RestoreFlags{ErrorIfNoCheckpoint: true}
			if ver == Flink118 {
				wantFlags = RestoreFlags{ErrorIfNoCheckpoint: true, Coordinators: RestoreIfCheckpointPresent, CheckFinishedState: true}
			}
			if diff := cmp.Diff(wantFlags, res.Flags); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

// §H.1 step 2 and 4: the restore mode decides the snapshot's properties and whether its shared
// state is registered; 1.10.1 always uses savepoint properties and registers on restore.
func TestRestoreSavepointModes(t *testing.T) {
	file := StreamHandle{Path: "file:/ckpt/shared/1.sst", Size: 5}
	for _, tt := range []struct {
		ver            FlinkVersion
		mode           RestoreMode
		wantProps      CheckpointProperties
		wantRegistered bool
		wantHighest    int64
	}{
		{Flink118, NoClaim, CheckpointProperties{Savepoint: true, Unclaimed: true, Sharing: NoSharing}, false, -1},
		{Flink118, Claim, CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward}, true, -1},
		{Flink118, Legacy, CheckpointProperties{Savepoint: true, Sharing: NoSharing}, true, 9},
		{Flink1101, Claim, savepointProperties1101, true, 0},
	} {
		t.Run(tt.ver.String()+"/"+tt.mode.String(), func(t *testing.T) {
			v, os := keyedVertex("map", 1, 128, file)
			st := storageWith(CheckpointMetadata{CheckpointID: 9, Operators: []OperatorState{os}})
			c := mustCoordinator(t, tt.ver, 1)
			res, err := c.RestoreSavepoint(st, SavepointRestoreSettings{Pointer: "/savepoints/sp-9", Mode: tt.mode}, []JobVertex{v})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantProps, res.Checkpoint.Properties); diff != "" {
				t.Errorf("properties (-want +got):\n%s", diff)
			}
			var registered bool
			if tt.ver == Flink118 {
				_, registered = c.Store.Registry().Entry(SharedStateKey(file.Path))
				if got := c.Store.Registry().HighestNotClaimedCheckpointID(); got != tt.wantHighest {
					t.Errorf("HighestNotClaimedCheckpointID = %d, want %d", got, tt.wantHighest)
				}
			} else {
				registered = c.Store.RefCountRegistry().Len() == 1
			}
			if registered != tt.wantRegistered {
				t.Errorf("shared file registered = %v, want %v", registered, tt.wantRegistered)
			}
		})
	}
}

// §H.4 consequence: after restoring savepoint s (NO_CLAIM) and completing s+1, a region failover
// restores s+1; the savepoint is gone from the store but not deleted.
func TestRestoreSavepointThenCheckpointThenRegionFailover(t *testing.T) {
	v, os := keyedVertex("map", 2, 128)
	c := mustCoordinator(t, Flink118, 1)
	res, err := c.RestoreSavepoint(storageWith(CheckpointMetadata{CheckpointID: 5, Operators: []OperatorState{os}}),
		SavepointRestoreSettings{Pointer: "/savepoints/sp-5"}, []JobVertex{v})
	if err != nil || !res.Restored() {
		t.Fatalf("restore: %v", err)
	}
	id := c.Counter.GetAndIncrement()
	u, err := c.Store.CompleteCheckpoint(&CompletedCheckpoint{CheckpointID: id, Operators: []OperatorState{os}, Properties: c.CheckpointProperties})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(StoreUpdate{Subsumed: []int64{5}}, u); diff != "" {
		t.Errorf("completing checkpoint %d (-want +got):\n%s", id, diff)
	}
	res, err = c.RestoreLatestCheckpointedStateToSubtasks([]JobVertex{v})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Restored() || res.Checkpoint.CheckpointID != 6 {
		t.Errorf("region failover restored %+v, want checkpoint 6", res.Checkpoint)
	}
}

// The §H.2 table: flags of each entry point, and no error without a checkpoint.
func TestRestoreLatestEntryPointFlags(t *testing.T) {
	v, _ := keyedVertex("map", 1, 128)
	vs := []JobVertex{v}
	for _, tt := range []struct {
		name string
		ver  FlinkVersion
		call func(c *Coordinator) (*RestoreResult, error)
		want RestoreFlags
	}{
		{"1.18 global failover", Flink118, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreLatestCheckpointedStateToAll(vs, true) },
			RestoreFlags{AllowNonRestoredState: true, Coordinators: RestoreOrReset}},
		{"1.18 region failover", Flink118, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreLatestCheckpointedStateToSubtasks(vs) },
			RestoreFlags{AllowNonRestoredState: true, Coordinators: SkipCoordinators}},
		{"1.18 JobManager restart", Flink118, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreInitialCheckpointIfPresent(vs) },
			RestoreFlags{Coordinators: RestoreIfCheckpointPresent, CheckFinishedState: true}},
		{"1.10.1 global failover", Flink1101, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreLatestCheckpointedStateToAll(vs, true) },
			RestoreFlags{AllowNonRestoredState: true}},
		{"1.10.1 region failover", Flink1101, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreLatestCheckpointedStateToSubtasks(vs) },
			RestoreFlags{AllowNonRestoredState: true}},
		{"1.10.1 JobManager restart", Flink1101, func(c *Coordinator) (*RestoreResult, error) { return c.RestoreInitialCheckpointIfPresent(vs) },
			RestoreFlags{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.call(mustCoordinator(t, tt.ver, 1))
			if err != nil {
				t.Fatalf("empty store: %v, want no error", err)
			}
			if res.Restored() || res.Assignment != nil {
				t.Errorf("empty store restored %+v", res.Checkpoint)
			}
			if diff := cmp.Diff(tt.want, res.Flags); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
	c := mustCoordinator(t, Flink1101, 1)
	if _, err := c.RestoreLatestCheckpointedState(vs, true, false); !errors.Is(err, ErrNoCompletedCheckpoint) {
		t.Errorf("1.10.1 errorIfNoCheckpoint on an empty store: err = %v", err)
	}
	if _, err := mustCoordinator(t, Flink118, 1).RestoreLatestCheckpointedState(vs, false, true); !errors.Is(err, ErrWrongFlinkVersion) {
		t.Errorf("1.10.1 entry point on 1.18: err = %v", err)
	}
}

// §K.7 testRestoreLatestCheckpointWhenPreferCheckpoint / …WhenPreferSavepoint (1.10.1): a
// checkpoint with key group [0,0], then a savepoint with [1,1], two retained.
func TestRestoreLatestCheckpointPreferCheckpoint(t *testing.T) {
	statefulID, statelessID := OperatorIDFromUID("stateful"), OperatorIDFromUID("stateless")
	vertices := []JobVertex{
		{Name: "stateful", Operators: []JobOperator{{ID: statefulID}}, Parallelism: 1, MaxParallelism: 128},
		{Name: "stateless", Operators: []JobOperator{{ID: statelessID}}, Parallelism: 1, MaxParallelism: 128},
	}
	snapshot := func(id int64, props CheckpointProperties, h KeyedStateHandle) *CompletedCheckpoint {
		return &CompletedCheckpoint{CheckpointID: id, Properties: props, Operators: []OperatorState{{
			OperatorID: statefulID, Parallelism: 1, MaxParallelism: 128,
			Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: []KeyedStateHandle{h}}},
		}}}
	}
	checkpointState, savepointState := kgHandle("chk-1/state", 0, 0), kgHandle("sp-2/state", 1, 1)
	for _, tt := range []struct {
		prefer bool
		want   KeyedStateHandle
	}{
		{true, checkpointState},
		{false, savepointState},
	} {
		t.Run(fmt.Sprint("prefer checkpoint ", tt.prefer), func(t *testing.T) {
			c := mustCoordinator(t, Flink1101, 2)
			c.PreferCheckpointForRecovery = tt.prefer
			for _, cp := range []*CompletedCheckpoint{snapshot(1, checkpointProps, checkpointState), snapshot(2, savepointProperties1101, savepointState)} {
				if _, err := c.Store.CompleteCheckpoint(cp); err != nil {
					t.Fatal(err)
				}
			}
			res, err := c.RestoreLatestCheckpointedState(vertices, true, false)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Assignment.Vertices[0].Subtasks[0]
			if got == nil || len(got.Operators) != 1 {
				t.Fatalf("stateful subtask restore = %+v", got)
			}
			if diff := cmp.Diff([]KeyedStateHandle{tt.want}, got.Operators[0].State.ManagedKeyedState); diff != "" {
				t.Errorf("restored keyed state (-want +got):\n%s", diff)
			}
			if s := res.Assignment.Vertices[1].Subtasks[0]; s != nil {
				t.Errorf("stateless vertex received a restore object: %+v", s)
			}
		})
	}
}

// §K.7 testRestoreLatestCheckpointedState, registration part: the shared state of a checkpoint is
// registered when it completes and again on restore — 1.10.1 into the fresh registry each
// restore builds, 1.18 into the registry a new JobManager builds, with the checkpoint's id.
func TestRestoreRegistersSharedStateAgain(t *testing.T) {
	files := []StreamHandle{{Path: "file:/ckpt/shared/1.sst", Size: 1}, {Path: "file:/ckpt/shared/2.sst", Size: 2}}

	t.Run("1.10.1", func(t *testing.T) {
		v, os := keyedVertex("map", 3, 42, files...)
		c := mustCoordinator(t, Flink1101, 1)
		if _, err := c.Store.CompleteCheckpoint(&CompletedCheckpoint{CheckpointID: 1, Properties: checkpointProps, Operators: []OperatorState{os}}); err != nil {
			t.Fatal(err)
		}
		first := c.Store.RefCountRegistry()
		if first.Len() != 2 {
			t.Fatalf("registered at completion: %d keys, want 2", first.Len())
		}
		res, err := c.RestoreLatestCheckpointedState([]JobVertex{v}, true, false)
		if err != nil || !res.Restored() {
			t.Fatalf("restore: %v", err)
		}
		second := c.Store.RefCountRegistry()
		if second == first {
			t.Fatal("the registry was not recreated")
		}
		for _, f := range files {
			key := RefCountSharedStateKey("map", KeyGroupRange{Start: 0, End: 13}, f.Path)
			if first.RefCount(key) != 1 || second.RefCount(key) != 1 {
				t.Errorf("%s: count %d in the old registry, %d in the new; want 1 and 1 (registered twice)", key, first.RefCount(key), second.RefCount(key))
			}
		}
		if _, err := first.RegisterReference("k", stream("k", 1)); !errors.Is(err, ErrSharedStateRegistryClosed) {
			t.Errorf("old registry still open: %v", err)
		}
		// Every subtask gets back exactly its own state.
		for i, tr := range res.Assignment.Vertices[0].Subtasks {
			want := os.Subtasks[i].ManagedKeyedState
			if diff := cmp.Diff(want, tr.Operators[0].State.ManagedKeyedState); diff != "" {
				t.Errorf("subtask %d (-want +got):\n%s", i, diff)
			}
		}
	})

	t.Run("1.18", func(t *testing.T) {
		v, os := keyedVertex("map", 3, 42, files...)
		c := mustCoordinator(t, Flink118, 1)
		if _, err := c.Store.CompleteCheckpoint(&CompletedCheckpoint{CheckpointID: 1, Properties: checkpointProps, Operators: []OperatorState{os}}); err != nil {
			t.Fatal(err)
		}
		first := c.Store.Registry()
		if err := c.RecoverAfterJobManagerFailover(NoClaim); err != nil {
			t.Fatal(err)
		}
		res, err := c.RestoreInitialCheckpointIfPresent([]JobVertex{v})
		if err != nil || !res.Restored() {
			t.Fatalf("restore: %v", err)
		}
		for _, reg := range []*SharedStateRegistry{first, c.Store.Registry()} {
			for _, f := range files {
				e, ok := reg.Entry(SharedStateKey(f.Path))
				if !ok || e.CreatedByCheckpointID != 1 || e.LastUsedCheckpointID != 1 {
					t.Errorf("%s: entry %+v, %v; want registered by checkpoint 1", f.Path, e, ok)
				}
			}
		}
		if first == c.Store.Registry() {
			t.Error("the new JobManager kept the old registry")
		}
	})
}

func TestRestoreSavepointErrors(t *testing.T) {
	v, os := keyedVertex("map", 1, 128)
	st := storageWith(CheckpointMetadata{CheckpointID: 3, Operators: []OperatorState{os}})
	other, _ := keyedVertex("other", 1, 128)
	for _, tt := range []struct {
		name     string
		settings SavepointRestoreSettings
		vertices []JobVertex
		check    func(error) bool
	}{
		{"missing savepoint", SavepointRestoreSettings{Pointer: "/savepoints/sp-4"}, []JobVertex{v},
			func(err error) bool { var e *CheckpointNotFoundError; return errors.As(err, &e) }},
		{"empty pointer", SavepointRestoreSettings{}, []JobVertex{v},
			func(err error) bool { return errors.Is(err, ErrEmptyCheckpointPointer) }},
		{"unknown restore mode", SavepointRestoreSettings{Pointer: "/savepoints/sp-3", Mode: RestoreMode(7)}, []JobVertex{v},
			func(err error) bool { return errors.Is(err, ErrUnknownRestoreMode) }},
		{"state without operator", SavepointRestoreSettings{Pointer: "/savepoints/sp-3"}, []JobVertex{other},
			func(err error) bool {
				return errors.Is(err, ErrNonRestoredState) && strings.Contains(err.Error(), "allowNonRestoredState")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCoordinator(t, Flink118, 1)
			_, err := c.RestoreSavepoint(st, tt.settings, tt.vertices)
			if err == nil || !tt.check(err) {
				t.Errorf("err = %v", err)
			}
			if c.Store.Len() != 0 || c.Counter.Get() != 1 {
				t.Errorf("a failed restore changed the store (%d) or counter (%d)", c.Store.Len(), c.Counter.Get())
			}
		})
	}
	// Max parallelism changed (explicitly configured on both sides): IllegalStateException.
	changed := v
	changed.MaxParallelism = 64
	c := mustCoordinator(t, Flink1101, 1)
	if _, err := c.RestoreSavepoint(st, SavepointRestoreSettings{Pointer: "/savepoints/sp-3"}, []JobVertex{changed}); !errors.Is(err, ErrMaxParallelismMismatch) {
		t.Errorf("max parallelism 128 → 64: err = %v", err)
	}
}

func ExampleCoordinator_RestoreSavepoint() {
	id := OperatorIDFromUID("map")
	vertex := JobVertex{Name: "map", Operators: []JobOperator{{ID: id}}, Parallelism: 2, MaxParallelism: 128}
	savepoint := CheckpointMetadata{CheckpointID: 41, Operators: []OperatorState{{OperatorID: id, Parallelism: 1, MaxParallelism: 128,
		Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: []KeyedStateHandle{kgHandle("sp/kg", 0, 127)}}}}}}
	storage := storageWith(savepoint)

	c, _ := NewCoordinator(Flink118, 1)
	res, err := c.RestoreSavepoint(storage, SavepointRestoreSettings{Pointer: "/savepoints/sp-41", Mode: NoClaim}, []JobVertex{vertex})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("restored", res.Checkpoint.CheckpointID, "from", res.Location.ExternalPointer)
	fmt.Println("next checkpoint id", c.Counter.Get())
	for i, tr := range res.Assignment.Vertices[0].Subtasks {
		fmt.Println("subtask", i, "key groups", tr.Operators[0].State.ManagedKeyedState[0].KeyGroupRange())
	}
	// Output:
	// restored 41 from file:/savepoints/sp-41
	// next checkpoint id 42
	// subtask 0 key groups KeyGroupRange{startKeyGroup=0, endKeyGroup=63}
	// subtask 1 key groups KeyGroupRange{startKeyGroup=64, endKeyGroup=127}
}

// §K.7 testRestoreFinishedStateWithoutInFlightData (1.18): a fully finished operator (p=1, M=1),
// checkpoint 2 whose in-flight data is ignored; restoreInitialCheckpointIfPresent deploys the
// subtask as finished.
func TestRestoreFinishedStateWithoutInFlightData(t *testing.T) {
	id := OperatorIDFromUID("finished")
	v := JobVertex{Name: "finished", Operators: []JobOperator{{ID: id}}, Parallelism: 1, MaxParallelism: 1, MaxParallelismConfigured: true}
	c := mustCoordinator(t, Flink118, 1)
	c.CheckpointIDOfIgnoredInFlightData = 2
	cp := &CompletedCheckpoint{CheckpointID: 2, Properties: checkpointProps,
		Operators: []OperatorState{{OperatorID: id, Parallelism: 1, MaxParallelism: 1, FullyFinished: true}}}
	if _, err := c.Store.CompleteCheckpoint(cp); err != nil {
		t.Fatal(err)
	}
	res, err := c.RestoreInitialCheckpointIfPresent([]JobVertex{v})
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.Assignment.Vertices[0].Subtasks[0]; tr == nil || !tr.Finished || tr.CheckpointID != 2 {
		t.Errorf("restore = %+v, want deployed as finished from checkpoint 2", tr)
	}
}

// §K.7 testRestoreLatestCheckpointFailureWhenMaxParallelismChanges: checkpointed with M=42 and
// M=13 (configured), restored into M=20 and M=42.
func TestRestoreLatestCheckpointFailureWhenMaxParallelismChanges(t *testing.T) {
	for _, ver := range []FlinkVersion{Flink118, Flink1101} {
		t.Run(ver.String(), func(t *testing.T) {
			v1, os1 := keyedVertex("v1", 3, 42)
			v2, os2 := keyedVertex("v2", 2, 13)
			c := mustCoordinator(t, ver, 1)
			if _, err := c.Store.CompleteCheckpoint(&CompletedCheckpoint{CheckpointID: 1, Properties: checkpointProps,
				Operators: []OperatorState{os1, os2}}); err != nil {
				t.Fatal(err)
			}
			v1.MaxParallelism, v2.MaxParallelism = 20, 42
			_, err := c.RestoreLatestCheckpointedStateToAll([]JobVertex{v1, v2}, false)
			if !errors.Is(err, ErrMaxParallelismChangeNotSupported) {
				t.Errorf("err = %v, want ErrMaxParallelismChangeNotSupported (IllegalStateException)", err)
			}
		})
	}
}

// Zero values and nils a caller can build give errors or work; they never panic.
func TestZeroValuesAndNilsDoNotPanic(t *testing.T) {
	var s CompletedCheckpointStore
	if _, err := s.CompleteCheckpoint(ckpt(1, checkpointProps, sharedFileA)); err != nil || s.Len() != 1 || s.MaxRetained() != 1 {
		t.Errorf("zero store: err %v, len %d, max %d; want a 1.18 store retaining one", err, s.Len(), s.MaxRetained())
	}
	var c Coordinator
	if _, err := c.RestoreLatestCheckpointedStateToAll(nil, true); !errors.Is(err, ErrCoordinatorMisconfigured) {
		t.Errorf("zero coordinator: err = %v", err)
	}
	mixed := Coordinator{Version: Flink1101, Store: mustStore(t, Flink118, 1)}
	if _, err := mixed.RestoreInitialCheckpointIfPresent(nil); !errors.Is(err, ErrCoordinatorMisconfigured) {
		t.Errorf("1.10.1 coordinator with a 1.18 store: err = %v", err)
	}
	if _, err := mustCoordinator(t, Flink118, 1).RestoreSavepoint(nil, SavepointRestoreSettings{Pointer: "/x"}, nil); err == nil {
		t.Error("nil storage accepted")
	}
	typedNil := []KeyedStateHandle{(*KeyGroupsStateHandle)(nil), (*IncrementalKeyedStateHandle)(nil), nil}
	ops := []OperatorState{{Parallelism: 1, MaxParallelism: 1, Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: typedNil, RawKeyedState: typedNil}}}}
	if err := NewSharedStateRegistry().RegisterAll(ops, 1); err != nil {
		t.Errorf("typed nil handles: %v", err)
	}
	if _, err := NewRefCountSharedStateRegistry().RegisterAll(ops); err != nil {
		t.Errorf("typed nil handles (1.10.1): %v", err)
	}
	p := PrioritizeOperatorSubtaskState(Flink118, &OperatorSubtaskState{ManagedKeyedState: typedNil[:1]}, &OperatorSubtaskState{ManagedKeyedState: typedNil[1:2]}, 1)
	if p.UsesLocal() {
		t.Error("nil handles approved as local alternatives")
	}
	var zr SharedStateRegistry
	if _, err := zr.RegisterReference("k", stream("k", 1), 1, false); err != nil || zr.Len() != 1 {
		t.Errorf("zero registry: %v", err)
	}
	var zc RefCountSharedStateRegistry
	if _, err := zc.RegisterIncremental(&IncrementalKeyedStateHandle{Shared: []SharedFile{{LocalPath: "f", Handle: StreamHandle{Path: "f"}}}}); err != nil || zc.Len() != 1 {
		t.Errorf("zero 1.10.1 registry: %v", err)
	}
}
