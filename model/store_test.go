package model

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var (
	checkpointProps  = CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward}
	savepointProps   = CheckpointProperties{Savepoint: true, Forced: true}
	syncStopProps    = CheckpointProperties{Savepoint: true, Synchronous: true}
	unclaimedProps   = CheckpointProperties{Savepoint: true, Unclaimed: true}
	nativeSavepoint  = CheckpointProperties{Savepoint: true, Native: true, Forced: true}
	sharedFileA      = StreamHandle{Path: "file:/ckpt/shared/a.sst", Size: 10}
	sharedFileB      = StreamHandle{Path: "file:/ckpt/shared/b.sst", Size: 20}
	sharedFileStaleC = StreamHandle{Path: "file:/ckpt/shared/c.sst", Size: 30}
)

// ckpt builds a completed checkpoint; files, if any, become one incremental handle's shared files.
func ckpt(id int64, props CheckpointProperties, files ...StreamHandle) *CompletedCheckpoint {
	cp := &CompletedCheckpoint{CheckpointID: id, Properties: props, ExternalPointer: fmt.Sprint("file:/ckpt/chk-", id)}
	if len(files) > 0 {
		h := &IncrementalKeyedStateHandle{BackendID: "backend", Range: KeyGroupRange{Start: 0, End: 127},
			CheckpointID: id, StateHandleID: fmt.Sprint("handle-", id), Meta: StreamHandle{Path: fmt.Sprint("meta-", id), Size: 1}}
		for i, f := range files {
			h.Shared = append(h.Shared, SharedFile{LocalPath: fmt.Sprint(i, ".sst"), Handle: f})
		}
		// Local file names must identify the file for the 1.10.1 key: use the path.
		for i := range h.Shared {
			h.Shared[i].LocalPath = h.Shared[i].Handle.Path
		}
		cp.Operators = []OperatorState{{Parallelism: 1, MaxParallelism: 128,
			Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: []KeyedStateHandle{h}}}}}
	}
	return cp
}

func mustStore(t *testing.T, v FlinkVersion, n int) *CompletedCheckpointStore {
	t.Helper()
	s, err := NewCompletedCheckpointStore(v, n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ids(s *CompletedCheckpointStore) []int64 {
	var out []int64
	for _, c := range s.Checkpoints() {
		out = append(out, c.CheckpointID)
	}
	return out
}

// storeStep adds a checkpoint (directly, or through CompleteCheckpoint) and checks the store and
// the update.
type storeStep struct {
	cp       *CompletedCheckpoint
	complete bool // CompleteCheckpoint (registers shared state) instead of a bare add
	want     StoreUpdate
	retained []int64
}

func runStoreSteps(t *testing.T, s *CompletedCheckpointStore, steps []storeStep) {
	t.Helper()
	for i, st := range steps {
		var u StoreUpdate
		var err error
		if st.complete {
			u, err = s.CompleteCheckpoint(st.cp)
		} else {
			u, err = s.AddCheckpointAndSubsumeOldestOne(st.cp)
		}
		if err != nil {
			t.Fatalf("step %d (checkpoint %d): %v", i, st.cp.CheckpointID, err)
		}
		want := st.want
		for _, id := range want.Discarded { // ckpt names checkpoint n's directory chk-n
			want.DiscardedPointers = append(want.DiscardedPointers, fmt.Sprint("file:/ckpt/chk-", id))
		}
		if diff := cmp.Diff(want, u); diff != "" {
			t.Errorf("step %d (checkpoint %d) update (-want +got):\n%s", i, st.cp.CheckpointID, diff)
		}
		if diff := cmp.Diff(st.retained, ids(s)); diff != "" {
			t.Errorf("step %d (checkpoint %d) retained (-want +got):\n%s", i, st.cp.CheckpointID, diff)
		}
	}
}

func TestStoreRetainsOneCheckpointByDefaultAndDiscardsSubsumedOnes(t *testing.T) {
	s := mustStore(t, Flink118, DefaultNumRetainedCheckpoints)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps), retained: []int64{1}},
		{cp: ckpt(2, checkpointProps), want: StoreUpdate{Subsumed: []int64{1}, Discarded: []int64{1}}, retained: []int64{2}},
		{cp: ckpt(3, checkpointProps), want: StoreUpdate{Subsumed: []int64{2}, Discarded: []int64{2}}, retained: []int64{3}},
	})
}

func TestStoreDropsRestoredSavepointAfterFirstCheckpointWithoutDiscardingIt(t *testing.T) {
	for _, props := range []CheckpointProperties{unclaimedProps, savepointProps} {
		s := mustStore(t, Flink118, 1)
		runStoreSteps(t, s, []storeStep{
			{cp: ckpt(5, props), retained: []int64{5}},
			{cp: ckpt(6, checkpointProps), want: StoreUpdate{Subsumed: []int64{5}}, retained: []int64{6}},
		})
	}
}

func TestStoreDiscardsClaimedSnapshotLikeACheckpoint(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(5, checkpointProps), retained: []int64{5}},
		{cp: ckpt(6, checkpointProps), want: StoreUpdate{Subsumed: []int64{5}, Discarded: []int64{5}}, retained: []int64{6}},
	})
}

func TestStoreNeverDropsNewestCheckpointForASavepoint(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps), retained: []int64{1}},
		// Over capacity, but checkpoint 1 is the newest non-savepoint and 2 the newest: both stay.
		{cp: ckpt(2, savepointProps), retained: []int64{1, 2}},
		// The walk keeps 1 and goes on to remove the intermediate savepoint 2.
		{cp: ckpt(3, savepointProps), want: StoreUpdate{Subsumed: []int64{2}}, retained: []int64{1, 3}},
		{cp: ckpt(4, checkpointProps), want: StoreUpdate{Subsumed: []int64{1, 3}, Discarded: []int64{1}}, retained: []int64{4}},
	})
}

func TestStoreSubsumesEverythingOlderThanASynchronousStopWithSavepoint(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps), retained: []int64{1}},
		// No non-savepoint remains, so nothing is unregistered or cleaned yet.
		{cp: ckpt(2, syncStopProps), want: StoreUpdate{Subsumed: []int64{1}}, retained: []int64{2}},
		{cp: ckpt(3, checkpointProps), want: StoreUpdate{Subsumed: []int64{2}, Discarded: []int64{1}}, retained: []int64{3}},
	})
}

func TestStoreRetainsSeveralCheckpoints(t *testing.T) {
	s := mustStore(t, Flink118, 3)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps), retained: []int64{1}},
		{cp: ckpt(2, checkpointProps), retained: []int64{1, 2}},
		{cp: ckpt(3, checkpointProps), retained: []int64{1, 2, 3}},
		{cp: ckpt(4, checkpointProps), want: StoreUpdate{Subsumed: []int64{1}, Discarded: []int64{1}}, retained: []int64{2, 3, 4}},
	})
	if got := s.Latest().CheckpointID; got != 4 {
		t.Errorf("Latest = %d, want 4", got)
	}
}

// Shared files are deleted once no retained checkpoint uses them; a checkpoint restored in CLAIM
// mode from a native savepoint (NO_SHARING) stays on disk while its files are used.
func TestStoreUnregistersUnusedSharedStateAndWaitsForCheckpointsInUse(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	restored := ckpt(1, checkpointProps, sharedFileA, sharedFileStaleC)
	if err := s.Registry().RegisterAllAfterRestored(1, restored.Operators, &nativeSavepoint, Claim); err != nil {
		t.Fatal(err)
	}
	runStoreSteps(t, s, []storeStep{
		{cp: restored, retained: []int64{1}, want: StoreUpdate{CheckpointsInUse: []int64{1}}},
		// 2 reuses a.sst and uploads b.sst: c.sst is unused (deleted, CLAIM); checkpoint 1 is in
		// use through a.sst and waits.
		{cp: ckpt(2, checkpointProps, sharedFileA, sharedFileB), complete: true, retained: []int64{2},
			want: StoreUpdate{Subsumed: []int64{1}, DiscardedShared: []StreamHandle{sharedFileStaleC}, CheckpointsInUse: []int64{1}}},
		// 3 uses b.sst only: a.sst goes, and with it checkpoint 1 and checkpoint 2's directory.
		{cp: ckpt(3, checkpointProps, sharedFileB), complete: true, retained: []int64{3},
			want: StoreUpdate{Subsumed: []int64{2}, Discarded: []int64{1, 2}, DiscardedShared: []StreamHandle{sharedFileA}}},
	})
	if got := s.PendingCleanup(); got != nil {
		t.Errorf("PendingCleanup = %v, want none", got)
	}
}

// In NO_CLAIM mode the files of the restored snapshot are never deleted by the job.
func TestStoreKeepsFilesOfAnUnclaimedSnapshot(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	restored := ckpt(1, unclaimedProps, sharedFileA)
	// NO_CLAIM: registerSharedStatesAfterRestored skips unclaimed snapshots; the first
	// checkpoint uploads everything again (it is a full one).
	runStoreSteps(t, s, []storeStep{
		{cp: restored, retained: []int64{1}},
		{cp: ckpt(2, checkpointProps, sharedFileB), complete: true, retained: []int64{2}, want: StoreUpdate{Subsumed: []int64{1}}},
		{cp: ckpt(3, checkpointProps), complete: true, retained: []int64{3},
			want: StoreUpdate{Subsumed: []int64{2}, Discarded: []int64{2}, DiscardedShared: []StreamHandle{sharedFileB}}},
	})
}

func TestStoreSavepointsAreNotAddedWhileRunning(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps, sharedFileA), complete: true, retained: []int64{1}},
		{cp: ckpt(2, savepointProps, sharedFileB), complete: true, retained: []int64{1}},
		{cp: ckpt(3, syncStopProps), complete: true, retained: []int64{1}},
	})
	if _, ok := s.Registry().Entry(SharedStateKey(sharedFileB.Path)); ok {
		t.Error("a savepoint's shared state was registered")
	}
	if !EntersStore(Flink1101, savepointProps) || EntersStore(Flink118, savepointProps) || !EntersStore(Flink118, checkpointProps) {
		t.Error("EntersStore: want 1.18 checkpoints only, 1.10.1 everything")
	}
}

// 1.10.1: FIFO, savepoints included; discarding a subsumed checkpoint unregisters its shared
// files, which are deleted when their count reaches 0; subsumed savepoints release nothing.
func TestStore1101SubsumesOldestAndUnregistersSharedState(t *testing.T) {
	s := mustStore(t, Flink1101, 1)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, savepointProps, sharedFileStaleC), complete: true, retained: []int64{1}},
		{cp: ckpt(2, checkpointProps, sharedFileA), complete: true, retained: []int64{2},
			want: StoreUpdate{Subsumed: []int64{1}}},
		{cp: ckpt(3, checkpointProps, sharedFileA, sharedFileB), complete: true, retained: []int64{3},
			want: StoreUpdate{Subsumed: []int64{2}, Discarded: []int64{2}}},
		{cp: ckpt(4, checkpointProps, sharedFileB), complete: true, retained: []int64{4},
			want: StoreUpdate{Subsumed: []int64{3}, Discarded: []int64{3}, DiscardedShared: []StreamHandle{sharedFileA}}},
	})
	// The savepoint's file was never unregistered (its discard-on-subsume does nothing).
	key := RefCountSharedStateKey("backend", KeyGroupRange{Start: 0, End: 127}, sharedFileStaleC.Path)
	if got := s.RefCountRegistry().RefCount(key); got != 1 {
		t.Errorf("savepoint file ref count = %d, want 1 (leaked, as in Flink)", got)
	}
}

func TestStore1101SecondRetainedCheckpoint(t *testing.T) {
	s := mustStore(t, Flink1101, 2)
	runStoreSteps(t, s, []storeStep{
		{cp: ckpt(1, checkpointProps), retained: []int64{1}},
		{cp: ckpt(2, savepointProps), retained: []int64{1, 2}},
		{cp: ckpt(3, checkpointProps), retained: []int64{2, 3}, want: StoreUpdate{Subsumed: []int64{1}, Discarded: []int64{1}}},
	})
	if got := s.LatestPreferringCheckpoint(true).CheckpointID; got != 3 {
		t.Errorf("LatestPreferringCheckpoint = %d", got)
	}
}

func TestStoreRecoveryAfterJobManagerFailover(t *testing.T) {
	for _, tt := range []struct {
		mode RestoreMode
		want []StreamHandle
	}{
		// NO_CLAIM (the default for a job not started from a snapshot): the recovered
		// checkpoint's files count as not claimed and are never deleted by the new JobManager.
		{NoClaim, nil},
		{Claim, []StreamHandle{sharedFileA}},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			s := mustStore(t, Flink118, 1)
			s.subsumed = append(s.subsumed, ckpt(0, checkpointProps))
			if _, err := s.CompleteCheckpoint(ckpt(1, checkpointProps, sharedFileA)); err != nil {
				t.Fatal(err)
			}
			old := s.Registry()
			if err := s.RecoverAfterJobManagerFailover(tt.mode); err != nil {
				t.Fatal(err)
			}
			if s.Registry() == old || s.PendingCleanup() != nil {
				t.Fatal("recovery kept the old registry or cleaner list")
			}
			e, ok := s.Registry().Entry(SharedStateKey(sharedFileA.Path))
			if !ok || e.CreatedByCheckpointID != 1 {
				t.Fatalf("recovered registry entry = %+v, %v; want a.sst registered again by checkpoint 1", e, ok)
			}
			u, err := s.CompleteCheckpoint(ckpt(2, checkpointProps, sharedFileB))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, u.DiscardedShared); diff != "" {
				t.Errorf("deleted after the next checkpoint (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubsumedPendingSnapshots(t *testing.T) {
	pending := []PendingSnapshot{
		{CheckpointID: 4, Properties: checkpointProps},
		{CheckpointID: 2, Properties: checkpointProps},
		{CheckpointID: 3, Properties: savepointProps}, // forced savepoint
		{CheckpointID: 5, Properties: CheckpointProperties{Savepoint: true}},
		{CheckpointID: 6, Properties: CheckpointProperties{Forced: true, DiscardSubsumed: true}}, // forced checkpoint
		{CheckpointID: 9, Properties: checkpointProps},
	}
	for _, tt := range []struct {
		name      string
		v         FlinkVersion
		completed CheckpointProperties
		want      []int64
	}{
		{"1.18 checkpoint aborts older pending checkpoints, never savepoints", Flink118, checkpointProps, []int64{2, 4, 6}},
		{"1.18 savepoint aborts nothing", Flink118, savepointProps, nil},
		{"1.18 synchronous stop-with-savepoint aborts like a checkpoint", Flink118, syncStopProps, []int64{2, 4, 6}},
		{"1.10.1 any completion aborts older unforced pending snapshots", Flink1101, savepointProps, []int64{2, 4, 5}},
	} {
		got := SubsumedPendingSnapshots(tt.v, 7, tt.completed, pending)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestStoreBadInput(t *testing.T) {
	if _, err := NewCompletedCheckpointStore(Flink118, 0); !errors.Is(err, ErrInvalidNumRetained) {
		t.Errorf("num-retained 0: err = %v", err)
	}
	if _, err := NewCompletedCheckpointStore(FlinkVersion(9), 1); !errors.Is(err, ErrUnknownFlinkVersion) {
		t.Errorf("unknown version: err = %v", err)
	}
	s := mustStore(t, Flink118, 1)
	if _, err := s.AddCheckpointAndSubsumeOldestOne(nil); err == nil {
		t.Error("nil checkpoint accepted")
	}
	for _, m := range []RestoreMode{Claim, NoClaim, Legacy} {
		if got, err := ParseRestoreMode(m.String()); err != nil || got != m {
			t.Errorf("ParseRestoreMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseRestoreMode("claim"); !errors.Is(err, ErrUnknownRestoreMode) {
		t.Errorf("ParseRestoreMode(claim): err = %v", err)
	}
	var zero RestoreMode
	if zero != NoClaim {
		t.Error("the zero RestoreMode must be NO_CLAIM, Flink's default")
	}
}

func BenchmarkStoreCompleteCheckpoint(b *testing.B) {
	cps := make([]*CompletedCheckpoint, 64)
	for i := range cps {
		cps[i] = ckpt(int64(i+1), checkpointProps, sharedFileA, StreamHandle{Path: fmt.Sprint("file:/s/", i), Size: 1})
	}
	for b.Loop() {
		s, _ := NewCompletedCheckpointStore(Flink118, 3)
		for _, c := range cps {
			if _, err := s.CompleteCheckpoint(c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func ExampleCompletedCheckpointStore_AddCheckpointAndSubsumeOldestOne() {
	s, _ := NewCompletedCheckpointStore(Flink118, 1)
	restored := &CompletedCheckpoint{CheckpointID: 5, Properties: CheckpointProperties{Savepoint: true, Unclaimed: true}}
	next := &CompletedCheckpoint{CheckpointID: 6, Properties: CheckpointProperties{DiscardSubsumed: true}}
	_, _ = s.AddCheckpointAndSubsumeOldestOne(restored)
	u, _ := s.AddCheckpointAndSubsumeOldestOne(next)
	fmt.Println("subsumed", u.Subsumed, "discarded", u.Discarded, "latest", s.Latest().CheckpointID)
	// Output:
	// subsumed [5] discarded [] latest 6
}

// registerSharedStatesAfterRestored skips unclaimed (NO_CLAIM) snapshots on recovery too.
func TestStoreRecoveryDoesNotRegisterAnUnclaimedSnapshot(t *testing.T) {
	s := mustStore(t, Flink118, 2)
	if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(1, unclaimedProps, sharedFileStaleC)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteCheckpoint(ckpt(2, checkpointProps, sharedFileA)); err != nil {
		t.Fatal(err)
	}
	if err := s.RecoverAfterJobManagerFailover(NoClaim); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Registry().Entry(SharedStateKey(sharedFileStaleC.Path)); ok {
		t.Error("the unclaimed snapshot's file was registered on recovery")
	}
	if _, ok := s.Registry().Entry(SharedStateKey(sharedFileA.Path)); !ok {
		t.Error("checkpoint 2's file was not registered on recovery")
	}
}

// Property: with checkpoints that reuse some of the previous checkpoint's shared files (as an
// incremental backend does) and savepoints in between, the registry tracks exactly the shared
// files of the retained checkpoints, and every other file ever uploaded has been deleted — once.
// Both versions, 1–3 retained checkpoints. (1.18 without a restore; savepoints are full
// snapshots without shared files and occur in 1.18 runs only.)
func TestStoreSharedFilesPropertyRegistryMatchesRetainedCheckpoints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.SampledFrom([]FlinkVersion{Flink118, Flink1101}).Draw(t, "version")
		s, err := NewCompletedCheckpointStore(v, rapid.IntRange(1, 3).Draw(t, "retained"))
		if err != nil {
			t.Fatal(err)
		}
		var prev []StreamHandle // files of the last completed checkpoint
		uploaded, deleted := map[string]bool{}, map[string]int{}
		nFiles := 0
		n := int64(rapid.IntRange(1, 12).Draw(t, "snapshots"))
		for id := int64(1); id <= n; id++ {
			var cp *CompletedCheckpoint
			// 1.10.1 lets a savepoint subsume the checkpoint the next incremental one builds on
			// (FLINK-21351, TestStore1101SavepointSubsumesTheCheckpointIncrementalStateBuildsOn),
			// so savepoints are drawn for 1.18 only.
			if v == Flink118 && rapid.IntRange(0, 3).Draw(t, "kind") == 0 {
				cp = ckpt(id, savepointProps)
			} else {
				var files []StreamHandle
				for _, f := range prev {
					if rapid.Bool().Draw(t, "reuse") {
						files = append(files, f)
					}
				}
				for range rapid.IntRange(0, 3).Draw(t, "new files") {
					nFiles++
					f := StreamHandle{Path: fmt.Sprint("file:/ckpt/shared/", nFiles, ".sst"), Size: 1}
					files = append(files, f)
					uploaded[f.Path] = true
				}
				cp = ckpt(id, checkpointProps, files...)
				prev = files
			}
			u, err := s.CompleteCheckpoint(cp)
			if err != nil {
				t.Fatalf("checkpoint %d: %v", id, err)
			}
			for _, f := range u.DiscardedShared {
				deleted[f.Path]++
			}

			retained := map[string]bool{}
			for _, c := range s.Checkpoints() {
				_ = forEachIncremental(c.Operators, func(h *IncrementalKeyedStateHandle) error {
					for _, f := range h.Shared {
						retained[f.Handle.Path] = true
					}
					return nil
				})
			}
			registered := map[string]bool{}
			if v == Flink118 {
				for _, e := range s.Registry().Entries() {
					if e.Handle.Marker == "" {
						registered[string(e.Key)] = true
					}
				}
			} else {
				for path := range uploaded {
					if s.RefCountRegistry().RefCount(RefCountSharedStateKey("backend", KeyGroupRange{Start: 0, End: 127}, path)) > 0 {
						registered[path] = true
					}
				}
			}
			if diff := cmp.Diff(retained, registered); diff != "" {
				t.Fatalf("after snapshot %d: registered files vs files of retained checkpoints %v (-retained +registered):\n%s", id, ids(s), diff)
			}
			for path := range uploaded {
				switch {
				case deleted[path] > 1:
					t.Fatalf("after snapshot %d: %s deleted %d times", id, path, deleted[path])
				case retained[path] && deleted[path] > 0:
					t.Fatalf("after snapshot %d: %s deleted while retained checkpoint uses it", id, path)
				case !retained[path] && deleted[path] == 0:
					t.Fatalf("after snapshot %d: %s is unused but was never deleted", id, path)
				}
			}
		}
	})
}

// FLINK-21351 (fixed in 1.12.3/1.13): in 1.10.1 a savepoint counts towards num-retained and can
// subsume the only checkpoint, deleting shared files the next incremental checkpoint still
// references; its placeholder for them is then unknown to the registry. 1.18 keeps the newest
// checkpoint (and does not even add the savepoint).
func TestStore1101SavepointSubsumesTheCheckpointIncrementalStateBuildsOn(t *testing.T) {
	for _, tt := range []struct {
		v           FlinkVersion
		wantDeleted []StreamHandle
	}{
		{Flink1101, []StreamHandle{sharedFileA}},
		{Flink118, nil},
	} {
		t.Run(tt.v.String(), func(t *testing.T) {
			s := mustStore(t, tt.v, 1)
			if _, err := s.CompleteCheckpoint(ckpt(1, checkpointProps, sharedFileA)); err != nil {
				t.Fatal(err)
			}
			u, err := s.CompleteCheckpoint(ckpt(2, savepointProps))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantDeleted, u.DiscardedShared); diff != "" {
				t.Errorf("deleted when the savepoint completed (-want +got):\n%s", diff)
			}
			if tt.v != Flink1101 {
				return
			}
			// Checkpoint 3 references a.sst again with a placeholder, as RocksDB does for files of
			// the last completed checkpoint.
			key := RefCountSharedStateKey("backend", KeyGroupRange{Start: 0, End: 127}, sharedFileA.Path)
			_, err = s.RefCountRegistry().RegisterReference(key, SharedHandle{Stream: sharedFileA, Placeholder: true})
			if !errors.Is(err, ErrUnknownSharedState) {
				t.Errorf("placeholder for the deleted file: err = %v, want ErrUnknownSharedState", err)
			}
		})
	}
}

// TestLoadRecoveredKeepsEveryRetrievedCheckpoint: a JobManager recovering from HA storage keeps
// every retrieved checkpoint, even beyond a lowered num-retained; the capacity applies from the
// next added checkpoint on, which then subsumes down to it.
func TestLoadRecoveredKeepsEveryRetrievedCheckpoint(t *testing.T) {
	for _, v := range []FlinkVersion{Flink118, Flink1101} {
		s, err := NewCompletedCheckpointStore(v, 1)
		if err != nil {
			t.Fatal(err)
		}
		props := CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward}
		cps := []*CompletedCheckpoint{{CheckpointID: 1, Properties: props}, {CheckpointID: 2, Properties: props}}
		if err := s.LoadRecovered(cps); err != nil {
			t.Fatal(err)
		}
		if got := ids(s); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("%v: after LoadRecovered: %v, want [1 2]", v, got)
		}
		if err := s.LoadRecovered(cps); err == nil {
			t.Errorf("%v: LoadRecovered into a non-empty store must fail", v)
		}
		if _, err := s.AddCheckpointAndSubsumeOldestOne(&CompletedCheckpoint{CheckpointID: 3, Properties: props}); err != nil {
			t.Fatal(err)
		}
		if got := ids(s); !slices.Equal(got, []int64{3}) {
			t.Errorf("%v: after the next add: %v, want [3]", v, got)
		}
	}
}
