package plots

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model/savepoint"
)

func TestRestorePlanBytes(t *testing.T) {
	sub := func(bytes ...int64) []savepoint.SubtaskPlan {
		var s []savepoint.SubtaskPlan
		for i, b := range bytes {
			s = append(s, savepoint.SubtaskPlan{Index: i, StateBytes: b})
		}
		return s
	}
	pl := &savepoint.RestorePlan{Operators: []savepoint.OperatorPlan{
		{OperatorID: "0123456789abcdef0123456789abcdef", UID: "src", Name: "Source", StateBytes: 3, Subtasks: sub(1, 2)},
		{OperatorID: "1123456789abcdef0123456789abcdef", StateBytes: 0, Subtasks: sub(0, 0)},
		{OperatorID: "2123456789abcdef0123456789abcdef", Name: "Map", StateBytes: 5, Subtasks: sub(5)},
		{OperatorID: "3123456789abcdef0123456789abcdef", StateBytes: 4, Subtasks: sub(4, 0, 0)},
	}}
	want := []OperatorBytes{{"src", []int64{1, 2}}, {"Map", []int64{5}}, {"31234567", []int64{4, 0, 0}}}
	if diff := cmp.Diff(want, RestorePlanBytes(pl)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
