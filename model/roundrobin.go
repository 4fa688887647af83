package model

import "errors"

// RepartitionOperatorState models RoundRobinOperatorStateRepartitioner.repartitionState.
// TEMPORARY placeholder: being implemented; replaced by the round-robin work (issue 3).
func RepartitionOperatorState(v FlinkVersion, previous [][]OperatorStateHandle, newParallelism int) ([][]OperatorStateHandle, error) {
	return nil, errors.New("model: RepartitionOperatorState not implemented yet")
}
