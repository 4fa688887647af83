package model

// PrioritizeOperatorSubtaskStateAlternatives models PrioritizedOperatorSubtaskState.Builder(
// jobManagerState, alternativesByPriority, restoredCheckpointId).build() (1.18) with any number
// of alternatives (a TaskManager offers one, the task-local copy; Flink's test offers two): for
// each state kind, the alternatives that have state, exactly one handle, and match the
// JobManager's single handle (PrioritizeOperatorSubtaskState lists the rules), in priority order,
// followed by the JobManager's collection; just the JobManager's collection when it has no state
// or more than one handle. Nil alternatives are skipped, as Flink skips null subtask states; a
// nil jm is an empty state. The returned collections are the inputs' slices, not copies.
func PrioritizeOperatorSubtaskStateAlternatives(jm *OperatorSubtaskState, alternativesByPriority []*OperatorSubtaskState, checkpointID int64) PrioritizedOperatorSubtaskState {
	if jm == nil {
		jm = &OperatorSubtaskState{}
	}
	var managedKeyed, rawKeyed [][]KeyedStateHandle
	var managedOp, rawOp [][]OperatorStateHandle
	var inputChannel, resultSubpartition [][]ChannelStateHandle
	for _, alt := range alternativesByPriority {
		if alt == nil {
			continue
		}
		managedKeyed = append(managedKeyed, alt.ManagedKeyedState)
		rawKeyed = append(rawKeyed, alt.RawKeyedState)
		managedOp = append(managedOp, alt.ManagedOperatorState)
		rawOp = append(rawOp, alt.RawOperatorState)
		inputChannel = append(inputChannel, alt.InputChannelState)
		resultSubpartition = append(resultSubpartition, alt.ResultSubpartitionState)
	}
	sameRange := func(a, b KeyedStateHandle) bool {
		return !isNilKeyed(a) && !isNilKeyed(b) && a.KeyGroupRange() == b.KeyGroupRange()
	}
	sameChannel := func(a, b ChannelStateHandle) bool { return a.SubtaskIndex == b.SubtaskIndex }
	return PrioritizedOperatorSubtaskState{
		ManagedKeyed:         resolvePrioritizedAlternatives(jm.ManagedKeyedState, managedKeyed, keyedHasState, sameRange),
		RawKeyed:             resolvePrioritizedAlternatives(jm.RawKeyedState, rawKeyed, keyedHasState, sameRange),
		ManagedOperator:      resolvePrioritizedAlternatives(jm.ManagedOperatorState, managedOp, anyState[OperatorStateHandle], sameNameToOffsets),
		RawOperator:          resolvePrioritizedAlternatives(jm.RawOperatorState, rawOp, anyState[OperatorStateHandle], sameNameToOffsets),
		InputChannel:         resolvePrioritizedAlternatives(jm.InputChannelState, inputChannel, anyState[ChannelStateHandle], sameChannel),
		ResultSubpartition:   resolvePrioritizedAlternatives(jm.ResultSubpartitionState, resultSubpartition, anyState[ChannelStateHandle], sameChannel),
		RestoredCheckpointID: checkpointID,
		Restored:             true,
	}
}

// resolvePrioritizedAlternatives models Builder.resolvePrioritizedAlternatives for one kind.
func resolvePrioritizedAlternatives[T any](jm []T, alternatives [][]T, hasState func([]T) bool, approve func(a, b T) bool) [][]T {
	if len(alternatives) == 0 || !hasState(jm) || len(jm) != 1 {
		return [][]T{jm}
	}
	approved := make([][]T, 0, 1+len(alternatives))
	for _, alt := range alternatives {
		if hasState(alt) && len(alt) == 1 && approve(jm[0], alt[0]) {
			approved = append(approved, alt)
		}
	}
	return append(approved, jm)
}
