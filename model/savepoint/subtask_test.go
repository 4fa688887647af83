package savepoint

import "testing"

func TestSubtaskPlanTotals(t *testing.T) {
	s := SubtaskPlan{
		ManagedKeyedState: []KeyedPart{{Bytes: 10}, {Bytes: 5}},
		RawKeyedState:     []KeyedPart{{Bytes: 1}},
		ManagedOperatorState: map[string]*OperatorStatePart{
			"a": {Pairs: [][2]int{{0, 0}, {1, 0}}},
			"b": {Pairs: [][2]int{{0, 1}}},
		},
		RawOperatorState: map[string]*OperatorStatePart{"c": {Pairs: [][2]int{{2, 0}}}},
	}
	if got := s.KeyedBytes(); got != 16 {
		t.Errorf("KeyedBytes = %d, want 16", got)
	}
	if got := s.OperatorStateEntries(); got != 4 {
		t.Errorf("OperatorStateEntries = %d, want 4", got)
	}
	if (SubtaskPlan{}).KeyedBytes() != 0 || (SubtaskPlan{}).OperatorStateEntries() != 0 {
		t.Error("an empty subtask has totals")
	}
}
