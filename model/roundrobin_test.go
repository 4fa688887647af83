package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model/internal/javamap"
)

// The golden file roundrobin.json (SPEC §L.1) holds the output of Flink's own
// RoundRobinOperatorStateRepartitioner, 1.18 and release-1.10.1, for 135 inputs.

type rrGoldenFile struct {
	Cases []rrGoldenCase `json:"cases"`
}

type rrGoldenCase struct {
	ID             int                `json:"id"`
	OldParallelism int                `json:"old_parallelism"`
	NewParallelism int                `json:"new_parallelism"`
	Input          [][]rrGoldenHandle `json:"input"`
	SplitNameOrder []string           `json:"split_name_order"`
	Output         []rrGoldenSubtask  `json:"output"`
	Differs1101    bool               `json:"differs_in_1_10_1"`
	Output1101     []rrGoldenSubtask  `json:"output_1_10_1"`
}

type rrGoldenHandle struct {
	Handle int `json:"handle"`
	States []struct {
		Name       string `json:"name"`
		Mode       string `json:"mode"`
		NumOffsets int    `json:"num_offsets"`
	} `json:"states"`
}

// rrGoldenSubtask is one new subtask: state name → what it received.
type rrGoldenSubtask map[string]rrGoldenState

type rrGoldenState struct {
	Mode    string              `json:"mode"`
	Pairs   [][2]int            `json:"pairs"`
	Handles []rrGoldenHandleOut `json:"handles"`
}

type rrGoldenHandleOut struct {
	OldSubtask int     `json:"old_subtask"`
	Handle     int     `json:"handle"`
	Offsets    []int64 `json:"offsets"`
}

func loadRoundRobinGolden(t testing.TB) []rrGoldenCase {
	t.Helper()
	data, err := os.ReadFile("testdata/flink/roundrobin.json")
	if err != nil {
		t.Fatal(err)
	}
	var f rrGoldenFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("roundrobin.json has no cases")
	}
	return f.Cases
}

// goldenDelegate is the stream of old subtask s's handle h; offsets are numbered 0..n-1.
func goldenDelegate(s, h int) StreamHandle {
	return StreamHandle{Path: fmt.Sprintf("op-%d-%d", s, h), Size: int64(100*s + h)}
}

func (c *rrGoldenCase) previous(t testing.TB) [][]OperatorStateHandle {
	t.Helper()
	prev := make([][]OperatorStateHandle, len(c.Input))
	for s, hs := range c.Input {
		prev[s] = []OperatorStateHandle{}
		for h, gh := range hs {
			if gh.Handle != h {
				t.Fatalf("case %d: old subtask %d lists handle %d at position %d", c.ID, s, gh.Handle, h)
			}
			oh := OperatorStateHandle{Delegate: goldenDelegate(s, h)}
			for _, st := range gh.States {
				m, err := ParseDistributionMode(st.Mode)
				if err != nil {
					t.Fatalf("case %d: %v", c.ID, err)
				}
				offs := make([]int64, st.NumOffsets)
				for i := range offs {
					offs[i] = int64(i)
				}
				oh.States = append(oh.States, NamedOperatorState{Name: st.Name, Mode: m, Offsets: offs})
			}
			prev[s] = append(prev[s], oh)
		}
	}
	return prev
}

// toGolden converts a result into the golden output schema.
func toGolden(t testing.TB, c *rrGoldenCase, result [][]OperatorStateHandle) []rrGoldenSubtask {
	t.Helper()
	where := map[StreamHandle][2]int{}
	for s, hs := range c.Input {
		for h := range hs {
			where[goldenDelegate(s, h)] = [2]int{s, h}
		}
	}
	out := make([]rrGoldenSubtask, len(result))
	for i, hs := range result {
		out[i] = rrGoldenSubtask{}
		for _, h := range hs {
			pos, ok := where[h.Delegate]
			if !ok {
				t.Fatalf("case %d: new subtask %d has unknown delegate %+v", c.ID, i, h.Delegate)
			}
			for _, st := range h.States {
				g := out[i][st.Name]
				if g.Mode != "" && g.Mode != st.Mode.String() {
					t.Fatalf("case %d: new subtask %d receives %q as %s and %s", c.ID, i, st.Name, g.Mode, st.Mode)
				}
				g.Mode = st.Mode.String()
				for _, o := range st.Offsets {
					g.Pairs = append(g.Pairs, [2]int{pos[0], int(o)})
				}
				g.Handles = append(g.Handles, rrGoldenHandleOut{OldSubtask: pos[0], Handle: pos[1], Offsets: slices.Clone(st.Offsets)})
				out[i][st.Name] = g
			}
		}
	}
	for _, sub := range out {
		for name, g := range sub {
			slices.SortStableFunc(g.Handles, func(a, b rrGoldenHandleOut) int {
				if a.OldSubtask != b.OldSubtask {
					return a.OldSubtask - b.OldSubtask
				}
				return a.Handle - b.Handle
			})
			g.Pairs = g.Pairs[:0]
			for _, h := range g.Handles {
				for _, o := range h.Offsets {
					g.Pairs = append(g.Pairs, [2]int{h.OldSubtask, int(o)})
				}
			}
			if len(g.Pairs) == 0 {
				g.Pairs = [][2]int{}
			}
			sub[name] = g
		}
	}
	return out
}

func TestRepartitionOperatorStateGolden(t *testing.T) {
	for _, c := range loadRoundRobinGolden(t) {
		for _, v := range []FlinkVersion{Flink118, Flink1101} {
			t.Run(fmt.Sprintf("case%d/%v", c.ID, v), func(t *testing.T) {
				want := c.Output
				if v == Flink1101 && c.Differs1101 {
					want = c.Output1101
				}
				prev := c.previous(t)
				got, err := RepartitionOperatorState(v, prev, c.NewParallelism)
				if err != nil {
					t.Fatalf("P %d → %d: %v", c.OldParallelism, c.NewParallelism, err)
				}
				if len(got) != c.NewParallelism {
					t.Fatalf("got %d subtasks, want %d", len(got), c.NewParallelism)
				}
				if diff := cmp.Diff(want, toGolden(t, &c, got)); diff != "" {
					t.Errorf("P %d → %d (-want +got):\n%s", c.OldParallelism, c.NewParallelism, diff)
				}
				// The input is left alone.
				if diff := cmp.Diff(c.previous(t), prev); diff != "" {
					t.Errorf("input modified (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// splitNameOrder visits the input as groupByStateMode does and returns the iteration order of
// the SPLIT_DISTRIBUTE HashMap.
func splitNameOrder(previous [][]OperatorStateHandle) []string {
	m := javamap.New(javamap.String)
	for _, hs := range previous {
		for _, h := range hs {
			for _, st := range h.States {
				if st.Mode == SplitDistribute {
					m.ComputeIfAbsent(st.Name)
				}
			}
		}
	}
	return m.Keys()
}

func TestSplitNameOrderGolden(t *testing.T) {
	for _, c := range loadRoundRobinGolden(t) {
		got := splitNameOrder(c.previous(t))
		want := c.SplitNameOrder
		if want == nil {
			want = []string{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("case %d: split name order (-want +got):\n%s", c.ID, diff)
		}
	}
}

// The first six tests of Flink's StateAssignmentOperationTest (SPEC §K.5): one operator with
// parallelism 2, repartitioned to 3, 1 and 2. Flink counts, over all new subtasks, the handles
// holding each name, and per new subtask the offsets per name and mode.

type sao struct {
	name    string
	mode    DistributionMode
	offsets []int64
}

func saoHandle(path string, size int64, states ...sao) []OperatorStateHandle {
	h := OperatorStateHandle{Delegate: StreamHandle{Path: path, Size: size, InMemory: true}}
	for _, s := range states {
		h.States = append(h.States, NamedOperatorState{Name: s.name, Mode: s.mode, Offsets: s.offsets})
	}
	return []OperatorStateHandle{h}
}

// collectStateInfo models verifyAndCollectStateInfo: it returns the handle count per name and
// checks the offsets per (subtask, mode, name).
func collectStateInfo(t *testing.T, v FlinkVersion, prev [][]OperatorStateHandle, newP int) map[string]int {
	t.Helper()
	oldP := len(prev)
	got, err := RepartitionOperatorState(v, prev, newP)
	if err != nil {
		t.Fatalf("%d → %d: %v", oldP, newP, err)
	}
	if len(got) != newP {
		t.Fatalf("%d → %d: %d subtasks", oldP, newP, len(got))
	}
	counts := map[string]int{}
	for i, hs := range got {
		perMode := map[DistributionMode]map[string]int{}
		for _, h := range hs {
			for _, st := range h.States {
				counts[st.Name]++
				if perMode[st.Mode] == nil {
					perMode[st.Mode] = map[string]int{}
				}
				perMode[st.Mode][st.Name] += len(st.Offsets)
			}
		}
		for mode, names := range perMode {
			want := 3 // BROADCAST: all to all
			switch mode {
			case SplitDistribute:
				want = 2 // not split when scaling down to 1 or keeping the parallelism
				if oldP < newP {
					want = 1
				}
			case Union:
				want = 2
			}
			for name, n := range names {
				if n != want {
					t.Errorf("%v %d → %d: new subtask %d has %d offsets of %s state %q, want %d", v, oldP, newP, i, n, mode, name, want)
				}
			}
		}
	}
	return counts
}

// verifyOneKind models verifyOneKindPartitionableStateRescale for 2 → 3, 1, 2.
func verifyOneKind(t *testing.T, versions []FlinkVersion, prev [][]OperatorStateHandle) {
	t.Helper()
	for _, v := range versions {
		for _, newP := range []int{3, 1, 2} {
			oldP := len(prev)
			counts := collectStateInfo(t, v, prev, newP)
			if len(counts) != 2 {
				t.Errorf("%v %d → %d: %d names, want 2: %v", v, oldP, newP, len(counts), counts)
			}
			want := map[string]int{}
			if _, ok := counts["t-1"]; ok {
				want["t-1"], want["t-2"] = 1, 1
				if oldP < newP {
					want["t-1"], want["t-2"] = 2, 2
				}
			}
			if _, ok := counts["t-3"]; ok {
				want["t-3"], want["t-4"] = 2*newP, newP
			}
			if _, ok := counts["t-5"]; ok {
				want["t-5"], want["t-6"] = newP, newP
			}
			if diff := cmp.Diff(want, counts); diff != "" {
				t.Errorf("%v %d → %d: handle count per name (-want +got):\n%s", v, oldP, newP, diff)
			}
		}
	}
}

var bothVersions = []FlinkVersion{Flink118, Flink1101}

func TestRepartitionSplitDistributeStates(t *testing.T) {
	verifyOneKind(t, bothVersions, [][]OperatorStateHandle{
		saoHandle("test1", 30, sao{"t-1", SplitDistribute, []int64{0, 10}}),
		saoHandle("test2", 40, sao{"t-2", SplitDistribute, []int64{0, 15}}),
	})
}

func TestRepartitionUnionState(t *testing.T) {
	verifyOneKind(t, bothVersions, [][]OperatorStateHandle{
		saoHandle("test1", 50, sao{"t-3", Union, []int64{0}}, sao{"t-4", Union, []int64{22, 44}}),
		saoHandle("test2", 20, sao{"t-3", Union, []int64{0}}),
	})
}

func TestRepartitionBroadcastState(t *testing.T) {
	verifyOneKind(t, bothVersions, [][]OperatorStateHandle{
		saoHandle("test1", 60, sao{"t-5", Broadcast, []int64{0, 10, 20}}, sao{"t-6", Broadcast, []int64{30, 40, 50}}),
		saoHandle("test2", 60, sao{"t-5", Broadcast, []int64{0, 10, 20}}, sao{"t-6", Broadcast, []int64{30, 40, 50}}),
	})
}

// Only subtask 0 reports the broadcast states; subtask 1 has no entry (modern only: 1.10.1
// leaves new subtask 1 without them at 2 → 2).
func TestRepartitionBroadcastStateWithNullSubtaskState(t *testing.T) {
	verifyOneKind(t, []FlinkVersion{Flink118}, [][]OperatorStateHandle{
		saoHandle("test1", 60, sao{"t-5", Broadcast, []int64{0, 10, 20}}, sao{"t-6", Broadcast, []int64{30, 40, 50}}),
		{},
	})
}

// As above, but subtask 1 reported an empty snapshot (a present, empty OperatorSubtaskState).
func TestRepartitionBroadcastStateWithEmptySubtaskState(t *testing.T) {
	verifyOneKind(t, []FlinkVersion{Flink118}, [][]OperatorStateHandle{
		saoHandle("test1", 60, sao{"t-5", Broadcast, []int64{0, 10, 20}}, sao{"t-6", Broadcast, []int64{30, 40, 50}}),
		[]OperatorStateHandle{},
	})
}

func TestReDistributeCombinedPartitionableStates(t *testing.T) {
	prev := [][]OperatorStateHandle{
		saoHandle("test1", 130,
			sao{"t-1", Union, []int64{0}},
			sao{"t-2", Union, []int64{22, 44}},
			sao{"t-3", SplitDistribute, []int64{52, 63}},
			sao{"t-4", Broadcast, []int64{67, 74, 75}},
			sao{"t-5", Broadcast, []int64{77, 88, 92}},
			sao{"t-6", Broadcast, []int64{101, 123, 127}}),
		saoHandle("test2", 86,
			sao{"t-1", Union, []int64{0}},
			sao{"t-4", Broadcast, []int64{20, 27, 28}},
			sao{"t-5", Broadcast, []int64{30, 44, 48}},
			sao{"t-6", Broadcast, []int64{57, 79, 83}}),
	}
	for _, v := range bothVersions {
		for _, newP := range []int{3, 1, 2} {
			counts := collectStateInfo(t, v, prev, newP)
			t3 := 1
			if newP > 2 {
				t3 = 2
			}
			want := map[string]int{"t-1": 2 * newP, "t-2": newP, "t-3": t3, "t-4": newP, "t-5": newP, "t-6": newP}
			if diff := cmp.Diff(want, counts); diff != "" {
				t.Errorf("%v 2 → %d: handle count per name (-want +got):\n%s", v, newP, diff)
			}
		}
	}
}

// TestPartitionableStateRepartitioning follows CheckpointCoordinatorTest.
// testPartitionableStateRepartitioning (SPEC §K.6) with the model's own random stream and
// offsets unique over the whole input: P_old and P_new in 1..9, checked against the invariants
// Flink's test checks (each offset's replication, the broadcast copy count of each old subtask,
// the load spread) and the output order the Go model promises. The faithful reproduction, with
// Flink's java.util.Random(42) inputs and its per-handle, per-name comparison, is
// TestCheckpointCoordinatorTest_testPartitionableStateRepartitioning.
func TestPartitionableStateRepartitioning(t *testing.T) {
	const seed = 42
	runs := 10000
	if testing.Short() {
		runs = 1000
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for run := range runs {
		oldP := 1 + rng.IntN(9)
		newP := 1 + rng.IntN(9)
		numStates := 1 + rng.IntN(9)
		maxPartitions := 1 + rng.IntN(9)
		prev := randomPartitionableState(rng, oldP, numStates, maxPartitions)
		for _, v := range bothVersions {
			got, err := RepartitionOperatorState(v, prev, newP)
			if err != nil {
				t.Fatalf("run %d (seed %d) %v %d → %d: %v", run, seed, v, oldP, newP, err)
			}
			if err := checkPartitionableInvariants(prev, got); err != nil {
				t.Fatalf("run %d (seed %d) %v %d → %d: %v\ninput: %+v\noutput: %+v\nTo reproduce: go test ./model -run '^TestPartitionableStateRepartitioning$' (runs are fixed by the seed)",
					run, seed, v, oldP, newP, err, prev, got)
			}
		}
	}
}

// randomPartitionableState models the state built by doTestPartitionableStateRepartitioning:
// one handle per old subtask with State-0 … State-(n-2) (UNION with probability 1/10, else
// SPLIT_DISTRIBUTE, 1..maxPartitions offsets) and, for even n, State-(n-1) as BROADCAST with 4
// offsets. Offsets are unique over the whole input.
func randomPartitionableState(rng *rand.Rand, oldP, numStates, maxPartitions int) [][]OperatorStateHandle {
	prev := make([][]OperatorStateHandle, oldP)
	var next int64
	offsets := func(n int) []int64 {
		o := make([]int64, n)
		for i := range o {
			o[i] = next
			next++
		}
		return o
	}
	for s := range prev {
		h := OperatorStateHandle{Delegate: StreamHandle{Path: fmt.Sprintf("chk-1/op-state-%d", s), Size: int64(s)}}
		for i := range numStates - 1 {
			mode := SplitDistribute
			if rng.IntN(10) == 0 {
				mode = Union
			}
			h.States = append(h.States, NamedOperatorState{Name: fmt.Sprintf("State-%d", i), Mode: mode, Offsets: offsets(1 + rng.IntN(maxPartitions))})
		}
		if numStates%2 == 0 {
			h.States = append(h.States, NamedOperatorState{Name: fmt.Sprintf("State-%d", numStates-1), Mode: Broadcast, Offsets: offsets(4)})
		}
		prev[s] = []OperatorStateHandle{h}
	}
	return prev
}

// checkPartitionableInvariants checks what testPartitionableStateRepartitioning checks, plus
// that a new subtask holds each delegate once and a handle each name once (the order of both is
// Flink's HashMaps', which TestRepartitionOperatorStateAgainstJDK checks).
func checkPartitionableInvariants(prev, got [][]OperatorStateHandle) error {
	oldP, newP := len(prev), len(got)
	type origin struct {
		subtask int
		mode    DistributionMode
	}
	from := map[int64]origin{}
	broadcastOf := map[string]int{} // first offset of a broadcast copy → old subtask
	for s, hs := range prev {
		for _, h := range hs {
			for _, st := range h.States {
				for _, o := range st.Offsets {
					from[o] = origin{s, st.Mode}
				}
				if st.Mode == Broadcast {
					broadcastOf[fmt.Sprint(st.Offsets)] = s
				}
			}
		}
	}
	seen := map[int64]int{}
	copies := make([]int, oldP)
	load := make([]int, newP)
	for i, hs := range got {
		delegates := map[StreamHandle]bool{}
		for _, h := range hs {
			if delegates[h.Delegate] {
				return fmt.Errorf("new subtask %d: two handles of %v", i, h.Delegate)
			}
			delegates[h.Delegate] = true
			names := map[string]bool{}
			for _, st := range h.States {
				if names[st.Name] {
					return fmt.Errorf("new subtask %d: %q twice in the handle of %v", i, st.Name, h.Delegate)
				}
				names[st.Name] = true
				for _, o := range st.Offsets {
					seen[o]++
				}
				load[i] += len(st.Offsets)
				if st.Mode == Broadcast {
					s, ok := broadcastOf[fmt.Sprint(st.Offsets)]
					if !ok {
						return fmt.Errorf("new subtask %d: broadcast %q with offsets %v matches no old copy", i, st.Name, st.Offsets)
					}
					copies[s]++
				}
			}
		}
	}
	for o, org := range from {
		want := 1
		switch org.mode {
		case Union:
			want = newP
		case Broadcast:
			want = newP / oldP
			if org.subtask < newP%oldP {
				want++
			}
		}
		if seen[o] != want {
			return fmt.Errorf("%v offset %d of old subtask %d appears %d times, want %d", org.mode, o, org.subtask, seen[o], want)
		}
	}
	for s, hs := range prev {
		for _, h := range hs {
			if !slices.ContainsFunc(h.States, func(st NamedOperatorState) bool { return st.Mode == Broadcast }) {
				continue
			}
			want := newP / oldP
			if s < newP%oldP {
				want++
			}
			if copies[s] != want {
				return fmt.Errorf("broadcast copy of old subtask %d received %d times, want %d", s, copies[s], want)
			}
		}
	}
	if oldP != newP {
		if lo, hi := slices.Min(load), slices.Max(load); hi-lo > 1 {
			return fmt.Errorf("offsets per new subtask %v differ by more than 1", load)
		}
	}
	return nil
}

func TestRepartitionOperatorStateErrors(t *testing.T) {
	ok := [][]OperatorStateHandle{saoHandle("a", 1, sao{"x", SplitDistribute, []int64{1}})}
	dupDelegate := [][]OperatorStateHandle{
		append(saoHandle("a", 1, sao{"u", Union, []int64{1}}), saoHandle("a", 1, sao{"v", SplitDistribute, []int64{2}})...),
	}
	tests := []struct {
		name string
		v    FlinkVersion
		prev [][]OperatorStateHandle
		newP int
		want error
	}{
		{"zero new parallelism", Flink118, ok, 0, ErrNonPositiveNewParallelism},
		{"negative new parallelism", Flink1101, ok, -3, ErrNonPositiveNewParallelism},
		{"unknown version", FlinkVersion(9), ok, 2, ErrUnknownFlinkVersion},
		{"new parallelism above 32768", Flink118, ok, UpperBoundMaxParallelism + 1, ErrParallelismOutOfBounds},
		{"huge new parallelism", Flink118, ok, 1 << 40, ErrParallelismOutOfBounds},
		{"zero mode", Flink118, [][]OperatorStateHandle{saoHandle("a", 1, sao{"x", 0, nil})}, 2, ErrMalformedOperatorStateHandle},
		{"mode out of range", Flink118, [][]OperatorStateHandle{saoHandle("a", 1, sao{"x", 7, nil})}, 1, ErrMalformedOperatorStateHandle},
		{"duplicate name", Flink118, [][]OperatorStateHandle{saoHandle("a", 1, sao{"x", Union, nil}, sao{"x", Union, nil})}, 3, ErrMalformedOperatorStateHandle},
		{"duplicate delegate, same parallelism, union", Flink1101, dupDelegate, 1, ErrDuplicateDelegate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RepartitionOperatorState(tt.v, tt.prev, tt.newP)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if got != nil {
				t.Errorf("result %v with error", got)
			}
		})
	}
	var me *MalformedOperatorStateHandleError
	_, err := RepartitionOperatorState(Flink118, [][]OperatorStateHandle{{}, saoHandle("a", 1, sao{"x", 0, nil})}, 1)
	if !errors.As(err, &me) || me.OldSubtask != 1 || me.Handle != 0 || me.State != "x" {
		t.Errorf("errors.As: %#v (%v)", me, err)
	}
	var de *DuplicateDelegateError
	_, err = RepartitionOperatorState(Flink118, dupDelegate, 1)
	if !errors.As(err, &de) || de.OldSubtask != 0 || de.Delegate.Path != "a" {
		t.Errorf("errors.As: %#v (%v)", de, err)
	}
}

// No old subtasks at all (P_old = 0) is legal for Flink's repartitioner: every new subtask gets
// an empty list.
func TestRepartitionOperatorStateNoOldSubtasks(t *testing.T) {
	for _, v := range bothVersions {
		got, err := RepartitionOperatorState(v, nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]OperatorStateHandle{{}, {}, {}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", v, diff)
		}
	}
}

// Duplicate delegates merge (no error) when the parallelism changes, and pass through untouched
// when Flink takes the unchanged-parallelism shortcut.
func TestRepartitionOperatorStateDuplicateDelegates(t *testing.T) {
	d := StreamHandle{Path: "shared", Size: 7}
	prev := [][]OperatorStateHandle{{
		{Delegate: d, States: []NamedOperatorState{{Name: "b", Mode: SplitDistribute, Offsets: []int64{1, 2}}}},
		{Delegate: d, States: []NamedOperatorState{{Name: "a", Mode: SplitDistribute, Offsets: []int64{3}}}},
	}}
	got, err := RepartitionOperatorState(Flink118, prev, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(prev, got); diff != "" {
		t.Errorf("shortcut (-want +got):\n%s", diff)
	}
	got, err = RepartitionOperatorState(Flink118, append(prev, []OperatorStateHandle{}), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]OperatorStateHandle{{{Delegate: d, States: []NamedOperatorState{
		{Name: "a", Mode: SplitDistribute, Offsets: []int64{3}},
		{Name: "b", Mode: SplitDistribute, Offsets: []int64{1, 2}},
	}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("2 → 1 (-want +got):\n%s", diff)
	}
	// Two old subtasks over one stream: both entries of "s" reach new subtask 0 under the same
	// delegate, and Flink's map put keeps only the later one.
	prev = [][]OperatorStateHandle{
		{{Delegate: d, States: []NamedOperatorState{{Name: "s", Mode: SplitDistribute, Offsets: []int64{1, 2}}}}},
		{{Delegate: d, States: []NamedOperatorState{{Name: "s", Mode: SplitDistribute, Offsets: []int64{3}}}}},
	}
	got, err = RepartitionOperatorState(Flink118, prev, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = [][]OperatorStateHandle{{{Delegate: d, States: []NamedOperatorState{
		{Name: "s", Mode: SplitDistribute, Offsets: []int64{3}},
	}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shared delegate 2 → 1 (-want +got):\n%s", diff)
	}
}

// TestRepartitionBroadcastBitSetCapacity pins the BitSet quirk of SPEC §E.2: in 1.18 a
// broadcast state counts as partly reported when fewer than BitSet(P_old).size() =
// 64·⌈P_old/64⌉ old subtasks report it. Each old subtask here holds two handles with the state,
// so redistributing (new subtask i receives entry i mod 2·P_old) is visible.
func TestRepartitionBroadcastBitSetCapacity(t *testing.T) {
	for _, tt := range []struct {
		p         int
		missing   int // an old subtask without state, or -1
		v         FlinkVersion
		redistrib bool
	}{
		{2, -1, Flink118, true},
		{63, -1, Flink118, true},
		{64, -1, Flink118, false},
		{64, 5, Flink118, true},
		{65, -1, Flink118, true},
		{128, -1, Flink118, false},
		{2, -1, Flink1101, false},
		{64, 5, Flink1101, false},
	} {
		prev := make([][]OperatorStateHandle, tt.p)
		var entries []OperatorStateHandle
		for s := range prev {
			prev[s] = []OperatorStateHandle{}
			if s == tt.missing {
				continue
			}
			for h := range 2 {
				oh := OperatorStateHandle{Delegate: goldenDelegate(s, h),
					States: []NamedOperatorState{{Name: "b", Mode: Broadcast, Offsets: []int64{int64(s), int64(h)}}}}
				prev[s] = append(prev[s], oh)
				entries = append(entries, oh)
			}
		}
		want := cloneOperatorState(prev)
		if tt.redistrib {
			for i := range want {
				e := entries[i%len(entries)]
				if !slices.ContainsFunc(want[i], func(h OperatorStateHandle) bool { return h.Delegate == e.Delegate }) {
					want[i] = append(want[i], e)
				}
			}
		}
		got, err := RepartitionOperatorState(tt.v, prev, tt.p)
		if err != nil {
			t.Fatal(err)
		}
		// Which handles arrive is the point here; their order (Flink's HashMap's) is
		// TestRepartitionOperatorStateAgainstJDK's.
		for _, l := range [][][]OperatorStateHandle{want, got} {
			for _, hs := range l {
				slices.SortFunc(hs, func(a, b OperatorStateHandle) int { return int(a.Delegate.Size - b.Delegate.Size) })
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v P=%d missing %d (-want +got):\n%s", tt.v, tt.p, tt.missing, diff)
		}
	}
}

// A caller owns the result: changing it changes neither the input nor other result handles.
func TestRepartitionOperatorStateNoAliasing(t *testing.T) {
	mk := func() [][]OperatorStateHandle {
		return [][]OperatorStateHandle{
			saoHandle("a", 1, sao{"s", SplitDistribute, []int64{1, 2, 3}}, sao{"u", Union, []int64{4, 5}}, sao{"b", Broadcast, []int64{6}}),
			saoHandle("b", 2, sao{"s", SplitDistribute, []int64{7}}, sao{"b", Broadcast, []int64{8}}),
		}
	}
	splitOnly := func() [][]OperatorStateHandle { // unchanged parallelism: Flink's shortcut
		return [][]OperatorStateHandle{
			saoHandle("a", 1, sao{"s", SplitDistribute, []int64{1, 2, 3}}),
			saoHandle("b", 2, sao{"s", SplitDistribute, []int64{4}}, sao{"t", SplitDistribute, []int64{5, 6}}),
		}
	}
	for _, in := range []func() [][]OperatorStateHandle{mk, splitOnly} {
		for _, newP := range []int{1, 2, 3} {
			for _, v := range bothVersions {
				checkNoAliasing(t, v, in, newP)
			}
		}
	}
}

func checkNoAliasing(t *testing.T, v FlinkVersion, mk func() [][]OperatorStateHandle, newP int) {
	t.Helper()
	{
		{
			prev := mk()
			got, err := RepartitionOperatorState(v, prev, newP)
			if err != nil {
				t.Fatal(err)
			}
			snapshot := cloneOperatorState(got)
			for i := range got {
				for k := range got[i] {
					for s := range got[i][k].States {
						st := &got[i][k].States[s]
						for o := range st.Offsets {
							st.Offsets[o] = -1
						}
					}
				}
			}
			for i := range got {
				for k := range got[i] {
					for _, st := range got[i][k].States {
						_ = append(st.Offsets, -2) // must not write into a neighbour
					}
				}
			}
			if diff := cmp.Diff(mk(), prev); diff != "" {
				t.Errorf("%v 2 → %d: input changed through the result (-want +got):\n%s", v, newP, diff)
			}
			for i := range got {
				for k := range got[i] {
					for s, st := range got[i][k].States {
						if n := len(snapshot[i][k].States[s].Offsets); n != len(st.Offsets) {
							t.Fatalf("length changed")
						}
						for _, o := range st.Offsets {
							if o != -1 {
								t.Errorf("%v 2 → %d: offsets of subtask %d handle %d state %q share memory", v, newP, i, k, st.Name)
							}
						}
					}
				}
			}
		}
	}
}

func BenchmarkRepartitionOperatorState(b *testing.B) {
	// P_old → P_new = P_old ± 1 around 1024 and 32768 (Flink's largest parallelism).
	for _, c := range [][2]int{{1024, 1023}, {1024, 1025}, {32768, 32767}, {32767, 32768}} {
		oldP, newP := c[0], c[1]
		prev := make([][]OperatorStateHandle, oldP)
		for s := range prev {
			// A typical source: split offsets (Kafka partitions) plus a broadcast state.
			prev[s] = []OperatorStateHandle{{
				Delegate: StreamHandle{Path: fmt.Sprintf("chk-42/op-%d", s), Size: 1024},
				States: []NamedOperatorState{
					{Name: "topic-partition-offset-states", Mode: SplitDistribute, Offsets: []int64{0, 100, 200, 300}},
					{Name: "rules", Mode: Broadcast, Offsets: []int64{400}},
				},
			}}
		}
		b.Run(fmt.Sprintf("%d→%d", oldP, newP), func(b *testing.B) {
			for b.Loop() {
				if _, err := RepartitionOperatorState(Flink118, prev, newP); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A name written twice keeps its first place in the loader's map and its last value;
// "Aa" and "BB" share a bucket, so their order is the order written.
func TestLoadedOperatorStates(t *testing.T) {
	in := []NamedOperatorState{
		{Name: "BB", Mode: Union, Offsets: []int64{1}},
		{Name: "Aa", Mode: SplitDistribute, Offsets: []int64{2}},
		{Name: "BB", Mode: Broadcast, Offsets: []int64{3}},
	}
	want := []NamedOperatorState{{Name: "BB", Mode: Broadcast, Offsets: []int64{3}}, {Name: "Aa", Mode: SplitDistribute, Offsets: []int64{2}}}
	for _, v := range []FlinkVersion{Flink118, Flink1101} {
		if diff := cmp.Diff(want, LoadedOperatorStates(v, in)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", v, diff)
		}
	}
}
