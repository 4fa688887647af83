package model

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// The restore side of the CheckpointCoordinator (SPEC §H.1, §H.2): starting a job from a
// savepoint or retained checkpoint, and restoring the latest checkpoint after a failover or a
// JobManager restart, for Flink 1.18 and release-1.10.1.

// CheckpointIDCounter models StandaloneCheckpointIDCounter (and the contract of the HA
// counters): the id the next triggered checkpoint gets. The zero value is a fresh counter, whose
// first id is 1.
type CheckpointIDCounter struct {
	used int64 // next id − 1
}

// GetAndIncrement models getAndIncrement: the next id, then advance.
func (c *CheckpointIDCounter) GetAndIncrement() int64 {
	c.used++
	return c.used
}

// Get models get: the id the next GetAndIncrement returns.
func (c CheckpointIDCounter) Get() int64 { return c.used + 1 }

// SetCount models setCount(newId): the next GetAndIncrement returns newID.
func (c *CheckpointIDCounter) SetCount(newID int64) { c.used = newID - 1 }

// OperatorCoordinatorRestoreBehavior models CheckpointCoordinator.OperatorCoordinatorRestoreBehavior
// (1.18): what a restore does with the job's operator coordinators. The zero value means "not
// applicable" (1.10.1 has no operator coordinators).
type OperatorCoordinatorRestoreBehavior uint8

const (
	// RestoreOrReset is RESTORE_OR_RESET: restore them from the checkpoint, or reset them when
	// there is none (global failover).
	RestoreOrReset OperatorCoordinatorRestoreBehavior = iota + 1
	// RestoreIfCheckpointPresent is RESTORE_IF_CHECKPOINT_PRESENT (job start, savepoint restore).
	RestoreIfCheckpointPresent
	// SkipCoordinators is SKIP: leave them untouched (region failover).
	SkipCoordinators
)

// String gives Flink's enum name.
func (b OperatorCoordinatorRestoreBehavior) String() string {
	switch b {
	case RestoreOrReset:
		return "RESTORE_OR_RESET"
	case RestoreIfCheckpointPresent:
		return "RESTORE_IF_CHECKPOINT_PRESENT"
	case SkipCoordinators:
		return "SKIP"
	}
	return fmt.Sprintf("OperatorCoordinatorRestoreBehavior(%d)", uint8(b))
}

// RestoreFlags are the arguments a restore entry point hands to the common routine (the columns
// of the SPEC §H.2 table).
type RestoreFlags struct {
	ErrorIfNoCheckpoint   bool
	AllowNonRestoredState bool
	// Coordinators is zero for 1.10.1.
	Coordinators OperatorCoordinatorRestoreBehavior
	// CheckFinishedState: VertexFinishedStateChecker runs (1.18) over the restored vertices,
	// the Coordinator's JobEdges and the latest checkpoint's operator states.
	CheckFinishedState bool
}

// RestoreResult is what a restore did.
type RestoreResult struct {
	Flags RestoreFlags
	// Checkpoint is the checkpoint restored from; nil when there was none (and no error was
	// asked for): the tasks start without restore information.
	Checkpoint *CompletedCheckpoint
	// Assignment is AssignStates' result for the restored checkpoint (nil without one).
	Assignment *Assignment
	// Location is the resolved snapshot location (RestoreSavepoint only).
	Location *CheckpointLocation
	// StoreUpdate is what adding the snapshot to the store did (RestoreSavepoint only).
	StoreUpdate StoreUpdate
	// DiscardedShared lists (1.10.1) the redundant duplicates found while re-registering the
	// retained checkpoints into the fresh registry.
	DiscardedShared []StreamHandle
}

// Restored reports whether a checkpoint was restored (Flink's boolean / OptionalLong result).
func (r *RestoreResult) Restored() bool { return r != nil && r.Checkpoint != nil }

// ErrNoCompletedCheckpoint is the IllegalStateException "No completed checkpoint available" of a
// restore that requires a checkpoint (restoring a savepoint).
var ErrNoCompletedCheckpoint = errors.New("no completed checkpoint available")

// ErrWrongFlinkVersion is returned when a version-specific entry point is called on a
// coordinator of the other version. Not a Flink exception.
var ErrWrongFlinkVersion = errors.New("model: entry point does not exist in this Flink version")

// CheckpointStorage is what RestoreSavepoint reads: the file system the pointer is resolved on,
// and the deserialised _metadata file of a resolved location (Checkpoints.loadCheckpointMetadata).
type CheckpointStorage interface {
	CheckpointFS
	ReadMetadata(loc CheckpointLocation) (CheckpointMetadata, error)
}

// SavepointRestoreSettings models jobgraph.SavepointRestoreSettings: what a job is started from.
type SavepointRestoreSettings struct {
	// Pointer is the savepoint or retained-checkpoint path (-s).
	Pointer               string
	AllowNonRestoredState bool
	// Mode is the restore mode (1.18; ignored by 1.10.1). The zero value is NO_CLAIM.
	Mode RestoreMode
}

// Coordinator models the restore side of CheckpointCoordinator: the completed-checkpoint store
// with its shared-state registry, the checkpoint id counter and the settings restores read.
// Methods mutate it; there is no I/O and no clock.
type Coordinator struct {
	Version FlinkVersion
	Store   *CompletedCheckpointStore
	Counter CheckpointIDCounter
	// CheckpointProperties are the properties of the job's regular checkpoints
	// (CheckpointProperties.forCheckpoint(retention policy)); a CLAIM restore gives them to the
	// restored snapshot.
	CheckpointProperties CheckpointProperties
	// PreferCheckpointForRecovery is 1.10.1's prefer-checkpoint-for-recovery: restore the newest
	// non-savepoint rather than a newer savepoint.
	PreferCheckpointForRecovery bool
	// CheckpointIDOfIgnoredInFlightData (1.18, default −1): restoring this checkpoint drops its
	// in-flight channel state.
	CheckpointIDOfIgnoredInFlightData int64
	// JobEdges are the job graph's edges, indexes into the vertices a restore is given; the
	// finished-state check (VertexFinishedStateChecker) of RestoreSavepoint and
	// RestoreInitialCheckpointIfPresent reads them (1.18). nil: a graph without edges.
	JobEdges []FailoverEdge
	// IgnoreUnclaimedState is execution.state-recovery.ignore-unclaimed-state of the job's
	// configuration. Only master's RestoreInitialCheckpointIfPresent reads it (FLINK-39513);
	// every release passes allowNonRestoredState false there.
	IgnoreUnclaimedState bool
	// Assign, when set, assigns the restored checkpoint's state in place of AssignStates: the
	// seam through which a simulation hands the assignment to another implementation of
	// StateAssignmentOperation (Flink's own classes). nil is AssignStates.
	Assign func(AssignmentInput) (*Assignment, error)
	// LoadAndValidate, when set, loads and validates the restored snapshot in place of
	// LoadAndValidateCheckpoint: the seam through which a simulation hands
	// Checkpoints.loadAndValidateCheckpoint (and the reading of the _metadata file at loc) to
	// Flink's own classes. nil is LoadAndValidateCheckpoint.
	LoadAndValidate func(in LoadInput, loc CheckpointLocation) (*CompletedCheckpoint, error)
}

// NewCoordinator returns a coordinator of version v whose store retains numRetained checkpoints,
// with a fresh counter, regular checkpoint properties that discard subsumed checkpoints, and no
// ignored in-flight data.
func NewCoordinator(v FlinkVersion, numRetained int) (*Coordinator, error) {
	s, err := NewCompletedCheckpointStore(v, numRetained)
	if err != nil {
		return nil, err
	}
	return &Coordinator{
		Version:                           v,
		Store:                             s,
		CheckpointProperties:              CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward},
		CheckpointIDOfIgnoredInFlightData: -1,
	}, nil
}

// ErrCoordinatorMisconfigured is returned by a Coordinator without a store, or whose store is of
// another Flink version. Not a Flink exception.
var ErrCoordinatorMisconfigured = errors.New("model: coordinator needs a store of its Flink version (use NewCoordinator)")

func (c *Coordinator) check() error {
	if c.Store == nil || c.Store.Version() != c.Version {
		return ErrCoordinatorMisconfigured
	}
	c.Store.init()
	return nil
}

// restoredSnapshotProperties models the switch of CheckpointCoordinator.restoreSavepoint (1.18):
// CLAIM takes the job's checkpoint properties, LEGACY CheckpointProperties.forSavepoint(false,
// CANONICAL), NO_CLAIM forUnclaimedSnapshot().
func (c *Coordinator) restoredSnapshotProperties(m RestoreMode) (CheckpointProperties, error) {
	switch {
	case m == Claim && mutant.On(mutant.ClaimNotOwned):
		m = NoClaim
	case m == NoClaim && mutant.On(mutant.NoClaimOwned):
		m = Claim
	}
	switch m {
	case Claim:
		return c.CheckpointProperties, nil
	case Legacy:
		return CheckpointProperties{Savepoint: true, Sharing: NoSharing}, nil
	case NoClaim:
		return CheckpointProperties{Savepoint: true, Unclaimed: true, Sharing: NoSharing}, nil
	}
	return CheckpointProperties{}, fmt.Errorf("%w: %v", ErrUnknownRestoreMode, m)
}

// RestoreSavepoint models CheckpointCoordinator.restoreSavepoint: start the job given by vertices
// from the snapshot at settings.Pointer (SPEC §H.1).
//
// 1.18: resolve the pointer (ResolveCheckpointPointer); pick the snapshot's properties by restore
// mode; LoadAndValidateCheckpoint; unless the snapshot is unclaimed (NO_CLAIM), register its
// shared state (RegisterAllAfterRestored with the properties its metadata records) before adding
// it to the store, which may subsume; reset the counter to id+1; restore the latest checkpoint
// (flags: error if none, the settings' allowNonRestoredState, coordinators
// RESTORE_IF_CHECKPOINT_PRESENT, finished-state check).
//
// 1.10.1: resolve; load (savepoint properties); add to the store (FIFO); counter := id+1;
// RestoreLatestCheckpointedState(vertices, true, allowNonRestoredState).
func (c *Coordinator) RestoreSavepoint(storage CheckpointStorage, settings SavepointRestoreSettings, vertices []JobVertex) (*RestoreResult, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if storage == nil {
		return nil, errors.New("model: RestoreSavepoint needs a CheckpointStorage")
	}
	loc, err := ResolveCheckpointPointer(storage, settings.Pointer)
	if err != nil {
		return nil, err
	}
	var props CheckpointProperties
	if c.Version != Flink1101 {
		if props, err = c.restoredSnapshotProperties(settings.Mode); err != nil {
			return nil, err
		}
	}
	md, err := storage.ReadMetadata(loc)
	if err != nil {
		return nil, err
	}
	cp, err := c.loadAndValidate(LoadInput{Version: c.Version, Metadata: md, Vertices: vertices,
		AllowNonRestoredState: settings.AllowNonRestoredState, Properties: props, ExternalPointer: loc.ExternalPointer}, loc)
	if err != nil {
		return nil, err
	}
	if c.Version != Flink1101 {
		if !cp.Properties.Unclaimed {
			if err := c.Store.registry.RegisterAllAfterRestored(cp.CheckpointID, cp.Operators, md.Properties, settings.Mode); err != nil {
				return nil, err
			}
		}
		if md.Properties != nil {
			if c.Store.restored == nil {
				c.Store.restored = make(map[int64]*CheckpointProperties)
			}
			p := *md.Properties
			c.Store.restored[cp.CheckpointID] = &p
		}
	}
	update, err := c.Store.AddCheckpointAndSubsumeOldestOne(cp)
	if err != nil {
		return nil, err
	}
	if !mutant.On(mutant.CounterNotReset) {
		c.Counter.SetCount(cp.CheckpointID + 1)
		if mutant.On(mutant.CounterResetToID) {
			c.Counter.SetCount(cp.CheckpointID)
		}
	}

	var res *RestoreResult
	if c.Version != Flink1101 {
		res, err = c.restoreLatest118(vertices, RestoreFlags{ErrorIfNoCheckpoint: true,
			AllowNonRestoredState: settings.AllowNonRestoredState, Coordinators: RestoreIfCheckpointPresent, CheckFinishedState: true})
	} else {
		res, err = c.restoreLatest1101(vertices, true, settings.AllowNonRestoredState)
	}
	if err != nil {
		return nil, err
	}
	res.Location = &loc
	res.StoreUpdate = update
	return res, nil
}

// RestoreLatestCheckpointedStateToAll models restoreLatestCheckpointedStateToAll (1.18), used on
// a global failover: no error without a checkpoint, allowNonRestoredState as passed (the
// scheduler passes true), coordinators RESTORE_OR_RESET, no finished-state check. On 1.10.1 it is
// RestoreLatestCheckpointedState(vertices, false, allowNonRestoredState), what 1.10.1's scheduler
// calls on every restart.
func (c *Coordinator) RestoreLatestCheckpointedStateToAll(vertices []JobVertex, allowNonRestoredState bool) (*RestoreResult, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Version == Flink1101 {
		return c.restoreLatest1101(vertices, false, allowNonRestoredState)
	}
	return c.restoreLatest118(vertices, RestoreFlags{AllowNonRestoredState: allowNonRestoredState, Coordinators: RestoreOrReset})
}

// RestoreLatestCheckpointedStateToSubtasks models restoreLatestCheckpointedStateToSubtasks
// (1.18), used on a region failover: no error without a checkpoint, allowNonRestoredState true,
// coordinators untouched, no finished-state check. State is assigned to all subtasks of the given
// vertices (the vertices of the restarted subtasks); only the restarted ones use it. On 1.10.1 it
// is RestoreLatestCheckpointedState(vertices, false, true).
func (c *Coordinator) RestoreLatestCheckpointedStateToSubtasks(vertices []JobVertex) (*RestoreResult, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Version == Flink1101 {
		return c.restoreLatest1101(vertices, false, true)
	}
	return c.restoreLatest118(vertices, RestoreFlags{AllowNonRestoredState: true, Coordinators: SkipCoordinators})
}

// RestoreInitialCheckpointIfPresent models restoreInitialCheckpointIfPresent (1.18), used when a
// job (re)starts on a new JobManager: no error without a checkpoint, allowNonRestoredState false
// (the job graph must match; on master IgnoreUnclaimedState, FLINK-39513), coordinators RESTORE_IF_CHECKPOINT_PRESENT, finished-state check.
// On 1.10.1 it is RestoreLatestCheckpointedState(vertices, false, false)
// (SchedulerBase.createAndRestoreExecutionGraph).
func (c *Coordinator) RestoreInitialCheckpointIfPresent(vertices []JobVertex) (*RestoreResult, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Version == Flink1101 {
		return c.restoreLatest1101(vertices, false, false)
	}
	// master honours execution.state-recovery.ignore-unclaimed-state here (FLINK-39513,
	// SPEC-VERSIONS.md §2.3); 1.18–2.3 hard-code false.
	allow := c.Version == FlinkMaster && c.IgnoreUnclaimedState
	return c.restoreLatest118(vertices, RestoreFlags{AllowNonRestoredState: allow, Coordinators: RestoreIfCheckpointPresent, CheckFinishedState: true})
}

// RestoreLatestCheckpointedState models 1.10.1's restoreLatestCheckpointedState(tasks,
// errorIfNoCheckpoint, allowNonRestoredState): close the shared-state registry and create a
// fresh one, re-register the shared state of every retained checkpoint, pick the latest — or,
// with PreferCheckpointForRecovery and a savepoint on top, the newest non-savepoint
// (LatestPreferringCheckpoint) — and assign its state. ErrWrongFlinkVersion on 1.18.
func (c *Coordinator) RestoreLatestCheckpointedState(vertices []JobVertex, errorIfNoCheckpoint, allowNonRestoredState bool) (*RestoreResult, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Version != Flink1101 {
		return nil, fmt.Errorf("%w: restoreLatestCheckpointedState(tasks, errorIfNoCheckpoint, allowNonRestoredState) is 1.10.1's; use the 1.18 entry points", ErrWrongFlinkVersion)
	}
	return c.restoreLatest1101(vertices, errorIfNoCheckpoint, allowNonRestoredState)
}

// RecoverAfterJobManagerFailover models a new JobManager taking over the job with HA: the store
// is rebuilt from HA storage with a fresh registry (CompletedCheckpointStore.
// RecoverAfterJobManagerFailover, mode = the job's restore mode), and the counter keeps its
// value (the HA counter survives). Call RestoreInitialCheckpointIfPresent next.
func (c *Coordinator) RecoverAfterJobManagerFailover(mode RestoreMode) error {
	if err := c.check(); err != nil {
		return err
	}
	return c.Store.RecoverAfterJobManagerFailover(mode)
}

// restoreLatest118 models restoreLatestCheckpointedStateInternal (1.18).
func (c *Coordinator) restoreLatest118(vertices []JobVertex, flags RestoreFlags) (*RestoreResult, error) {
	res := &RestoreResult{Flags: flags}
	latest := c.Store.Latest()
	if latest == nil {
		if flags.ErrorIfNoCheckpoint {
			return nil, ErrNoCompletedCheckpoint
		}
		return res, nil
	}
	ops := latest.Operators
	if latest.CheckpointID == c.CheckpointIDOfIgnoredInFlightData {
		ops = withoutInFlightData(ops)
	}
	if flags.CheckFinishedState {
		chk := VertexFinishedStateChecker{Vertices: vertices, Edges: c.JobEdges, Operators: ops}
		if err := chk.Validate(); err != nil {
			return nil, err
		}
	}
	a, err := c.assign(AssignmentInput{Version: c.Version, CheckpointID: latest.CheckpointID, Vertices: vertices,
		Operators: ops, AllowNonRestoredState: flags.AllowNonRestoredState})
	if err != nil {
		return nil, err
	}
	res.Checkpoint, res.Assignment = latest, a
	return res, nil
}

// loadAndValidate is c.LoadAndValidate, or LoadAndValidateCheckpoint when it is nil.
func (c *Coordinator) loadAndValidate(in LoadInput, loc CheckpointLocation) (*CompletedCheckpoint, error) {
	if c.LoadAndValidate != nil {
		return c.LoadAndValidate(in, loc)
	}
	return LoadAndValidateCheckpoint(in)
}

// assign is c.Assign, or AssignStates when it is nil.
func (c *Coordinator) assign(in AssignmentInput) (*Assignment, error) {
	if c.Assign != nil {
		return c.Assign(in)
	}
	return AssignStates(in)
}

// withoutInFlightData models OperatorState.copyAndDiscardInFlightData for every operator state.
func withoutInFlightData(ops []OperatorState) []OperatorState {
	out := make([]OperatorState, len(ops))
	for i, os := range ops {
		out[i] = os
		out[i].Subtasks = make([]*OperatorSubtaskState, len(os.Subtasks))
		for j, st := range os.Subtasks {
			if st == nil {
				continue
			}
			c := *st
			c.InputChannelState, c.ResultSubpartitionState = nil, nil
			out[i].Subtasks[j] = &c
		}
	}
	return out
}

// restoreLatest1101 models 1.10.1's restoreLatestCheckpointedState.
func (c *Coordinator) restoreLatest1101(vertices []JobVertex, errorIfNoCheckpoint, allowNonRestoredState bool) (*RestoreResult, error) {
	res := &RestoreResult{Flags: RestoreFlags{ErrorIfNoCheckpoint: errorIfNoCheckpoint, AllowNonRestoredState: allowNonRestoredState}}
	c.Store.refRegistry.Close()
	c.Store.refRegistry = NewRefCountSharedStateRegistry()
	for _, cp := range c.Store.checkpoints {
		d, err := c.Store.refRegistry.RegisterAll(cp.Operators)
		res.DiscardedShared = append(res.DiscardedShared, d...)
		if err != nil {
			return nil, err
		}
	}
	latest := c.Store.LatestPreferringCheckpoint(c.PreferCheckpointForRecovery)
	if latest == nil {
		if errorIfNoCheckpoint {
			return nil, ErrNoCompletedCheckpoint
		}
		return res, nil
	}
	a, err := c.assign(AssignmentInput{Version: Flink1101, CheckpointID: latest.CheckpointID, Vertices: vertices,
		Operators: latest.Operators, AllowNonRestoredState: allowNonRestoredState})
	if err != nil {
		return nil, err
	}
	res.Checkpoint, res.Assignment = latest, a
	return res, nil
}
