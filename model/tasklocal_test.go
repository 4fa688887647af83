package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Flink 1.18's TaskLocalStateStoreImplTest
// (flink-runtime/src/test/java/org/apache/flink/runtime/state/TaskLocalStateStoreImplTest.java)
// against the model's TaskLocalStateStore. Flink's getLocalRecoveryRootDirectoryProvider
// (TaskLocalStateStoreImplTest.java:105) checks the allocation base directories of the directory
// provider, which the model does not have; it is not reproduced. Flink's TestingTaskStateSnapshot
// records discardState(); here the store returns the ids it discards and the directory shows
// which checkpoint directories remain.

// storeStates models storeStates(count), TaskLocalStateStoreImplTest.java:263: checkpoints
// 0..count-1, each a snapshot with one operator and an empty state.
func storeStates(t *testing.T, s *TaskLocalStateStore, count int) []*TaskLocalSnapshot {
	t.Helper()
	var out []*TaskLocalSnapshot
	for i := range count {
		snap := &TaskLocalSnapshot{CheckpointID: int64(i), Operators: []OperatorRestore{{OperatorID: OperatorIDFromUID(fmt.Sprint("op-", i))}}}
		if d := s.StoreLocalState(int64(i), snap); d != nil {
			t.Fatalf("store %d discarded %v", i, d)
		}
		out = append(out, snap)
	}
	return out
}

// checkStoredAsExpected, TaskLocalStateStoreImplTest.java:247: checkpoints start..end-1 return
// the very snapshots stored, and were not discarded (their directories exist).
func checkStoredAsExpected(t *testing.T, s *TaskLocalStateStore, history []*TaskLocalSnapshot, start, end int) {
	t.Helper()
	for i := start; i < end; i++ {
		if got := s.RetrieveLocalState(int64(i)); got != history[i] {
			t.Errorf("retrieveLocalState(%d) = %p, want the stored %p", i, got, history[i])
		}
		if !s.Directory().HasCheckpoint(int64(i)) {
			t.Errorf("checkpoint %d's local directory deleted", i)
		}
	}
}

// checkPrunedAndDiscarded, TaskLocalStateStoreImplTest.java:255: checkpoints start..end-1 are
// gone, discarded (reported and their directories deleted).
func checkPrunedAndDiscarded(t *testing.T, s *TaskLocalStateStore, discarded []int64, start, end int) {
	t.Helper()
	for i := start; i < end; i++ {
		if got := s.RetrieveLocalState(int64(i)); got != nil {
			t.Errorf("retrieveLocalState(%d) = %+v, want nil", i, got)
		}
		if !containsID(discarded, int64(i)) || s.Directory().HasCheckpoint(int64(i)) {
			t.Errorf("checkpoint %d: discarded %v (reported %v), directory left %v", i, containsID(discarded, int64(i)), discarded, s.Directory().HasCheckpoint(int64(i)))
		}
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// TaskLocalStateStoreImplTest.java:124.
func TestTaskLocalStateStoreImplTest_storeAndRetrieve(t *testing.T) {
	const chkCount = 3
	s := NewTaskLocalStateStore(nil)
	for i := range chkCount {
		if got := s.RetrieveLocalState(int64(i)); got != nil {
			t.Errorf("before storing: retrieveLocalState(%d) = %+v", i, got)
		}
	}
	history := storeStates(t, s, chkCount)
	checkStoredAsExpected(t, s, history, 0, chkCount)
	if got := s.RetrieveLocalState(chkCount + 1); got != nil {
		t.Errorf("retrieveLocalState(%d) = %+v, want nil", chkCount+1, got)
	}
}

// TaskLocalStateStoreImplTest.java:141.
func TestTaskLocalStateStoreImplTest_pruneCheckpoints(t *testing.T) {
	const chkCount = 3
	s := NewTaskLocalStateStore(nil)
	history := storeStates(t, s, chkCount)
	discarded := s.PruneMatchingCheckpoints(func(chk int64) bool { return chk != chkCount-1 })
	checkPrunedAndDiscarded(t, s, discarded, 0, chkCount-1)
	checkStoredAsExpected(t, s, history, chkCount-1, chkCount)
}

// TaskLocalStateStoreImplTest.java:159.
func TestTaskLocalStateStoreImplTest_confirmCheckpoint(t *testing.T) {
	const chkCount, confirmed = 3, 2
	s := NewTaskLocalStateStore(nil)
	history := storeStates(t, s, chkCount)
	discarded := s.ConfirmCheckpoint(confirmed)
	checkPrunedAndDiscarded(t, s, discarded, 0, confirmed)
	checkStoredAsExpected(t, s, history, confirmed, chkCount)
	if diff := cmp.Diff([]int64{0, 1}, discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
}

// TaskLocalStateStoreImplTest.java:171.
func TestTaskLocalStateStoreImplTest_abortCheckpoint(t *testing.T) {
	const chkCount, aborted = 4, 2
	s := NewTaskLocalStateStore(nil)
	history := storeStates(t, s, chkCount)
	discarded := s.AbortCheckpoint(aborted)
	checkPrunedAndDiscarded(t, s, discarded, aborted, aborted+1)
	checkStoredAsExpected(t, s, history, 0, aborted)
	checkStoredAsExpected(t, s, history, aborted+1, chkCount)
	if diff := cmp.Diff([]int64{aborted}, discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
}

// TaskLocalStateStoreImplTest.java:186.
func TestTaskLocalStateStoreImplTest_dispose(t *testing.T) {
	const chkCount, confirmed = 3, 2
	s := NewTaskLocalStateStore(nil)
	storeStates(t, s, chkCount)
	discarded := s.ConfirmCheckpoint(confirmed)
	discarded = append(discarded, s.Dispose()...)
	checkPrunedAndDiscarded(t, s, discarded, 0, chkCount)
	if len(s.Directory().Checkpoints()) != 0 {
		t.Errorf("directories left after dispose: %v", s.Directory().Checkpoints())
	}
	// Beyond Flink's assertions: a store after dispose discards what it is given.
	if d := s.StoreLocalState(9, &TaskLocalSnapshot{CheckpointID: 9}); !cmp.Equal(d, []int64{9}) || s.RetrieveLocalState(9) != nil {
		t.Errorf("store after dispose: discarded %v, retrieve %+v; want [9], nil", d, s.RetrieveLocalState(9))
	}
}

// TaskLocalStateStoreImplTest.java:197.
func TestTaskLocalStateStoreImplTest_retrieveNullIfNoPersistedLocalState(t *testing.T) {
	if got := NewTaskLocalStateStore(nil).RetrieveLocalState(0); got != nil {
		t.Errorf("retrieveLocalState(0) = %+v, want nil", got)
	}
}

// createTaskStateSnapshot, TaskLocalStateStoreImplTest.java:219: two operators with empty state.
func createTaskStateSnapshot(id int64) *TaskLocalSnapshot {
	return &TaskLocalSnapshot{CheckpointID: id, Operators: []OperatorRestore{{OperatorID: OperatorIDFromUID("a")}, {OperatorID: OperatorIDFromUID("b")}}}
}

// TaskLocalStateStoreImplTest.java:202: a new store over the same directories reads the
// snapshot back from its file (an equal snapshot).
func TestTaskLocalStateStoreImplTest_retrievePersistedLocalStateFromDisc(t *testing.T) {
	s := NewTaskLocalStateStore(nil)
	snap := createTaskStateSnapshot(0)
	s.StoreLocalState(0, snap)
	got := NewTaskLocalStateStore(s.Directory()).RetrieveLocalState(0)
	if diff := cmp.Diff(snap, got); diff != "" {
		t.Errorf("retrieved from disc (-want +got):\n%s", diff)
	}
}

// TaskLocalStateStoreImplTest.java:227: the snapshot file is overwritten with garbage; a new
// store returns nil and deletes the checkpoint's directory.
func TestTaskLocalStateStoreImplTest_deletesLocalStateIfRetrievalFails(t *testing.T) {
	s := NewTaskLocalStateStore(nil)
	s.StoreLocalState(0, createTaskStateSnapshot(0))
	if !s.Directory().Corrupt(0) {
		t.Fatal("no snapshot file written")
	}
	fresh := NewTaskLocalStateStore(s.Directory())
	if got := fresh.RetrieveLocalState(0); got != nil {
		t.Errorf("retrieveLocalState(0) = %+v, want nil", got)
	}
	if s.Directory().HasCheckpoint(0) {
		t.Error("the checkpoint's local directory still exists")
	}
}

// Not a Flink test method: storing a checkpoint's local state twice discards the first
// snapshot, which deletes the checkpoint's directory with the file just written
// (storeLocalState then discardLocalStateForCheckpoint of the previous snapshot); the new
// snapshot stays in memory. NULL_DUMMY is retrieved as nil.
func TestTaskLocalStateStoreStoreTwiceAndNullDummy(t *testing.T) {
	s := NewTaskLocalStateStore(nil)
	s.StoreLocalState(1, createTaskStateSnapshot(1))
	second := createTaskStateSnapshot(1)
	if d := s.StoreLocalState(1, second); !cmp.Equal(d, []int64{1}) {
		t.Errorf("second store discarded %v, want [1]", d)
	}
	if s.RetrieveLocalState(1) != second || s.Directory().HasCheckpoint(1) {
		t.Errorf("after storing twice: retrieve %p (want %p), directory left %v (want false)", s.RetrieveLocalState(1), second, s.Directory().HasCheckpoint(1))
	}
	s.StoreLocalState(2, nil)
	if got := s.RetrieveLocalState(2); got != nil || !s.Directory().HasCheckpoint(2) {
		t.Errorf("NULL_DUMMY: retrieve %+v, directory %v; want nil, true", got, s.Directory().HasCheckpoint(2))
	}
}
