package model_test

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// A source with parallelism 2 keeps its partition offsets in list state (SPLIT_DISTRIBUTE) and
// a rule set in broadcast state; the job is restored with parallelism 3. Each new subtask gets
// its handles in the order of Flink's HashMap keyed by their streams' hash codes (op-1 first).
func ExampleRepartitionOperatorState() {
	previous := [][]model.OperatorStateHandle{
		{{
			Delegate: model.StreamHandle{Path: "chk-7/op-0", Size: 512},
			States: []model.NamedOperatorState{
				{Name: "offsets", Mode: model.SplitDistribute, Offsets: []int64{0, 40, 80}},
				{Name: "rules", Mode: model.Broadcast, Offsets: []int64{120}},
			},
		}},
		{{
			Delegate: model.StreamHandle{Path: "chk-7/op-1", Size: 384},
			States: []model.NamedOperatorState{
				{Name: "offsets", Mode: model.SplitDistribute, Offsets: []int64{0, 40}},
				{Name: "rules", Mode: model.Broadcast, Offsets: []int64{80}},
			},
		}},
	}
	next, err := model.RepartitionOperatorState(model.Flink118, previous, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, handles := range next {
		fmt.Printf("new subtask %d:\n", i)
		for _, h := range handles {
			for _, s := range h.States {
				fmt.Printf("  %-10s %-7s %-16s offsets %v\n", h.Delegate.Path, s.Name, s.Mode, s.Offsets)
			}
		}
	}
	_, err = model.RepartitionOperatorState(model.Flink118, previous, 0)
	fmt.Println(err)
	// Output:
	// new subtask 0:
	//   chk-7/op-0 offsets SPLIT_DISTRIBUTE offsets [0 40]
	//   chk-7/op-0 rules   BROADCAST        offsets [120]
	// new subtask 1:
	//   chk-7/op-1 offsets SPLIT_DISTRIBUTE offsets [0]
	//   chk-7/op-1 rules   BROADCAST        offsets [80]
	//   chk-7/op-0 offsets SPLIT_DISTRIBUTE offsets [80]
	// new subtask 2:
	//   chk-7/op-1 offsets SPLIT_DISTRIBUTE offsets [40]
	//   chk-7/op-0 rules   BROADCAST        offsets [120]
	// new parallelism must be positive: 0
}
