package oracle

// Store is the oracle's own completed-checkpoint store and checkpoint ID counter, one per
// JobManager's CheckpointCoordinator: which snapshots Flink retains after each completion or
// restore (SPEC §H.4), which of those it drops discards their files, and the ID the next triggered
// checkpoint gets (SPEC §H.1: a fresh counter starts at 1; a restore of snapshot s resets it to
// s + 1). The zero Store is not usable: call NewStore.
type Store struct {
	modern   bool // Flink ≥ 1.15 subsumption and store admission (else 1.10.1)
	capacity int
	entries  []Snapshot // oldest first
	next     int64
}

// Snapshot is a completed snapshot the store retains.
type Snapshot struct {
	ID int64
	// SavepointLike: the snapshot has savepoint properties (a savepoint; a snapshot restored in
	// NO_CLAIM mode, unclaimed, or on 1.10.1), so modern subsumption may drop it whenever it is not
	// the newest.
	SavepointLike bool
	// Discard: subsuming the snapshot deletes its files at once (a regular checkpoint). A snapshot
	// restored in CLAIM mode is Flink's too, but its directory survives while checkpoints still use
	// the shared files it created (SPEC §H.3, the registry's checkpoints in use), which the oracle
	// does not track: it is not Discard.
	Discard bool
}

// NewStore is the store and counter of a new CheckpointCoordinator: empty, next ID 1. modern
// selects Flink ≥ 1.15's rules (else 1.10.1's); retained is state.checkpoints.num-retained.
func NewStore(modern bool, retained int) *Store {
	s := &Store{modern: modern, next: 1}
	s.setCapacity(retained)
	return s
}

// setCapacity applies num-retained; Flink falls back to the default of 1 for a value below 1.
func (s *Store) setCapacity(retained int) { s.capacity = max(1, retained) }

// Trigger hands out the next checkpoint ID (CheckpointIDCounter.getAndIncrement): a checkpoint or
// savepoint is triggered, whether it completes or is declined.
func (s *Store) Trigger() int64 {
	id := s.next
	s.next++
	return id
}

// Next is the ID the next triggered checkpoint gets.
func (s *Store) Next() int64 { return s.next }

// CompleteCheckpoint adds completed checkpoint id and subsumes; it returns the snapshots dropped.
func (s *Store) CompleteCheckpoint(id int64) []Snapshot {
	return s.add(Snapshot{ID: id, Discard: true})
}

// CompleteSavepoint records a savepoint completed while the job runs: since Flink 1.15
// (FLINK-25191) it does not enter the store; 1.10.1 adds it (never discarded). It returns the
// snapshots dropped.
func (s *Store) CompleteSavepoint(id int64) []Snapshot {
	if s.modern {
		return nil
	}
	return s.add(Snapshot{ID: id, SavepointLike: true})
}

// Restore records a restore of snapshot id into this (new) coordinator
// (CheckpointCoordinator.restoreSavepoint): the snapshot enters the store with the properties of
// the restore mode (claim: the job's regular checkpoint properties; otherwise unclaimed; on 1.10.1
// savepoint properties, whatever the mode) and the counter restarts at id + 1. It returns the
// snapshots dropped.
func (s *Store) Restore(id int64, claim bool) []Snapshot {
	e := Snapshot{ID: id, SavepointLike: !(s.modern && claim)}
	removed := s.add(e)
	s.next = id + 1
	return removed
}

// Recover models a new JobManager taking over (JobManager failover): it loads the retained
// snapshots as they are, even beyond a lowered num-retained, which applies from the next added
// checkpoint on, and keeps the counter (both live in HA storage).
func (s *Store) Recover(retained int) { s.setCapacity(retained) }

// Retained lists the IDs of the snapshots the store retains, oldest first.
func (s *Store) Retained() []int64 {
	out := make([]int64, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.ID
	}
	return out
}

// add appends e and subsumes (SPEC §H.4). 1.10.1: while over capacity, drop the oldest, whatever
// it is. Modern (CheckpointSubsumeHelper): walk from the oldest to the newest, dropping while over
// capacity every snapshot that is not the newest and is savepoint-like or not the newest
// non-savepoint checkpoint; the walk goes past snapshots it may not drop.
func (s *Store) add(e Snapshot) []Snapshot {
	s.entries = append(s.entries, e)
	var removed []Snapshot
	if !s.modern {
		for len(s.entries) > s.capacity {
			removed = append(removed, s.entries[0])
			s.entries = s.entries[1:]
		}
		return removed
	}
	latest := len(s.entries) - 1
	latestCheckpoint := -1 // index of the newest non-savepoint snapshot
	for i, x := range s.entries {
		if !x.SavepointLike {
			latestCheckpoint = i
		}
	}
	kept := make([]Snapshot, 0, len(s.entries))
	count := len(s.entries)
	for i, x := range s.entries {
		if count > s.capacity && i != latest && (x.SavepointLike || i != latestCheckpoint) {
			removed = append(removed, x)
			count--
			continue
		}
		kept = append(kept, x)
	}
	s.entries = kept
	return removed
}
