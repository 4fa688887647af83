// Package model is a bit-exact model of Apache Flink's checkpoint → restore → rescale logic
// (Flink 1.18, and 1.10.1 where they differ), as pure functions over plain values: no clock, no
// randomness, no goroutines, no files.
//
// Map from Go identifiers to the Flink classes and methods they model:
//
//	MurmurHash                          MathUtils.murmurHash(int)
//	JavaIntHash, JavaLongHash, …        Integer/Long/String/Boolean/Double/Float/Short/Byte/Character.hashCode
//	FlinkTupleHash, JavaListHash        TupleN.hashCode, java.util.List.hashCode
//	CheckParallelismPreconditions       KeyGroupRangeAssignment.checkParallelismPreconditions
//	ComputeKeyGroupForKeyHash           KeyGroupRangeAssignment.computeKeyGroupForKeyHash
//	ComputeOperatorIndexForKeyGroup     KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup
//	AssignKeyToParallelOperator         KeyGroupRangeAssignment.assignKeyToParallelOperator
//	ComputeKeyGroupRangeForOperatorIndex KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex
//	ComputeDefaultMaxParallelism        KeyGroupRangeAssignment.computeDefaultMaxParallelism
//	KeyGroupRange, EmptyKeyGroupRange   KeyGroupRange, KeyGroupRange.EMPTY_KEY_GROUP_RANGE
//	KeyGroupRangeOffsets                KeyGroupRangeOffsets
//	OperatorID                          jobgraph.OperatorID
//	DistributionMode                    OperatorStateHandle.Mode
//	StreamHandle                        StreamStateHandle (FileStateHandle, ByteStreamStateHandle, …)
//	OperatorStateHandle                 OperatorStreamStateHandle
//	KeyedStateHandle                    KeyedStateHandle
//	KeyGroupsStateHandle                KeyGroupsStateHandle, KeyGroupsSavepointStateHandle
//	IncrementalKeyedStateHandle         IncrementalRemoteKeyedStateHandle (and local handles)
//	OperatorSubtaskState, OperatorState checkpoint.OperatorSubtaskState, checkpoint.OperatorState
//	JobVertex, JobOperator              ExecutionJobVertex (operator IDs, parallelism, max parallelism)
//	OperatorIDFromUID                   StreamGraphHasherV2 (operator ID = MurmurHash3_x64_128 of the uid)
//	RepartitionOperatorState            RoundRobinOperatorStateRepartitioner.repartitionState
//	IntersectKeyedStateHandles          KeyedStateHandle.getIntersection over a collection
//	KeyedStateHandlesForSubtask         StateAssignmentOperation.reAssignSubKeyedStates
//	ManagedKeyedStateHandles            StateAssignmentOperation.getManagedKeyedStateHandles
//	RawKeyedStateHandles                StateAssignmentOperation.getRawKeyedStateHandles
//	ChooseInitialHandle                 RocksDBIncrementalCheckpointUtils.chooseTheBestStateHandleForInitial
//	RocksDBRestore                      RocksDBIncrementalRestoreOperation (restoreWithoutRescaling / restoreWithRescaling)
//	AssignStates                        StateAssignmentOperation.assignStates
//	LoadAndValidateCheckpoint           Checkpoints.loadAndValidateCheckpoint
//	CompletedCheckpoint                 checkpoint.CompletedCheckpoint
//	SharedStateRegistry                 SharedStateRegistryImpl (1.15+ last-use tracking)
//	RefCountSharedStateRegistry         SharedStateRegistry (1.10.1 reference counting)
//	CompletedCheckpointStore            DefaultCompletedCheckpointStore, CheckpointSubsumeHelper;
//	                                    StandaloneCompletedCheckpointStore (1.10.1)
//	NewDefaultCompletedCheckpointStore  DefaultCompletedCheckpointStore over a StateHandleStore (HA); CheckpointStateHandleStore
//	                                    its StateHandleStore<CompletedCheckpoint> (addAndLock, releaseAndTryRemove, clearEntries, releaseAll)
//	RetrieveCompletedCheckpoints        DefaultCompletedCheckpointStoreUtils.retrieveCompletedCheckpoints
//	CompletedCheckpointStore.LatestCheckpointID CompletedCheckpointStore.getLatestCheckpointId
//	CompletedCheckpointStore.Shutdown   DefaultCompletedCheckpointStore.shutdown, StandaloneCompletedCheckpointStore.shutdown (1.18, 1.10.1)
//	JobStatus, CheckpointRetentionPolicy api.common.JobStatus, checkpoint.CheckpointRetentionPolicy
//	CheckpointProperties.ShouldBeDiscardedOnShutdown CompletedCheckpoint.shouldBeDiscardedOnShutdown
//	ResolveCheckpointPointer            AbstractFsCheckpointStorageAccess.resolveCheckpointPointer
//	FailoverTopology.RegionsToRestart   RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart
//	LogicalPipelinedRegions             LogicalPipelinedRegionComputeUtil.computePipelinedRegions (DefaultLogicalTopology)
//	PrioritizeOperatorSubtaskState      PrioritizedOperatorSubtaskState.Builder.build (one local alternative)
//	PrioritizeOperatorSubtaskStateAlternatives PrioritizedOperatorSubtaskState.Builder(jobManagerState, alternativesByPriority).build
//	PrioritizeTaskRestore               TaskStateManagerImpl.prioritizedOperatorState
//	TaskLocalStateStore                 TaskLocalStateStoreImpl (storeLocalState, retrieveLocalState, confirmCheckpoint,
//	                                    abortCheckpoint, pruneMatchingCheckpoints, dispose)
//	LocalRecoveryDirectory              a subtask's local recovery directories (LocalRecoveryDirectoryProviderImpl) on disk
//	Coordinator                         CheckpointCoordinator (restoreSavepoint, restoreLatestCheckpointedState*)
//	VertexFinishedStateChecker.Validate VertexFinishedStateChecker.validateOperatorsFinishedState (1.18, FLIP-147)
//	VertexFinishedState                 VertexFinishedStateChecker.VertexFinishedState
//	VertexFinishedStateError            its FlinkRuntimeExceptions (mixed operator finished state, illegal JobGraph modification)
//	OperatorSubtaskState.Finished       FinishedOperatorSubtaskState
//	CheckpointIDCounter                 CheckpointIDCounter (StandaloneCheckpointIDCounter)
//	SubtaskStateMapper, ArbitraryMapper, … io.network.api.writer.SubtaskStateMapper (ARBITRARY, FIRST, FULL, RANGE, ROUND_ROBIN, UNSUPPORTED)
//	SubtaskStateMapper.NewToOldSubtasksMapping SubtaskStateMapper.getNewToOldSubtasksMapping (getOldSubtasks per new subtask)
//	SubtaskStateMapper.IsAmbiguous      SubtaskStateMapper.isAmbiguous
//	UnsupportedRescaleError             the UnsupportedOperationException of SubtaskStateMapper.UNSUPPORTED
//	RescaleMappings, NewRescaleMappings checkpoint.RescaleMappings, RescaleMappings.of (IdentityRescaleMappings when
//	                                    every source maps to itself); Invert, AmbiguousTargets, MappedIndexes, Equal
//	                                    model invert, getAmbiguousTargets, getMappedIndexes, equals
//	IdentityRescaleMappings             RescaleMappings.identity; SymmetricIdentityRescaleMappings: SYMMETRIC_IDENTITY
//
// Package model/metadata reads and writes Flink's _metadata files (MetadataV2–V5 serializers).
//
// The references are to SPEC.md, the behavioural specification the model implements.
package model
