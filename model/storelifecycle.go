package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// The completed-checkpoint store's lifecycle (Flink 1.18; SPEC §H.4): the HA state-handle store
// DefaultCompletedCheckpointStore writes through, recovering the store from it
// (DefaultCompletedCheckpointStoreUtils.retrieveCompletedCheckpoints), and shutting the store
// down by job status (DefaultCompletedCheckpointStore.shutdown, StandaloneCompletedCheckpointStore.
// shutdown, and release-1.10.1's StandaloneCompletedCheckpointStore.shutdown).

// JobStatus models api.common.JobStatus. The zero value is invalid.
type JobStatus uint8

const (
	// Initializing is INITIALIZING.
	Initializing JobStatus = iota + 1
	// Created is CREATED.
	Created
	// Running is RUNNING.
	Running
	// Failing is FAILING.
	Failing
	// Failed is FAILED (globally terminal).
	Failed
	// Cancelling is CANCELLING.
	Cancelling
	// Canceled is CANCELED (globally terminal).
	Canceled
	// Finished is FINISHED (globally terminal).
	Finished
	// Restarting is RESTARTING.
	Restarting
	// Suspended is SUSPENDED (locally terminal: another JobManager may resume the job).
	Suspended
	// Reconciling is RECONCILING.
	Reconciling
)

var jobStatusNames = [...]string{"", "INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED", "CANCELLING",
	"CANCELED", "FINISHED", "RESTARTING", "SUSPENDED", "RECONCILING"}

// JobStatuses lists every JobStatus in Flink's declaration order (JobStatus.values()).
func JobStatuses() []JobStatus {
	out := make([]JobStatus, 0, len(jobStatusNames)-1)
	for s := Initializing; s <= Reconciling; s++ {
		out = append(out, s)
	}
	return out
}

// String gives Flink's enum name.
func (s JobStatus) String() string {
	if s >= Initializing && int(s) < len(jobStatusNames) {
		return jobStatusNames[s]
	}
	return fmt.Sprintf("JobStatus(%d)", uint8(s))
}

// IsGloballyTerminalState models JobStatus.isGloballyTerminalState: FAILED, CANCELED, FINISHED.
func (s JobStatus) IsGloballyTerminalState() bool {
	return s == Failed || s == Canceled || s == Finished
}

// CheckpointRetentionPolicy models checkpoint.CheckpointRetentionPolicy: what happens to a
// regular checkpoint's files when the job terminates. The zero value is Flink's default,
// NEVER_RETAIN_AFTER_TERMINATION.
type CheckpointRetentionPolicy uint8

const (
	// NeverRetainAfterTermination is NEVER_RETAIN_AFTER_TERMINATION.
	NeverRetainAfterTermination CheckpointRetentionPolicy = iota
	// RetainOnFailure is RETAIN_ON_FAILURE.
	RetainOnFailure
	// RetainOnCancellation is RETAIN_ON_CANCELLATION.
	RetainOnCancellation
)

// String gives Flink's enum name.
func (p CheckpointRetentionPolicy) String() string {
	switch p {
	case NeverRetainAfterTermination:
		return "NEVER_RETAIN_AFTER_TERMINATION"
	case RetainOnFailure:
		return "RETAIN_ON_FAILURE"
	case RetainOnCancellation:
		return "RETAIN_ON_CANCELLATION"
	}
	return fmt.Sprintf("CheckpointRetentionPolicy(%d)", uint8(p))
}

// ShouldBeDiscardedOnShutdown models CompletedCheckpoint.shouldBeDiscardedOnShutdown with the
// discard flags of CheckpointProperties: a regular checkpoint (DiscardSubsumed, not a savepoint
// or unclaimed snapshot) is discarded on FINISHED; on CANCELED unless RETAIN_ON_CANCELLATION; on
// FAILED under NEVER_RETAIN_AFTER_TERMINATION only; on SUSPENDED unless RETAIN_ON_CANCELLATION.
// Savepoints and unclaimed snapshots are never discarded; no other status discards.
func (p CheckpointProperties) ShouldBeDiscardedOnShutdown(s JobStatus) bool {
	if !p.DiscardSubsumed || p.Savepoint || p.Unclaimed {
		return false
	}
	switch s {
	case Finished:
		return true
	case Canceled, Suspended:
		return p.Retention != RetainOnCancellation
	case Failed:
		return p.Retention == NeverRetainAfterTermination
	}
	return false
}

// CheckpointStateHandleStore models the StateHandleStore<CompletedCheckpoint> of a highly
// available DefaultCompletedCheckpointStore (ZooKeeper, Kubernetes ConfigMaps): the pointers to
// the retained checkpoints, with locks. Errors are the store's failures.
type CheckpointStateHandleStore interface {
	// AddAndLock persists the new checkpoint (addAndLock).
	AddAndLock(checkpointID int64, cp *CompletedCheckpoint) error
	// ReleaseAndTryRemove removes a checkpoint's entry (releaseAndTryRemove); false when it is
	// still locked by another JobManager.
	ReleaseAndTryRemove(checkpointID int64) (bool, error)
	// ClearEntries removes every entry (clearEntries, on a globally terminal shutdown).
	ClearEntries() error
	// ReleaseAll releases this JobManager's locks, keeping the entries (releaseAll, on suspension).
	ReleaseAll() error
}

// RetrievedCheckpoint is one entry of StateHandleStore.getAllAndLock: its name (the checkpoint
// id, zero-padded by the HA services so names sort by id) and the result of retrieving its state
// handle (RetrievableStateHandle.retrieveState): the checkpoint, or the error reading it.
type RetrievedCheckpoint struct {
	Name       string
	Checkpoint *CompletedCheckpoint
	Err        error
}

// ErrCheckpointRetrieval matches the FlinkException of a checkpoint whose state handle cannot be
// read while the store is recovered.
var ErrCheckpointRetrieval = errors.New("could not retrieve checkpoint from state handle")

// RetrieveCompletedCheckpoints models DefaultCompletedCheckpointStoreUtils.
// retrieveCompletedCheckpoints: the entries sorted by name, each retrieved; a broken one fails
// the whole recovery (it is not skipped: the job must not silently restore an older checkpoint),
// with an error matching ErrCheckpointRetrieval and wrapping the cause.
func RetrieveCompletedCheckpoints(entries []RetrievedCheckpoint) ([]*CompletedCheckpoint, error) {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b RetrievedCheckpoint) int { return strings.Compare(a.Name, b.Name) })
	out := make([]*CompletedCheckpoint, 0, len(sorted))
	for _, e := range sorted {
		if e.Err != nil {
			return nil, fmt.Errorf("%w under %s: this indicates that the retrieved state handle is broken; try cleaning the state handle store: %w",
				ErrCheckpointRetrieval, e.Name, e.Err)
		}
		if e.Checkpoint == nil {
			return nil, fmt.Errorf("%w under %s: nil checkpoint", ErrCheckpointRetrieval, e.Name)
		}
		out = append(out, e.Checkpoint)
	}
	return out, nil
}

// NewDefaultCompletedCheckpointStore models the 1.18 DefaultCompletedCheckpointStore of an HA
// setup: retaining maxRetained checkpoints, writing through ha, holding the recovered
// checkpoints (RetrieveCompletedCheckpoints) as they are, with a fresh registry. Register the
// recovered checkpoints' shared state with RecoverAfterJobManagerFailover.
func NewDefaultCompletedCheckpointStore(maxRetained int, ha CheckpointStateHandleStore, recovered []*CompletedCheckpoint) (*CompletedCheckpointStore, error) {
	if ha == nil {
		return nil, errors.New("model: NewDefaultCompletedCheckpointStore needs a CheckpointStateHandleStore")
	}
	s, err := NewCompletedCheckpointStore(Flink118, maxRetained)
	if err != nil {
		return nil, err
	}
	if err := s.LoadRecovered(recovered); err != nil {
		return nil, err
	}
	s.ha = ha
	return s, nil
}

// ErrStoreShutDown is the IllegalStateException "Checkpoint store has already been shutdown." of
// DefaultCompletedCheckpointStore.addCheckpointAndSubsumeOldestOne after Shutdown.
var ErrStoreShutDown = errors.New("checkpoint store has already been shutdown")

// Shutdown models CompletedCheckpointStore.shutdown(jobStatus, checkpointsCleaner). The store is
// empty afterwards in every case; StoreUpdate lists what is deleted (Subsumed is empty).
//
// 1.18 with a state-handle store (DefaultCompletedCheckpointStore): a globally terminal status
// closes the registry and removes each checkpoint's HA entry, discarding the checkpoint when
// ShouldBeDiscardedOnShutdown; the lowest retained (not discarded) checkpoint id — or
// Long.MAX_VALUE when all are discarded — drives UnregisterUnusedState and the cleaner's pending
// list, so shared files only retained checkpoints use survive; then ClearEntries. Any other
// status (suspension) only releases the HA locks: nothing is discarded. A second Shutdown does
// nothing; adding a checkpoint afterwards fails with ErrStoreShutDown. A failing HA removal is
// logged by Flink: the checkpoint is then kept (not discarded) if it should be discarded, and
// counted as retained otherwise.
//
// 1.18 without one (StandaloneCompletedCheckpointStore, no HA): every checkpoint that
// ShouldBeDiscardedOnShutdown is discarded, whatever the status (a suspended standalone job cannot
// be resumed); the shared state of discarded checkpoints is unregistered on a globally terminal
// status only.
//
// 1.10.1 (StandaloneCompletedCheckpointStore): every checkpoint that ShouldBeDiscardedOnShutdown
// is discarded, releasing its shared files from the reference-counting registry.
func (s *CompletedCheckpointStore) Shutdown(status JobStatus) (StoreUpdate, error) {
	s.init()
	var u StoreUpdate
	discard := func(c *CompletedCheckpoint) {
		u.Discarded = append(u.Discarded, c.CheckpointID)
		u.DiscardedPointers = append(u.DiscardedPointers, c.ExternalPointer)
	}
	if s.version == Flink1101 {
		for _, c := range s.checkpoints {
			if c.Properties.ShouldBeDiscardedOnShutdown(status) {
				discard(c)
				d, err := s.refRegistry.DiscardAll(c.Operators)
				u.DiscardedShared = append(u.DiscardedShared, d...)
				if err != nil && u.IgnoredError == nil {
					u.IgnoredError = err
				}
			}
		}
		clear(s.checkpoints)
		s.checkpoints = nil
		return u, nil
	}
	if status.IsGloballyTerminalState() {
		s.registry.Close() // AbstractCompleteCheckpointStore.shutdown
	}
	if s.ha == nil {
		lowestRetained := int64(1<<63 - 1)
		for _, c := range s.checkpoints {
			if c.Properties.ShouldBeDiscardedOnShutdown(status) {
				discard(c)
			} else {
				lowestRetained = min(lowestRetained, c.CheckpointID)
			}
		}
		clear(s.checkpoints)
		s.checkpoints = nil
		if status.IsGloballyTerminalState() {
			s.cleanSubsumed(lowestRetained, &u)
		}
		return u, nil
	}
	if s.shut {
		return u, nil
	}
	s.shut = true
	if !status.IsGloballyTerminalState() {
		clear(s.checkpoints)
		s.checkpoints = nil
		return u, s.ha.ReleaseAll()
	}
	lowestRetained := int64(1<<63 - 1)
	for _, c := range s.checkpoints {
		should := c.Properties.ShouldBeDiscardedOnShutdown(status)
		removed, err := s.ha.ReleaseAndTryRemove(c.CheckpointID)
		if err != nil && u.IgnoredError == nil {
			u.IgnoredError = err
		}
		if err == nil && removed && should {
			discard(c)
		}
		if !should {
			lowestRetained = min(lowestRetained, c.CheckpointID)
		}
	}
	clear(s.checkpoints)
	s.checkpoints = nil
	if err := s.ha.ClearEntries(); err != nil {
		return u, err
	}
	s.cleanSubsumed(lowestRetained, &u)
	return u, nil
}

// cleanSubsumed models CheckpointsCleaner.cleanSubsumedCheckpoints(lowest,
// registry.unregisterUnusedState(lowest)) as AddCheckpointAndSubsumeOldestOne does it.
func (s *CompletedCheckpointStore) cleanSubsumed(lowest int64, u *StoreUpdate) {
	res := s.registry.UnregisterUnusedState(lowest)
	u.DiscardedShared = append(u.DiscardedShared, res.Discarded...)
	u.CheckpointsInUse = res.CheckpointsInUse
	waiting := s.subsumed[:0]
	for _, old := range s.subsumed {
		if old.CheckpointID < lowest && !slices.Contains(res.CheckpointsInUse, old.CheckpointID) {
			if old.Properties.DiscardSubsumed && !mutant.On(mutant.SubsumedNotDiscarded) {
				u.Discarded = append(u.Discarded, old.CheckpointID)
				u.DiscardedPointers = append(u.DiscardedPointers, old.ExternalPointer)
			}
			continue
		}
		waiting = append(waiting, old)
	}
	clear(s.subsumed[len(waiting):])
	s.subsumed = waiting
}

// LatestCheckpointID models CompletedCheckpointStore.getLatestCheckpointId: the newest retained
// checkpoint's id, 0 when the store is empty.
func (s *CompletedCheckpointStore) LatestCheckpointID() int64 {
	if l := s.Latest(); l != nil {
		return l.CheckpointID
	}
	return 0
}
