package model

import (
	"errors"
	"fmt"
	"slices"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// RestoreMode models org.apache.flink.runtime.jobgraph.RestoreMode (Flink ≥ 1.15): how a job
// started from a snapshot treats that snapshot's files. The zero value is NoClaim, Flink's
// RestoreMode.DEFAULT.
type RestoreMode uint8

const (
	// NoClaim is NO_CLAIM (the default): Flink does not take ownership; the snapshot is never
	// deleted and its shared files are never deleted by this job.
	NoClaim RestoreMode = iota
	// Claim is CLAIM: Flink takes ownership; the snapshot is subsumed and deleted like a
	// regular checkpoint.
	Claim
	// Legacy is LEGACY: the snapshot is kept, but shared files may be reused (pre-1.15
	// behaviour).
	Legacy
)

// String gives Flink's enum name: "CLAIM", "NO_CLAIM" or "LEGACY".
func (m RestoreMode) String() string {
	switch m {
	case NoClaim:
		return "NO_CLAIM"
	case Claim:
		return "CLAIM"
	case Legacy:
		return "LEGACY"
	}
	return fmt.Sprintf("RestoreMode(%d)", uint8(m))
}

// ErrUnknownRestoreMode is returned by ParseRestoreMode.
var ErrUnknownRestoreMode = errors.New("unknown restore mode (want CLAIM, NO_CLAIM or LEGACY)")

// ParseRestoreMode parses Flink's enum name.
func ParseRestoreMode(s string) (RestoreMode, error) {
	switch s {
	case "CLAIM":
		return Claim, nil
	case "NO_CLAIM":
		return NoClaim, nil
	case "LEGACY":
		return Legacy, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownRestoreMode, s)
}

// The completed-checkpoint store (SPEC §H.4): Flink 1.18's DefaultCompletedCheckpointStore with
// CheckpointSubsumeHelper and the CheckpointsCleaner's list of subsumed checkpoints, and
// release-1.10.1's StandaloneCompletedCheckpointStore. Each store owns its shared-state
// registry of the matching flavour.

// DefaultNumRetainedCheckpoints is the default of state.checkpoints.num-retained.
const DefaultNumRetainedCheckpoints = 1

// ErrInvalidNumRetained is the IllegalArgumentException "Must retain at least one checkpoint."
// of the store constructors.
var ErrInvalidNumRetained = errors.New("must retain at least one checkpoint")

// CompletedCheckpointStore holds the retained completed checkpoints, oldest first, and the
// shared-state registry: SharedStateRegistry for Flink 1.18, RefCountSharedStateRegistry for
// 1.10.1. Methods never delete anything; StoreUpdate says what Flink would delete. The zero
// value is an empty 1.18 store retaining one checkpoint.
type CompletedCheckpointStore struct {
	version     FlinkVersion
	maxRetained int
	checkpoints []*CompletedCheckpoint
	// subsumed models the CheckpointsCleaner's subsumedCheckpoints (1.18): removed from the store,
	// waiting until no retained checkpoint needs them.
	subsumed []*CompletedCheckpoint
	// restored holds, per checkpoint id, the properties recorded in the metadata of a snapshot
	// the job was restored from (CompletedCheckpoint.getRestoredProperties).
	restored    map[int64]*CheckpointProperties
	registry    *SharedStateRegistry
	refRegistry *RefCountSharedStateRegistry
	// ha is the HA state-handle store of a NewDefaultCompletedCheckpointStore (nil: standalone);
	// shut is its running flag, set by Shutdown (storelifecycle.go).
	ha   CheckpointStateHandleStore
	shut bool
}

// NewCompletedCheckpointStore returns an empty store for version v retaining maxRetained
// checkpoints (state.checkpoints.num-retained; ErrInvalidNumRetained below 1).
func NewCompletedCheckpointStore(v FlinkVersion, maxRetained int) (*CompletedCheckpointStore, error) {
	if !v.Known() {
		return nil, fmt.Errorf("%w: %v", ErrUnknownFlinkVersion, v)
	}
	if maxRetained < 1 {
		return nil, fmt.Errorf("%w (num-retained %d)", ErrInvalidNumRetained, maxRetained)
	}
	s := &CompletedCheckpointStore{version: v, maxRetained: maxRetained}
	if v != Flink1101 {
		s.registry = NewSharedStateRegistry()
	} else {
		s.refRegistry = NewRefCountSharedStateRegistry()
	}
	return s, nil
}

// init makes the zero value usable: one retained checkpoint, the registry of its version.
func (s *CompletedCheckpointStore) init() {
	if s.maxRetained < 1 {
		s.maxRetained = DefaultNumRetainedCheckpoints
	}
	if s.version == Flink1101 {
		if s.refRegistry == nil {
			s.refRegistry = NewRefCountSharedStateRegistry()
		}
	} else if s.registry == nil {
		s.registry = NewSharedStateRegistry()
	}
}

// Version is the Flink version the store behaves as.
func (s *CompletedCheckpointStore) Version() FlinkVersion { return s.version }

// MaxRetained is getMaxNumberOfRetainedCheckpoints.
func (s *CompletedCheckpointStore) MaxRetained() int {
	return max(s.maxRetained, DefaultNumRetainedCheckpoints)
}

// Checkpoints models getAllCheckpoints: the retained checkpoints, oldest first (a copy of the
// list; the checkpoints are shared).
func (s *CompletedCheckpointStore) Checkpoints() []*CompletedCheckpoint {
	return append([]*CompletedCheckpoint(nil), s.checkpoints...)
}

// Len is getNumberOfRetainedCheckpoints.
func (s *CompletedCheckpointStore) Len() int { return len(s.checkpoints) }

// Latest models getLatestCheckpoint(): the newest retained checkpoint, or nil.
func (s *CompletedCheckpointStore) Latest() *CompletedCheckpoint {
	if len(s.checkpoints) == 0 {
		return nil
	}
	return s.checkpoints[len(s.checkpoints)-1]
}

// LatestPreferringCheckpoint models 1.10.1's getLatestCheckpoint(isPreferCheckpointForRecovery):
// with prefer set and more than one retained checkpoint, the newest one that is not a savepoint
// (falling back to the newest); otherwise the newest. nil when the store is empty.
func (s *CompletedCheckpointStore) LatestPreferringCheckpoint(prefer bool) *CompletedCheckpoint {
	latest := s.Latest()
	if !prefer || len(s.checkpoints) < 2 {
		return latest
	}
	for i := len(s.checkpoints) - 1; i >= 0; i-- {
		if !s.checkpoints[i].Properties.Savepoint {
			return s.checkpoints[i]
		}
	}
	return latest
}

// LoadRecovered models a new JobManager loading the retained checkpoints from HA storage into an
// empty store (1.10.1 ZooKeeperCompletedCheckpointStore.recover, 1.18 the
// DefaultCompletedCheckpointStore built from the retrieved checkpoints): they are appended
// oldest first as they are, without subsumption or registration, even beyond MaxRetained — the
// capacity applies from the next added checkpoint on. Register their shared state with
// RecoverAfterJobManagerFailover (1.18) or a restore (1.10.1).
func (s *CompletedCheckpointStore) LoadRecovered(cps []*CompletedCheckpoint) error {
	s.init()
	if len(s.checkpoints) > 0 {
		return errors.New("model: LoadRecovered needs an empty store")
	}
	for _, cp := range cps {
		if cp == nil {
			return errors.New("checkpoint must not be nil")
		}
	}
	s.checkpoints = append(s.checkpoints, cps...)
	return nil
}

// Registry is the 1.18 shared-state registry (nil for a 1.10.1 store).
func (s *CompletedCheckpointStore) Registry() *SharedStateRegistry {
	s.init()
	return s.registry
}

// RefCountRegistry is the 1.10.1 shared-state registry (nil for a 1.18 store).
func (s *CompletedCheckpointStore) RefCountRegistry() *RefCountSharedStateRegistry {
	s.init()
	return s.refRegistry
}

// PendingCleanup lists (1.18) the ids of subsumed checkpoints the CheckpointsCleaner still holds
// because a retained checkpoint may need their files, oldest first.
func (s *CompletedCheckpointStore) PendingCleanup() []int64 {
	var ids []int64
	for _, c := range s.subsumed {
		ids = append(ids, c.CheckpointID)
	}
	return ids
}

// StoreUpdate says what adding a checkpoint did and what Flink deletes as a consequence.
type StoreUpdate struct {
	// Subsumed lists the checkpoints removed from the store, oldest first.
	Subsumed []int64
	// Discarded lists the checkpoints whose own files (metadata, private and exclusive state,
	// their directory) are deleted now: those removed earlier or now whose properties discard
	// subsumed checkpoints, once (1.18) no retained checkpoint needs them.
	Discarded []int64
	// DiscardedPointers are the discarded checkpoints' external pointers (their directories),
	// parallel to Discarded.
	DiscardedPointers []string
	// DiscardedShared lists the shared files deleted, in the order Flink schedules them.
	DiscardedShared []StreamHandle
	// CheckpointsInUse (1.18) is what UnregisterUnusedState returned: checkpoints whose
	// directories must stay because state they created is still used.
	CheckpointsInUse []int64
	// IgnoredError is the first error Flink logs and ignores while discarding (1.10.1:
	// unregistering shared state of a subsumed checkpoint; 1.18 with a state-handle store:
	// removing a subsumed or shut-down checkpoint's HA entry).
	IgnoredError error
}

// AddCheckpointAndSubsumeOldestOne adds cp as the newest checkpoint and subsumes old ones.
//
// 1.18 (DefaultCompletedCheckpointStore.addCheckpointAndSubsumeOldestOne): while the store
// holds more than MaxRetained, walk from the oldest to the newest removing each checkpoint that
// is not the newest and is a savepoint, or the newest is a synchronous stop-with-savepoint, or it
// is not the newest non-savepoint checkpoint — the walk goes on past ones it keeps. Removed
// checkpoints go to the cleaner. Then, if a non-savepoint checkpoint remains, the oldest such
// id L drives SharedStateRegistry.UnregisterUnusedState(L), and every cleaner entry with id
// below L that is not in use leaves the cleaner, discarded if its properties discard subsumed
// checkpoints.
//
// 1.10.1 (StandaloneCompletedCheckpointStore.addCheckpoint): while the store holds more than
// MaxRetained, the oldest checkpoint is removed and, if its properties say so, discarded, which
// unregisters its incremental handles' shared files from the registry.
//
// A 1.18 store with a state-handle store (NewDefaultCompletedCheckpointStore) first persists
// cp there — a failed write returns the error and leaves the store unchanged — and removes the
// HA entries of subsumed checkpoints; after Shutdown it refuses with ErrStoreShutDown.
func (s *CompletedCheckpointStore) AddCheckpointAndSubsumeOldestOne(cp *CompletedCheckpoint) (StoreUpdate, error) {
	s.init()
	if cp == nil {
		return StoreUpdate{}, errors.New("checkpoint must not be nil")
	}
	var u StoreUpdate
	if s.version == Flink118 && s.ha != nil {
		if s.shut {
			return u, ErrStoreShutDown
		}
		// Now add the new one. If it fails, we don't want to lose existing data.
		if err := s.ha.AddAndLock(cp.CheckpointID, cp); err != nil {
			return u, err
		}
	}
	s.checkpoints = append(s.checkpoints, cp)
	capacity := s.maxRetained
	if mutant.On(mutant.RetainOneExtra) {
		capacity++
	}
	if s.version == Flink1101 {
		for len(s.checkpoints) > capacity {
			old := s.checkpoints[0]
			s.checkpoints[0] = nil
			s.checkpoints = s.checkpoints[1:]
			u.Subsumed = append(u.Subsumed, old.CheckpointID)
			if old.Properties.DiscardSubsumed {
				u.Discarded = append(u.Discarded, old.CheckpointID)
				u.DiscardedPointers = append(u.DiscardedPointers, old.ExternalPointer)
				d, err := s.refRegistry.DiscardAll(old.Operators)
				u.DiscardedShared = append(u.DiscardedShared, d...)
				if err != nil && u.IgnoredError == nil {
					u.IgnoredError = err
				}
			}
		}
		return u, nil
	}

	if len(s.checkpoints) > capacity {
		latest := s.checkpoints[len(s.checkpoints)-1]
		var latestNonSavepoint *CompletedCheckpoint
		for i := len(s.checkpoints) - 1; i >= 0; i-- {
			if !s.checkpoints[i].Properties.Savepoint {
				latestNonSavepoint = s.checkpoints[i]
				break
			}
		}
		kept := make([]*CompletedCheckpoint, 0, len(s.checkpoints))
		n := len(s.checkpoints)
		for _, c := range s.checkpoints {
			if n > capacity && canSubsume(c, latest, latestNonSavepoint) {
				n--
				u.Subsumed = append(u.Subsumed, c.CheckpointID)
				s.subsumed = append(s.subsumed, c)
				if s.ha != nil {
					if _, err := s.ha.ReleaseAndTryRemove(c.CheckpointID); err != nil && u.IgnoredError == nil {
						u.IgnoredError = err
					}
				}
				continue
			}
			kept = append(kept, c)
		}
		s.checkpoints = kept
	}
	for k, c := range s.checkpoints {
		if c.Properties.Savepoint {
			continue
		}
		if mutant.On(mutant.SharedDiscardedWhileUsed) {
			for _, d := range s.checkpoints[k:] {
				if !d.Properties.Savepoint {
					c = d
				}
			}
		}
		s.cleanSubsumed(c.CheckpointID, &u)
		break
	}
	return u, nil
}

// canSubsume models CheckpointSubsumeHelper.canSubsume.
func canSubsume(next, latest, latestNonSavepoint *CompletedCheckpoint) bool {
	switch {
	case next == latest:
		return false
	case next.Properties.Savepoint:
		return true
	case latest.Properties.Synchronous:
		return true
	}
	return latestNonSavepoint != nil && latestNonSavepoint != next
}

// EntersStore reports whether a snapshot completed while the job runs is added to the store:
// 1.18 adds checkpoints only (FLINK-25191: savepoints, including stop-with-savepoint, are not
// used for recovery); 1.10.1 adds savepoints too.
func EntersStore(v FlinkVersion, p CheckpointProperties) bool {
	return v == Flink1101 || !p.Savepoint
}

// CompleteCheckpoint models what CheckpointCoordinator.completePendingCheckpoint does with the
// store and registry once every task acknowledged: 1.18 registers the shared state of a
// checkpoint (not of a savepoint: "Flink is not in charge of savepoints' lifecycle") under its
// id and adds it (EntersStore); 1.10.1 registers every snapshot's shared state and adds it.
// For a 1.18 savepoint nothing happens.
func (s *CompletedCheckpointStore) CompleteCheckpoint(cp *CompletedCheckpoint) (StoreUpdate, error) {
	s.init()
	if cp == nil {
		return StoreUpdate{}, errors.New("checkpoint must not be nil")
	}
	if s.version == Flink1101 {
		dup, err := s.refRegistry.RegisterAll(cp.Operators)
		if err != nil {
			return StoreUpdate{DiscardedShared: dup}, err
		}
		u, err := s.AddCheckpointAndSubsumeOldestOne(cp)
		u.DiscardedShared = append(dup, u.DiscardedShared...)
		return u, err
	}
	if !EntersStore(s.version, cp.Properties) {
		return StoreUpdate{}, nil
	}
	if err := s.registry.RegisterAll(cp.Operators, cp.CheckpointID); err != nil {
		return StoreUpdate{}, err
	}
	return s.AddCheckpointAndSubsumeOldestOne(cp)
}

// RecoverAfterJobManagerFailover models a new JobManager rebuilding the store from HA storage
// (1.18: DefaultCompletedCheckpointStoreUtils.retrieveCompletedCheckpoints and
// SharedStateRegistryFactory.create): the retained checkpoints stay, a fresh registry registers
// each of them with registerSharedStatesAfterRestored(registry, mode) — skipped for unclaimed
// snapshots — where mode is the job's restore mode (NoClaim unless it was started with another),
// and the old CheckpointsCleaner's pending list is lost. For 1.10.1 this only resets the
// cleaner list: the registry is rebuilt by every restore (Coordinator.RestoreLatestCheckpointedState).
func (s *CompletedCheckpointStore) RecoverAfterJobManagerFailover(mode RestoreMode) error {
	s.init()
	s.subsumed = nil
	if s.version == Flink1101 {
		return nil
	}
	s.registry.Close()
	s.registry = NewSharedStateRegistry()
	for _, c := range s.checkpoints {
		if c.Properties.Unclaimed {
			continue
		}
		if err := s.registry.RegisterAllAfterRestored(c.CheckpointID, c.Operators, s.restored[c.CheckpointID], mode); err != nil {
			return err
		}
	}
	return nil
}

// PendingSnapshot is a snapshot that was triggered and has not completed (PendingCheckpoint).
type PendingSnapshot struct {
	CheckpointID int64
	Properties   CheckpointProperties
}

// SubsumedPendingSnapshots models CheckpointCoordinator.dropSubsumedCheckpoints after snapshot
// completedID with properties completed completed: the ids, ascending, of the pending snapshots
// aborted as subsumed. 1.18 drops only after a checkpoint or a synchronous stop-with-savepoint
// completed, and only pending snapshots that are not savepoints (PendingCheckpoint.canBeSubsumed);
// 1.10.1 drops after any completion every pending snapshot that is not forced.
func SubsumedPendingSnapshots(v FlinkVersion, completedID int64, completed CheckpointProperties, pending []PendingSnapshot) []int64 {
	if v != Flink1101 && completed.Savepoint && !completed.Synchronous {
		return nil
	}
	var ids []int64
	for _, p := range pending {
		if p.CheckpointID >= completedID {
			continue
		}
		if (v != Flink1101 && !p.Properties.Savepoint) || (v == Flink1101 && !p.Properties.Forced) {
			ids = append(ids, p.CheckpointID)
		}
	}
	slices.Sort(ids)
	return ids
}
