package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Flink 1.18's DefaultCompletedCheckpointStoreTest and StandaloneCompletedCheckpointStoreTest
// (flink-runtime/src/test/java/org/apache/flink/runtime/checkpoint/), against the model's
// CompletedCheckpointStore: NewDefaultCompletedCheckpointStore for the HA store, a 1.18 store
// without a state-handle store for StandaloneCompletedCheckpointStore.

// testingStateHandleStore models TestingStateHandleStore: it records the calls, and its add can
// be made to fail.
type testingStateHandleStore struct {
	added                         []int64
	removed                       []int64
	addErr                        error
	clearEntries, releaseAllCalls int
}

func (h *testingStateHandleStore) AddAndLock(id int64, _ *CompletedCheckpoint) error {
	if h.addErr != nil {
		return h.addErr
	}
	h.added = append(h.added, id)
	return nil
}

func (h *testingStateHandleStore) ReleaseAndTryRemove(id int64) (bool, error) {
	h.removed = append(h.removed, id)
	return true, nil
}

func (h *testingStateHandleStore) ClearEntries() error { h.clearEntries++; return nil }
func (h *testingStateHandleStore) ReleaseAll() error   { h.releaseAllCalls++; return nil }

// createStateHandles models DefaultCompletedCheckpointStoreTest.createStateHandles(num): checkpoints
// 1..num (CompletedCheckpointStoreTest.createCheckpoint: forCheckpoint(NEVER_RETAIN_AFTER_TERMINATION)),
// named by their id.
func createStateHandles(num int) []RetrievedCheckpoint {
	var out []RetrievedCheckpoint
	for i := 1; i <= num; i++ {
		out = append(out, RetrievedCheckpoint{Name: fmt.Sprint(i), Checkpoint: ckpt(int64(i), checkpointProps)})
	}
	return out
}

// createCompletedCheckpointStore models DefaultCompletedCheckpointStoreTest.createCompletedCheckpointStore
// (DefaultCompletedCheckpointStoreTest.java:378): the store recovered from the handles.
func createCompletedCheckpointStore(t *testing.T, ha *testingStateHandleStore, handles []RetrievedCheckpoint, toRetain int) (*CompletedCheckpointStore, error) {
	t.Helper()
	recovered, err := RetrieveCompletedCheckpoints(handles)
	if err != nil {
		return nil, err
	}
	return NewDefaultCompletedCheckpointStore(toRetain, ha, recovered)
}

func mustDefaultStore(t *testing.T, ha *testingStateHandleStore, handles []RetrievedCheckpoint, toRetain int) *CompletedCheckpointStore {
	t.Helper()
	s, err := createCompletedCheckpointStore(t, ha, handles, toRetain)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testCheckpointRetention, DefaultCompletedCheckpointStoreTest.java:128: a store recovered with
// checkpoints 1–3 retaining numRetain; after adding completed, exactly expectedRetained (the
// same objects) remain.
func testCheckpointRetention(t *testing.T, numRetain int, completed, expectedRetained []*CompletedCheckpoint) {
	t.Helper()
	s := mustDefaultStore(t, &testingStateHandleStore{}, createStateHandles(3), numRetain)
	for _, c := range completed {
		if _, err := s.AddCheckpointAndSubsumeOldestOne(c); err != nil {
			t.Fatal(err)
		}
	}
	got := s.Checkpoints()
	if len(got) != len(expectedRetained) || !slices.EqualFunc(got, expectedRetained, func(a, b *CompletedCheckpoint) bool { return a == b }) {
		t.Errorf("retained %v, want %v", idsOf(got), idsOf(expectedRetained))
	}
}

func idsOf(cps []*CompletedCheckpoint) []int64 {
	var out []int64
	for _, c := range cps {
		out = append(out, c.CheckpointID)
	}
	return out
}

// getCheckpoint, DefaultCompletedCheckpointStoreTest.java:407: forSavepoint(false, CANONICAL) or
// forCheckpoint(NEVER_RETAIN_AFTER_TERMINATION).
func getCheckpoint(isSavepoint bool, id int64) *CompletedCheckpoint {
	if isSavepoint {
		return ckpt(id, CheckpointProperties{Savepoint: true, Sharing: NoSharing})
	}
	return ckpt(id, checkpointProps)
}

// DefaultCompletedCheckpointStoreTest.java:90.
func TestDefaultCompletedCheckpointStoreTest_testAtLeastOneCheckpointRetained(t *testing.T) {
	cp1, cp2 := getCheckpoint(false, 1), getCheckpoint(false, 2)
	sp1, sp2, sp3 := getCheckpoint(true, 3), getCheckpoint(true, 4), getCheckpoint(true, 5)
	testCheckpointRetention(t, 1, []*CompletedCheckpoint{cp1, cp2, sp1, sp2, sp3}, []*CompletedCheckpoint{cp2, sp3})
}

// DefaultCompletedCheckpointStoreTest.java:100.
func TestDefaultCompletedCheckpointStoreTest_testOlderSavepointSubsumed(t *testing.T) {
	cp1, sp1, cp2 := getCheckpoint(false, 1), getCheckpoint(true, 2), getCheckpoint(false, 3)
	testCheckpointRetention(t, 1, []*CompletedCheckpoint{cp1, sp1, cp2}, []*CompletedCheckpoint{cp2})
}

// DefaultCompletedCheckpointStoreTest.java:108: stop is forSyncSavepoint(false, false, CANONICAL).
func TestDefaultCompletedCheckpointStoreTest_testSubsumeAfterStoppingWithSavepoint(t *testing.T) {
	cp1, sp1 := getCheckpoint(false, 1), getCheckpoint(true, 2)
	stop := ckpt(3, CheckpointProperties{Savepoint: true, Synchronous: true, Sharing: NoSharing})
	testCheckpointRetention(t, 1, []*CompletedCheckpoint{cp1, sp1, stop}, []*CompletedCheckpoint{stop})
}

// DefaultCompletedCheckpointStoreTest.java:120.
func TestDefaultCompletedCheckpointStoreTest_testNotSubsumedIfNotNeeded(t *testing.T) {
	cp1, cp2, cp3 := getCheckpoint(false, 1), getCheckpoint(false, 2), getCheckpoint(false, 3)
	testCheckpointRetention(t, 3, []*CompletedCheckpoint{cp1, cp2, cp3}, []*CompletedCheckpoint{cp1, cp2, cp3})
}

// DefaultCompletedCheckpointStoreTest.java:150. Flink's handle store returns the names in order;
// here they come shuffled, so the sort by name is exercised.
func TestDefaultCompletedCheckpointStoreTest_testRecoverSortedCheckpoints(t *testing.T) {
	h := createStateHandles(3)
	h[0], h[2] = h[2], h[0]
	s := mustDefaultStore(t, &testingStateHandleStore{}, h, 1)
	if diff := cmp.Diff([]int64{1, 2, 3}, ids(s)); diff != "" {
		t.Errorf("recovered checkpoint ids (-want +got):\n%s", diff)
	}
}

// DefaultCompletedCheckpointStoreTest.java:167: retrieving checkpoint 2 fails with an
// IOException; the recovery fails with it rather than skipping the checkpoint.
func TestDefaultCompletedCheckpointStoreTest_testCorruptDataInStateHandleStoreShouldNotBeSkipped(t *testing.T) {
	ioErr := errors.New("Failed to retrieve checkpoint 2")
	h := createStateHandles(3)
	h[1] = RetrievedCheckpoint{Name: h[1].Name, Err: ioErr}
	s, err := createCompletedCheckpointStore(t, &testingStateHandleStore{}, h, 1)
	if err == nil {
		t.Fatalf("recovered %v, want a failure", ids(s))
	}
	if !errors.Is(err, ioErr) || !errors.Is(err, ErrCheckpointRetrieval) {
		t.Errorf("error %v: want ErrCheckpointRetrieval wrapping the IOException", err)
	}
}

// DefaultCompletedCheckpointStoreTest.java:191: the new checkpoint is persisted to the HA store
// and replaces the recovered one (also removed from the HA store: beyond Flink's assertions).
func TestDefaultCompletedCheckpointStoreTest_testAddCheckpointSuccessfullyShouldRemoveOldOnes(t *testing.T) {
	ha := &testingStateHandleStore{}
	s := mustDefaultStore(t, ha, createStateHandles(1), 1)
	if diff := cmp.Diff([]int64{1}, ids(s)); diff != "" {
		t.Fatalf("recovered (-want +got):\n%s", diff)
	}
	if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(100, checkpointProps)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{100}, ha.added); diff != "" {
		t.Errorf("persisted to the state handle store (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{100}, ids(s)); diff != "" {
		t.Errorf("retained (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1}, ha.removed); diff != "" {
		t.Errorf("removed from the state handle store (-want +got):\n%s", diff)
	}
}

// DefaultCompletedCheckpointStoreTest.java:225: the HA write fails; the error is returned and
// the old checkpoint stays.
func TestDefaultCompletedCheckpointStoreTest_testAddCheckpointFailedShouldNotRemoveOldOnes(t *testing.T) {
	const errMsg = "Add to state handle failed."
	ha := &testingStateHandleStore{addErr: errors.New(errMsg)}
	s := mustDefaultStore(t, ha, createStateHandles(1), 1)
	if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(100, checkpointProps)); err == nil || !strings.Contains(err.Error(), errMsg) {
		t.Fatalf("add: %v, want the state handle store's %q", err, errMsg)
	}
	if diff := cmp.Diff([]int64{1}, ids(s)); diff != "" {
		t.Errorf("retained after the failed add (-want +got):\n%s", diff)
	}
	if len(ha.removed) != 0 {
		t.Errorf("removed %v from the state handle store, want nothing", ha.removed)
	}
}

// registerState models DefaultCompletedCheckpointStoreTest.registerState: a new shared handle
// registered under a fresh key at checkpointID.
func registerState(t *testing.T, s *CompletedCheckpointStore, checkpointID int64) StreamHandle {
	t.Helper()
	h := StreamHandle{Path: fmt.Sprint("file:/shared/registered-at-", checkpointID), Size: 1}
	if _, err := s.Registry().RegisterReference(SharedStateKey(h.Path), SharedHandle{Stream: h}, checkpointID, false); err != nil {
		t.Fatal(err)
	}
	return h
}

// DefaultCompletedCheckpointStoreTest.java:258: 3 checkpoints, then checkpoint 4 with
// RETAIN_ON_CANCELLATION, then 4 more (Flink's createStateHandles(4) again: ids 1–4 a second
// time); shared state registered at 3, 4 and 5; shutdown(CANCELED) removes all 8 HA entries,
// clears the HA store, empties the store, and discards only the state last used before the
// retained checkpoint 4.
func TestDefaultCompletedCheckpointStoreTest_testShutdownShouldDiscardStateHandleWhenJobIsGloballyTerminalState(t *testing.T) {
	const numBeforeRetained, numAfterRetained = 3, 4
	retainedCheckpointID := int64(numBeforeRetained + 1)
	handles := createStateHandles(numBeforeRetained)
	handles = append(handles, RetrievedCheckpoint{Name: fmt.Sprint(retainedCheckpointID),
		Checkpoint: ckpt(retainedCheckpointID, CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward, Retention: RetainOnCancellation})})
	handles = append(handles, createStateHandles(numAfterRetained)...)
	numCheckpoints := len(handles)
	ha := &testingStateHandleStore{}
	s := mustDefaultStore(t, ha, handles, 1)
	if s.Len() != numCheckpoints {
		t.Fatalf("%d checkpoints recovered, want %d", s.Len(), numCheckpoints)
	}
	nonRetainedState := registerState(t, s, retainedCheckpointID-1)
	retainedState := registerState(t, s, retainedCheckpointID)
	beyondRetained := registerState(t, s, retainedCheckpointID+1)

	u, err := s.Shutdown(Canceled)
	if err != nil {
		t.Fatal(err)
	}
	if len(ha.removed) != numCheckpoints || ha.clearEntries != 1 || s.Len() != 0 {
		t.Errorf("removed %d HA entries (want %d), clearEntries %d (want 1), %d left in the store", len(ha.removed), numCheckpoints, ha.clearEntries, s.Len())
	}
	disposed := func(h StreamHandle) bool { return slices.Contains(u.DiscardedShared, h) }
	if !disposed(nonRetainedState) || disposed(retainedState) || disposed(beyondRetained) {
		t.Errorf("disposed: state at 3 %v, at 4 %v, at 5 %v; want true, false, false", disposed(nonRetainedState), disposed(retainedState), disposed(beyondRetained))
	}
	// Beyond Flink's assertions: every checkpoint but the retained one is discarded.
	if diff := cmp.Diff([]int64{1, 1, 2, 2, 3, 3, 4}, u.Discarded); diff != "" {
		t.Errorf("discarded checkpoints (-want +got):\n%s", diff)
	}
}

// DefaultCompletedCheckpointStoreTest.java:302: shutdown(CANCELLING) removes no HA entry and
// does not clear them, releases the locks, empties the store, and disposes of nothing.
func TestDefaultCompletedCheckpointStoreTest_testShutdownShouldNotDiscardStateHandleWhenJobIsNotGloballyTerminalState(t *testing.T) {
	ha := &testingStateHandleStore{}
	s := mustDefaultStore(t, ha, createStateHandles(3), 1)
	if s.Len() != 3 {
		t.Fatalf("%d checkpoints recovered, want 3", s.Len())
	}
	streamStateHandle := registerState(t, s, 3)
	u, err := s.Shutdown(Cancelling)
	if err != nil {
		t.Fatal(err)
	}
	if len(ha.removed) != 0 || ha.clearEntries != 0 || ha.releaseAllCalls != 1 || s.Len() != 0 {
		t.Errorf("removed %v, clearEntries %d, releaseAll %d, %d left; want none, 0, 1, 0", ha.removed, ha.clearEntries, ha.releaseAllCalls, s.Len())
	}
	if slices.Contains(u.DiscardedShared, streamStateHandle) || len(u.Discarded) != 0 {
		t.Errorf("update %+v: want nothing discarded", u)
	}
}

// DefaultCompletedCheckpointStoreTest.java:339: after shutdown with any status, adding fails.
func TestDefaultCompletedCheckpointStoreTest_testShutdownFailsAnyFutureCallsToAddCheckpoint(t *testing.T) {
	for _, status := range JobStatuses() {
		s := mustDefaultStore(t, &testingStateHandleStore{}, nil, 1)
		if _, err := s.Shutdown(status); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(0, checkpointProps)); !errors.Is(err, ErrStoreShutDown) {
			t.Errorf("%v: add after shutdown = %v, want ErrStoreShutDown", status, err)
		}
	}
}

// shutdownDiscardsCheckpoints models StandaloneCompletedCheckpointStoreTest.java:50 and :71: a
// standalone store (1.18, no HA) with one registered checkpoint (id 0, NEVER_RETAIN_AFTER_TERMINATION;
// one incremental handle with a shared file here) discards it on shutdown. Beyond Flink's
// assertions: its shared file is unregistered and deleted on FINISHED only.
func shutdownDiscardsCheckpoints(t *testing.T, status JobStatus, wantShared []StreamHandle) {
	t.Helper()
	s := mustStore(t, Flink118, 1)
	checkpoint := ckpt(0, checkpointProps, sharedFileA)
	if _, err := s.CompleteCheckpoint(checkpoint); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Fatalf("%d retained, want 1", s.Len())
	}
	if _, ok := s.Registry().Entry(SharedStateKey(sharedStateKeyOf(t, s))); !ok {
		t.Fatal("checkpoint's shared state not registered")
	}
	u, err := s.Shutdown(status)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 {
		t.Errorf("%d retained after shutdown, want 0", s.Len())
	}
	if diff := cmp.Diff([]int64{0}, u.Discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantShared, u.DiscardedShared); diff != "" {
		t.Errorf("shared files deleted (-want +got):\n%s", diff)
	}
}

// sharedStateKeyOf returns the key of the registry's one entry that is a real file.
func sharedStateKeyOf(t *testing.T, s *CompletedCheckpointStore) string {
	t.Helper()
	for _, e := range s.Registry().Entries() {
		if e.Handle.Marker == "" {
			return string(e.Key)
		}
	}
	t.Fatal("no shared file registered")
	return ""
}

// StandaloneCompletedCheckpointStoreTest.java:49.
func TestStandaloneCompletedCheckpointStoreTest_testShutdownDiscardsCheckpoints(t *testing.T) {
	shutdownDiscardsCheckpoints(t, Finished, []StreamHandle{sharedFileA})
}

// StandaloneCompletedCheckpointStoreTest.java:70: suspension discards too (a standalone job
// cannot be resumed), but leaves the shared state registered.
func TestStandaloneCompletedCheckpointStoreTest_testSuspendDiscardsCheckpoints(t *testing.T) {
	shutdownDiscardsCheckpoints(t, Suspended, nil)
}

// StandaloneCompletedCheckpointStoreTest.java:91: adding checkpoints 0 and 1 (retain 1) succeeds
// although discarding the subsumed checkpoint 0 throws. The model's discard cannot throw, so
// this checks that the add succeeds and that checkpoint 0's discard is attempted (reported).
func TestStandaloneCompletedCheckpointStoreTest_testAddCheckpointWithFailedRemove(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	var discarded []int64
	for i := range int64(2) {
		u, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(i, checkpointProps))
		if err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
		discarded = append(discarded, u.Discarded...)
	}
	if diff := cmp.Diff([]int64{0}, discarded); diff != "" {
		t.Errorf("discard attempted (-want +got):\n%s", diff)
	}
}

// Not a Flink test method: CompletedCheckpoint.shouldBeDiscardedOnShutdown for every status and
// the CheckpointProperties factories (CheckpointProperties.java:250–335).
func TestShouldBeDiscardedOnShutdown(t *testing.T) {
	type row struct{ finished, canceled, failed, suspended bool }
	for _, tt := range []struct {
		name  string
		props CheckpointProperties
		want  row
	}{
		{"NEVER_RETAIN_AFTER_TERMINATION", checkpointProps, row{true, true, true, true}},
		{"RETAIN_ON_FAILURE", CheckpointProperties{DiscardSubsumed: true, Retention: RetainOnFailure}, row{true, true, false, true}},
		{"RETAIN_ON_CANCELLATION", CheckpointProperties{DiscardSubsumed: true, Retention: RetainOnCancellation}, row{true, false, false, false}},
		{"savepoint", savepointProps, row{}},
		{"sync savepoint", syncStopProps, row{}},
		{"unclaimed", unclaimedProps, row{}},
	} {
		got := row{tt.props.ShouldBeDiscardedOnShutdown(Finished), tt.props.ShouldBeDiscardedOnShutdown(Canceled),
			tt.props.ShouldBeDiscardedOnShutdown(Failed), tt.props.ShouldBeDiscardedOnShutdown(Suspended)}
		if got != tt.want {
			t.Errorf("%s: finished/canceled/failed/suspended = %+v, want %+v", tt.name, got, tt.want)
		}
		for _, s := range JobStatuses() {
			if s != Finished && s != Canceled && s != Failed && s != Suspended && tt.props.ShouldBeDiscardedOnShutdown(s) {
				t.Errorf("%s: discarded on %v", tt.name, s)
			}
		}
	}
}

// Not a Flink 1.18 test: release-1.10.1's StandaloneCompletedCheckpointStore.shutdown discards
// the checkpoints that should be discarded and releases their shared files.
func TestStore1101Shutdown(t *testing.T) {
	s := mustStore(t, Flink1101, 2)
	for _, cp := range []*CompletedCheckpoint{ckpt(1, checkpointProps, sharedFileA), ckpt(2, savepointProps, sharedFileB)} {
		if _, err := s.CompleteCheckpoint(cp); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.Shutdown(Failed)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(StoreUpdate{Discarded: []int64{1}, DiscardedPointers: []string{"file:/ckpt/chk-1"}, DiscardedShared: []StreamHandle{sharedFileA}}, u); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	if s.Len() != 0 {
		t.Errorf("%d retained, want 0", s.Len())
	}
}

// The CompletedCheckpointStoreTest methods StandaloneCompletedCheckpointStoreTest inherits
// (CompletedCheckpointStoreTest.java), on a 1.18 standalone store.

// CompletedCheckpointStoreTest.java:62.
func TestStandaloneCompletedCheckpointStoreTest_testExceptionOnNoRetainedCheckpoints(t *testing.T) {
	if _, err := NewCompletedCheckpointStore(Flink118, 0); !errors.Is(err, ErrInvalidNumRetained) {
		t.Errorf("retain 0: %v, want ErrInvalidNumRetained", err)
	}
}

// CompletedCheckpointStoreTest.java:68.
func TestStandaloneCompletedCheckpointStoreTest_testAddAndGetLatestCheckpoint(t *testing.T) {
	s := mustStore(t, Flink118, 4)
	if s.Len() != 0 || len(s.Checkpoints()) != 0 {
		t.Fatalf("new store holds %v", ids(s))
	}
	expected := []*CompletedCheckpoint{ckpt(0, checkpointProps), ckpt(1, checkpointProps)}
	for i, cp := range expected {
		if _, err := s.AddCheckpointAndSubsumeOldestOne(cp); err != nil {
			t.Fatal(err)
		}
		if s.Len() != i+1 || s.Latest() != cp {
			t.Errorf("after adding %d: %d retained, latest %v", cp.CheckpointID, s.Len(), s.Latest())
		}
	}
}

// CompletedCheckpointStoreTest.java:99: retaining 1, each add subsumes and discards the previous one.
func TestStandaloneCompletedCheckpointStoreTest_testAddCheckpointMoreThanMaxRetained(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	for i := range int64(4) {
		u, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(i, checkpointProps))
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		if i > 0 {
			want = []int64{i - 1}
		}
		if !cmp.Equal(want, u.Discarded) || s.Len() != 1 {
			t.Errorf("add %d: discarded %v (want %v), %d retained (want 1)", i, u.Discarded, want, s.Len())
		}
	}
}

// CompletedCheckpointStoreTest.java:135.
func TestStandaloneCompletedCheckpointStoreTest_testEmptyState(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	if s.Latest() != nil || len(s.Checkpoints()) != 0 || s.Len() != 0 {
		t.Errorf("empty store: latest %v, all %v, len %d", s.Latest(), s.Checkpoints(), s.Len())
	}
}

// CompletedCheckpointStoreTest.java:145.
func TestStandaloneCompletedCheckpointStoreTest_testGetAllCheckpoints(t *testing.T) {
	s := mustStore(t, Flink118, 4)
	var expected []*CompletedCheckpoint
	for i := range int64(4) {
		cp := ckpt(i, checkpointProps)
		expected = append(expected, cp)
		if _, err := s.AddCheckpointAndSubsumeOldestOne(cp); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Checkpoints(); !slices.Equal(got, expected) {
		t.Errorf("all checkpoints %v, want %v", idsOf(got), idsOf(expected))
	}
}

// CompletedCheckpointStoreTest.java:173: shutdown(FINISHED) empties the store and discards all.
func TestStandaloneCompletedCheckpointStoreTest_testDiscardAllCheckpoints(t *testing.T) {
	s := mustStore(t, Flink118, 4)
	for i := range int64(4) {
		if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(i, checkpointProps)); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.Shutdown(Finished)
	if err != nil {
		t.Fatal(err)
	}
	if s.Latest() != nil || len(s.Checkpoints()) != 0 || s.Len() != 0 {
		t.Errorf("after shutdown: latest %v, all %v, len %d", s.Latest(), s.Checkpoints(), s.Len())
	}
	if diff := cmp.Diff([]int64{0, 1, 2, 3}, u.Discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
}

// CompletedCheckpointStoreTest.java:206.
func TestStandaloneCompletedCheckpointStoreTest_testAcquireLatestCompletedCheckpointId(t *testing.T) {
	s := mustStore(t, Flink118, 1)
	if got := s.LatestCheckpointID(); got != 0 {
		t.Errorf("empty: %d, want 0", got)
	}
	for _, id := range []int64{2, 4} {
		if _, err := s.AddCheckpointAndSubsumeOldestOne(ckpt(id, checkpointProps)); err != nil {
			t.Fatal(err)
		}
		if got := s.LatestCheckpointID(); got != id {
			t.Errorf("after adding %d: %d", id, got)
		}
	}
}
