package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repartitionBoth runs the repartitioner owning its result (RepartitionOperatorState) and
// sharing equal subtask lists (as AssignStates does) and reports a difference in values.
func repartitionBoth(t *testing.T, what string, v FlinkVersion, prev [][]OperatorStateHandle, newP int) {
	t.Helper()
	want, errWant := RepartitionOperatorState(v, prev, newP)
	got, errGot := repartitionOperatorState(v, prev, newP, true)
	if fmt.Sprint(errWant) != fmt.Sprint(errGot) {
		t.Fatalf("%s %v → %d: error %v, shared %v", what, v, newP, errWant, errGot)
	}
	if reflect.DeepEqual(want, got) {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s %v %d → %d: shared result differs (-owned +shared):\n%s", what, v, len(prev), newP, diff)
	}
}

// Sharing equal subtask lists changes no value: on the golden cases, the JDK comparison's
// random inputs (shared streams, one name in several modes, partly reported broadcast state)
// and the coordinator test's random states.
func TestRepartitionSharedEqualsOwned(t *testing.T) {
	for _, c := range loadRoundRobinGolden(t) {
		for _, v := range bothVersions {
			repartitionBoth(t, fmt.Sprintf("golden case %d", c.ID), v, c.previous(t), c.NewParallelism)
		}
	}
	n := 400
	if testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(20261201, 0))
	for id := range n {
		_, newP, prev := jdkRandomCase(rng)
		for _, v := range []FlinkVersion{Flink118, Flink1101, Flink22} {
			repartitionBoth(t, fmt.Sprintf("random case %d", id), v, prev, newP)
		}
	}
	for run := range n {
		oldP, newP := 1+rng.IntN(9), 1+rng.IntN(9)
		prev := randomPartitionableState(rng, oldP, 1+rng.IntN(9), 1+rng.IntN(9))
		for _, v := range bothVersions {
			repartitionBoth(t, fmt.Sprintf("partitionable run %d", run), v, prev, newP)
		}
	}
	for run := range n / 4 {
		prev, newP := wideUnionState(rng)
		for _, v := range bothVersions {
			repartitionBoth(t, fmt.Sprintf("wide UNION run %d", run), v, prev, newP)
		}
	}
}

// wideUnionState draws the shape sharing is for: many old subtasks, each with one handle of
// one to three UNION names (sometimes a SPLIT_DISTRIBUTE or BROADCAST name beside them, or no
// handle), restored mostly at the same parallelism; in half the runs the first eight streams'
// paths have equal hash codes, so that a new subtask's own handle is not first in its bucket
// and its handles come in another order than the others'.
func wideUnionState(rng *rand.Rand) ([][]OperatorStateHandle, int) {
	oldP := []int{9, 20, 64, 100}[rng.IntN(4)]
	newP := oldP
	if rng.IntN(4) == 0 {
		newP = 1 + rng.IntN(2*oldP)
	}
	colliding := rng.IntN(2) == 0
	names := []string{"offsets", "Aa", "BB"}[:1+rng.IntN(3)]
	var next int64
	prev := make([][]OperatorStateHandle, oldP)
	for j := range prev {
		prev[j] = []OperatorStateHandle{}
		if rng.IntN(10) == 0 {
			continue
		}
		h := OperatorStateHandle{Delegate: StreamHandle{Path: jdkDelegatePath(j, colliding)}}
		for _, n := range names {
			h.States = append(h.States, NamedOperatorState{Name: n, Mode: Union, Offsets: []int64{next}})
			next++
		}
		switch rng.IntN(8) {
		case 0:
			h.States = append(h.States, NamedOperatorState{Name: "split", Mode: SplitDistribute, Offsets: []int64{next, next + 1}})
			next += 2
		case 1:
			h.States = append(h.States, NamedOperatorState{Name: "rules", Mode: Broadcast, Offsets: []int64{next}})
			next++
		}
		prev[j] = append(prev[j], h)
	}
	return prev, newP
}

// A UNION state is handed to every new subtask as one shared list when nothing else differs,
// and never shared by RepartitionOperatorState.
func TestRepartitionUnionShared(t *testing.T) {
	var prev [][]OperatorStateHandle
	for j := range 4 {
		prev = append(prev, saoHandle(fmt.Sprint("u", j), int64(j+1), sao{"offsets", Union, []int64{int64(j)}}))
	}
	for _, newP := range []int{4, 7} { // the unchanged-parallelism path and the changed one
		got, err := repartitionOperatorState(Flink118, prev, newP, true)
		if err != nil {
			t.Fatal(err)
		}
		owned, _ := RepartitionOperatorState(Flink118, prev, newP)
		for i := 1; i < newP; i++ {
			if &got[i][0] != &got[0][0] {
				t.Errorf("P 4 → %d: new subtask %d does not share subtask 0's list", newP, i)
			}
			if &owned[i][0] == &owned[0][0] {
				t.Errorf("P 4 → %d: RepartitionOperatorState shares subtask %d's list", newP, i)
			}
		}
	}
}
