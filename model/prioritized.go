package model

import "github.com/restoresim/restoresim/model/internal/javamap"

// PrioritizeOperatorSubtaskStateAlternatives models PrioritizedOperatorSubtaskState.Builder(
// jobManagerState, alternativesByPriority, restoredCheckpointId).build() of version v with any
// number of alternatives (a TaskManager offers one, the task-local copy; Flink's test offers
// two). Nil alternatives are skipped, as Flink skips null subtask states; a nil jm is an empty
// state. The returned collections are the inputs' slices, not copies, except 1.19+'s mixed
// keyed alternative.
//
// 1.18 and 1.10.1 (resolvePrioritizedAlternatives, every kind): the alternatives that have
// state, exactly one handle, and match the JobManager's single handle (PrioritizeOperatorSubtaskState
// lists the rules), in priority order, followed by the JobManager's collection; just the
// JobManager's collection when it has no state or more than one handle.
//
// 1.19+ (FLINK-33341, SPEC-VERSIONS.md §5.2): operator and channel state as 1.18; managed and raw
// keyed state through computePrioritizedAlternatives, see mixedKeyedAlternative.
func PrioritizeOperatorSubtaskStateAlternatives(v FlinkVersion, jm *OperatorSubtaskState, alternativesByPriority []*OperatorSubtaskState, checkpointID int64) PrioritizedOperatorSubtaskState {
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
	if len(managedKeyed) == 0 {
		// No alternative: every kind is the JobManager's collection alone (as below), in one
		// allocation (a restore asks once per subtask and operator).
		one := new(jobManagerOnly)
		one.managedKeyed[0], one.rawKeyed[0] = jm.ManagedKeyedState, jm.RawKeyedState
		one.managedOp[0], one.rawOp[0] = jm.ManagedOperatorState, jm.RawOperatorState
		one.inputChannel[0], one.resultSubpartition[0] = jm.InputChannelState, jm.ResultSubpartitionState
		return PrioritizedOperatorSubtaskState{
			ManagedKeyed: one.managedKeyed[:], RawKeyed: one.rawKeyed[:],
			ManagedOperator: one.managedOp[:], RawOperator: one.rawOp[:],
			InputChannel: one.inputChannel[:], ResultSubpartition: one.resultSubpartition[:],
			RestoredCheckpointID: checkpointID, Restored: true,
		}
	}
	sameRange := func(a, b KeyedStateHandle) bool {
		return !isNilKeyed(a) && !isNilKeyed(b) && a.KeyGroupRange() == b.KeyGroupRange()
	}
	// eqStateApprover(InputChannelStateHandle::getInfo) (1.18–2.0) and channelStateApprover
	// (2.1+, the same for a handle that is not merged): the channel, not the subtask index.
	sameChannel := func(a, b ChannelStateHandle) bool {
		return a.GateOrPartition == b.GateOrPartition && a.Channel == b.Channel
	}
	keyed := func(jm []KeyedStateHandle, alts [][]KeyedStateHandle) [][]KeyedStateHandle {
		if v.AtLeast(Flink119) {
			return computePrioritizedAlternatives(jm, alts)
		}
		return resolvePrioritizedAlternatives(jm, alts, keyedHasState, sameRange)
	}
	return PrioritizedOperatorSubtaskState{
		ManagedKeyed:         keyed(jm.ManagedKeyedState, managedKeyed),
		RawKeyed:             keyed(jm.RawKeyedState, rawKeyed),
		ManagedOperator:      resolvePrioritizedAlternatives(jm.ManagedOperatorState, managedOp, anyState[OperatorStateHandle], sameNameToOffsets),
		RawOperator:          resolvePrioritizedAlternatives(jm.RawOperatorState, rawOp, anyState[OperatorStateHandle], sameNameToOffsets),
		InputChannel:         resolvePrioritizedAlternatives(jm.InputChannelState, inputChannel, anyState[ChannelStateHandle], sameChannel),
		ResultSubpartition:   resolvePrioritizedAlternatives(jm.ResultSubpartitionState, resultSubpartition, anyState[ChannelStateHandle], sameChannel),
		RestoredCheckpointID: checkpointID,
		Restored:             true,
	}
}

// jobManagerOnly holds the one-element collections of a PrioritizedOperatorSubtaskState without
// alternatives.
type jobManagerOnly struct {
	managedKeyed, rawKeyed           [1][]KeyedStateHandle
	managedOp, rawOp                 [1][]OperatorStateHandle
	inputChannel, resultSubpartition [1][]ChannelStateHandle
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

// keyGroupRangeClass is KeyGroupRange as a HashMap key: KeyGroupRange.hashCode (31·start + end)
// and equals; it is not Comparable.
var keyGroupRangeClass = javamap.Class[KeyGroupRange]{HashCode: func(r KeyGroupRange) int32 {
	return int32(31)*int32(r.Start) + int32(r.End)
}}

// computePrioritizedAlternatives models 1.19+'s Builder.computePrioritizedAlternatives for
// keyed state (FLINK-33341, identity KeyedStateHandle::getKeyGroupRange): when there are
// alternatives and the JobManager's collection has state, tryComputeMixedLocalAndRemoteAlternative
// indexes the JobManager's handles by key-group range in a new HashMap (Collectors.toMap), then
// walks the alternatives by priority, each handle in order, and takes every handle whose range is
// still in the index (removing it); if it took any, the mixed alternative is those handles
// followed by the JobManager handles left in the index, in HashMap.values() order, and the
// result is [mixed, JobManager]. Otherwise, and without alternatives or state, [JobManager].
//
// Where Flink's toMap would throw (a nil handle: NullPointerException; two handles with one
// range: IllegalStateException "Duplicate key"), which no assignment produces, the model offers
// the JobManager's collection alone. The HashMap order after removals is modelled as the order of
// the full map without the removed keys, which is exact unless a bucket held a tree bin (at least
// 8 ranges with one bucket index in a table of 64 or more buckets).
func computePrioritizedAlternatives(jm []KeyedStateHandle, alternatives [][]KeyedStateHandle) [][]KeyedStateHandle {
	if len(alternatives) == 0 || !keyedHasState(jm) {
		return [][]KeyedStateHandle{jm}
	}
	// Collectors.toMap(identity, Function.identity()) into HashMap::new: putIfAbsent (JDK 9+),
	// which links and resizes as put does.
	index := javamap.New(keyGroupRangeClass)
	for _, h := range jm {
		if isNilKeyed(h) {
			return [][]KeyedStateHandle{jm}
		}
		if _, added := index.Put(h.KeyGroupRange()); !added {
			return [][]KeyedStateHandle{jm}
		}
	}
	removed := make([]bool, len(jm))
	left := len(jm)
	var mixed []KeyedStateHandle
	for _, alt := range alternatives {
		for _, h := range alt {
			if isNilKeyed(h) || left == 0 {
				continue
			}
			for i, j := range jm {
				if !removed[i] && j.KeyGroupRange() == h.KeyGroupRange() {
					removed[i] = true
					left--
					mixed = append(mixed, h)
					break
				}
			}
		}
	}
	if len(mixed) == 0 {
		return [][]KeyedStateHandle{jm}
	}
	for _, i := range index.Order() {
		if !removed[i] {
			mixed = append(mixed, jm[i])
		}
	}
	return [][]KeyedStateHandle{mixed, jm}
}
