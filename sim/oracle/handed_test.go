package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenHandle is one (old subtask, handle) delegate a new subtask received for a name.
type goldenHandle struct {
	OldSubtask int     `json:"old_subtask"`
	Handle     int     `json:"handle"`
	Offsets    []int64 `json:"offsets"`
}

type goldenName struct {
	Mode    string         `json:"mode"`
	Handles []goldenHandle `json:"handles"`
}

type goldenCase struct {
	ID             int `json:"id"`
	OldParallelism int `json:"old_parallelism"`
	NewParallelism int `json:"new_parallelism"`
	Input          [][]struct {
		Handle int `json:"handle"`
		States []struct {
			Name       string `json:"name"`
			Mode       string `json:"mode"`
			NumOffsets int    `json:"num_offsets"`
		} `json:"states"`
	} `json:"input"`
	Output    []map[string]goldenName `json:"output"`
	Differs   bool                    `json:"differs_in_1_10_1"`
	Output110 []map[string]goldenName `json:"output_1_10_1"`
}

// TestRoundRobinGolden runs the oracle's own round robin on every case of Flink's
// repartitioner golden file (SPEC §L.1, produced by Flink's classes; read as data, the oracle
// imports nothing of the model), modern and 1.10.1.
func TestRoundRobinGolden(t *testing.T) {
	data, err := os.ReadFile("../../model/testdata/flink/roundrobin.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != 135 {
		t.Fatalf("%d golden cases, want 135", len(g.Cases))
	}
	modes := map[string]Mode{"SPLIT_DISTRIBUTE": SplitDistribute, "UNION": Union, "BROADCAST": Broadcast}
	for _, c := range g.Cases {
		prev := make([][]OperatorHandle, c.OldParallelism)
		for j, hs := range c.Input {
			for _, h := range hs {
				oh := OperatorHandle{Stream: fmt.Sprintf("%d/%d", j, h.Handle)}
				for _, s := range h.States {
					offs := make([]int64, s.NumOffsets)
					for k := range offs {
						offs[k] = int64(k)
					}
					oh.States = append(oh.States, NamedList{Name: s.Name, Mode: modes[s.Mode], Offsets: offs})
				}
				prev[j] = append(prev[j], oh)
			}
		}
		for _, modern := range []bool{true, false} {
			want := c.Output
			if !modern && c.Differs {
				want = c.Output110
			}
			entries, union, _ := RoundRobin(modern, prev, c.NewParallelism)
			got := make([]map[string]goldenName, c.NewParallelism)
			for i := range got {
				got[i] = map[string]goldenName{}
				for _, e := range append(slices.Clone(entries[i]), union.Entries()...) {
					var j, h int
					fmt.Sscanf(e.Stream, "%d/%d", &j, &h)
					n := got[i][e.State.Name]
					n.Mode = e.State.Mode.String()
					n.Handles = append(n.Handles, goldenHandle{OldSubtask: j, Handle: h, Offsets: e.State.Offsets})
					got[i][e.State.Name] = n
				}
				for name, n := range got[i] {
					slices.SortFunc(n.Handles, func(a, b goldenHandle) int {
						if a.OldSubtask != b.OldSubtask {
							return a.OldSubtask - b.OldSubtask
						}
						return a.Handle - b.Handle
					})
					for k := range n.Handles {
						if n.Handles[k].Offsets == nil {
							n.Handles[k].Offsets = []int64{}
						}
					}
					got[i][name] = n
				}
			}
			for i := range want {
				for name, n := range want[i] {
					for k := range n.Handles {
						if n.Handles[k].Offsets == nil {
							n.Handles[k].Offsets = []int64{}
						}
					}
					want[i][name] = n
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("case %d (P %d -> %d, modern %v): (-want +got)\n%s", c.ID, c.OldParallelism, c.NewParallelism, modern, d)
			}
		}
	}
}

// TestCutKeyed (oldKeyed.cut): a key-groups handle keeps the overlapping key groups with their offsets; an
// incremental handle overlapping at all is taken whole; at unchanged parallelism nothing is cut.
func TestCutKeyed(t *testing.T) {
	kg := KeyedHandle{Stream: "f", Start: 0, End: 5, Offsets: []int64{0, 1, 2, 3, 4, 5}}
	inc := KeyedHandle{Incremental: true, Stream: "b", Start: 4, End: 9, Checkpoint: 3, Shared: []string{"s1"}}
	st := &StoredOperator{Parallelism: 2, MaxParallelism: 10, Subtasks: []*SubtaskState{{ManagedKeyed: []KeyedHandle{kg}}, {ManagedKeyed: []KeyedHandle{inc}}}}
	managed, _ := oldKeyedOf(st).cut(3, 1, [2]int{4, 6})
	want := []KeyedHandle{{Stream: "f", Start: 4, End: 5, Offsets: []int64{4, 5}}, inc}
	if d := cmp.Diff(want, managed); d != "" {
		t.Errorf("cut to [4,6]: (-want +got)\n%s", d)
	}
	if managed, _ := oldKeyedOf(st).cut(3, 2, [2]int{7, 9}); !slices.EqualFunc(managed, []KeyedHandle{inc}, func(a, b KeyedHandle) bool { return cmp.Equal(a, b) }) {
		t.Errorf("cut to [7,9]: %v, want the incremental handle whole", managed)
	}
	if managed, _ := oldKeyedOf(st).cut(2, 0, [2]int{0, 4}); !cmp.Equal(managed, []KeyedHandle{kg}) {
		t.Errorf("unchanged parallelism: %v, want old subtask 0's handle uncut", managed)
	}
}
