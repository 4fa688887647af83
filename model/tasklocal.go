package model

import (
	"maps"
	"slices"
)

// The TaskManager side of local recovery (SPEC §J.2): Flink 1.18's TaskLocalStateStoreImpl, which
// keeps one subtask's local state snapshots by checkpoint id, persists each as a task-state
// snapshot file in the subtask's local recovery directory, and prunes them as checkpoints are
// confirmed or aborted.

// LocalRecoveryDirectory models the local recovery directories of one subtask (allocation, job,
// vertex, subtask; LocalRecoveryDirectoryProviderImpl) on a TaskManager's disk: per checkpoint, a
// directory with the task-state snapshot file TaskLocalStateStoreImpl writes. It outlives a
// TaskLocalStateStore, so that a new store over the same directory finds the files. The zero
// value is an empty directory.
type LocalRecoveryDirectory struct {
	files map[int64]localSnapshotFile
}

type localSnapshotFile struct {
	snapshot TaskLocalSnapshot
	corrupt  bool
}

// HasCheckpoint reports whether the checkpoint's directory (with its snapshot file) exists.
func (d *LocalRecoveryDirectory) HasCheckpoint(checkpointID int64) bool {
	_, ok := d.files[checkpointID]
	return ok
}

// Checkpoints lists the checkpoint ids that have a directory, ascending.
func (d *LocalRecoveryDirectory) Checkpoints() []int64 {
	return slices.Sorted(maps.Keys(d.files))
}

// Corrupt models overwriting the checkpoint's task-state snapshot file with bytes that do not
// deserialise; it reports whether the file existed.
func (d *LocalRecoveryDirectory) Corrupt(checkpointID int64) bool {
	f, ok := d.files[checkpointID]
	if ok {
		f.corrupt = true
		d.files[checkpointID] = f
	}
	return ok
}

// TaskLocalStateStore models TaskLocalStateStoreImpl (1.18): the local state snapshots of one
// subtask by checkpoint id, in memory (a TreeMap) and on disk (a LocalRecoveryDirectory). Methods
// return the checkpoint ids whose local state they discard (snapshot and directory deleted),
// ascending; the model deletes the directory entries itself. Create it with NewTaskLocalStateStore.
type TaskLocalStateStore struct {
	dir *LocalRecoveryDirectory
	// stored is storedTaskStateByCheckpointID; a nil value is the NULL_DUMMY of a subtask that
	// reported no local state.
	stored   map[int64]*TaskLocalSnapshot
	disposed bool
}

// NewTaskLocalStateStore returns a store over dir (a new directory when nil), with nothing in
// memory: snapshots persisted by an earlier store are read from dir on retrieval.
func NewTaskLocalStateStore(dir *LocalRecoveryDirectory) *TaskLocalStateStore {
	if dir == nil {
		dir = &LocalRecoveryDirectory{}
	}
	return &TaskLocalStateStore{dir: dir, stored: map[int64]*TaskLocalSnapshot{}}
}

// Directory is the store's local recovery directory.
func (s *TaskLocalStateStore) Directory() *LocalRecoveryDirectory { return s.dir }

// StoreLocalState models storeLocalState(checkpointId, localState): keep snap (nil: the subtask
// has no local state, NULL_DUMMY) and persist it as the checkpoint's snapshot file. A snapshot
// already stored under the id is discarded — which, as in Flink, deletes the checkpoint's
// directory including the file just written. After Dispose the new snapshot itself is discarded.
func (s *TaskLocalStateStore) StoreLocalState(checkpointID int64, snap *TaskLocalSnapshot) (discarded []int64) {
	if s.disposed {
		return []int64{checkpointID}
	}
	_, had := s.stored[checkpointID]
	s.stored[checkpointID] = snap
	if s.dir.files == nil {
		s.dir.files = map[int64]localSnapshotFile{}
	}
	f := localSnapshotFile{snapshot: TaskLocalSnapshot{CheckpointID: checkpointID}}
	if snap != nil {
		f.snapshot = cloneLocalSnapshot(snap)
	}
	s.dir.files[checkpointID] = f
	if had {
		s.discard(checkpointID)
		return []int64{checkpointID}
	}
	return nil
}

// RetrieveLocalState models retrieveLocalState(checkpointID): the stored snapshot, else the one
// read from the checkpoint's snapshot file (a copy, kept in memory from then on), else nil. A
// file that cannot be read is deleted with its directory, and nil is returned. NULL_DUMMY gives nil.
func (s *TaskLocalStateStore) RetrieveLocalState(checkpointID int64) *TaskLocalSnapshot {
	if snap, ok := s.stored[checkpointID]; ok {
		return snap
	}
	f, ok := s.dir.files[checkpointID]
	if !ok {
		return nil
	}
	if f.corrupt {
		s.discard(checkpointID)
		return nil
	}
	c := cloneLocalSnapshot(&f.snapshot)
	s.stored[checkpointID] = &c
	return &c
}

// ConfirmCheckpoint models confirmCheckpoint(confirmedCheckpointId): discard every snapshot of an
// older checkpoint (walking ids upwards, stopping at the first that is not older).
func (s *TaskLocalStateStore) ConfirmCheckpoint(confirmedCheckpointID int64) []int64 {
	return s.prune(func(id int64) bool { return id < confirmedCheckpointID }, true)
}

// AbortCheckpoint models abortCheckpoint(abortedCheckpointId): discard that checkpoint's snapshot.
func (s *TaskLocalStateStore) AbortCheckpoint(abortedCheckpointID int64) []int64 {
	return s.prune(func(id int64) bool { return id == abortedCheckpointID }, false)
}

// PruneMatchingCheckpoints models pruneMatchingCheckpoints(matcher): discard every snapshot
// whose checkpoint id matches.
func (s *TaskLocalStateStore) PruneMatchingCheckpoints(matcher func(checkpointID int64) bool) []int64 {
	return s.prune(matcher, false)
}

// Dispose models dispose(): discard every stored snapshot and delete the subtask's whole local
// recovery directory; later stores are discarded at once.
func (s *TaskLocalStateStore) Dispose() []int64 {
	s.disposed = true
	ids := slices.Sorted(maps.Keys(s.stored))
	clear(s.stored)
	clear(s.dir.files)
	return ids
}

// prune models pruneCheckpoints(pruningChecker, breakOnceCheckerFalse) over the TreeMap.
func (s *TaskLocalStateStore) prune(match func(int64) bool, breakOnceFalse bool) []int64 {
	var out []int64
	for _, id := range slices.Sorted(maps.Keys(s.stored)) {
		if match(id) {
			out = append(out, id)
			delete(s.stored, id)
			s.discard(id)
		} else if breakOnceFalse {
			break
		}
	}
	return out
}

// discard models discardLocalStateForCheckpoint: the checkpoint's directory is deleted.
func (s *TaskLocalStateStore) discard(checkpointID int64) { delete(s.dir.files, checkpointID) }

func cloneLocalSnapshot(s *TaskLocalSnapshot) TaskLocalSnapshot {
	return TaskLocalSnapshot{CheckpointID: s.CheckpointID, Operators: slices.Clone(s.Operators)}
}
