package differential

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/restoresim/restoresim/model"
)

// The generator writes cases in the JSON of ASSIGN-CASE.md directly: these structs are its
// rendering of a drawn case (the decoding, for the model, is assigncase's).

type gCase struct {
	CheckpointID          int64       `json:"checkpoint_id"`
	AllowNonRestoredState bool        `json:"allow_non_restored_state"`
	RecoverOutput         *bool       `json:"recover_output_on_downstream_task,omitempty"`
	Vertices              []*gVertex  `json:"vertices"`
	Operators             []*gOpState `json:"operators"`
}

type gVertex struct {
	Name                     string      `json:"name"`
	Operators                []gOperator `json:"operators"`
	Parallelism              int         `json:"parallelism"`
	MaxParallelism           *int        `json:"max_parallelism,omitempty"`
	MaxParallelismConfigured bool        `json:"max_parallelism_configured"`
	Inputs                   []gEdge     `json:"inputs,omitempty"`
}

type gOperator struct {
	ID            string `json:"id"`
	UserDefinedID string `json:"user_defined_id,omitempty"`
}

type gEdge struct {
	Upstream            int    `json:"upstream"`
	Partition           *int   `json:"partition,omitempty"`
	UpstreamMapper      string `json:"upstream_mapper"`
	DownstreamMapper    string `json:"downstream_mapper"`
	DistributionPattern string `json:"distribution_pattern,omitempty"`
	Broadcast           bool   `json:"broadcast,omitempty"`
	Forward             bool   `json:"forward,omitempty"`
}

type gOpState struct {
	OperatorID     string      `json:"operator_id"`
	Parallelism    int         `json:"parallelism"`
	MaxParallelism int         `json:"max_parallelism"`
	FullyFinished  bool        `json:"fully_finished,omitempty"`
	Subtasks       []*gSubtask `json:"subtasks"`
}

// gSubtask is one old subtask: nil (no entry), finished, or state.
type gSubtask struct {
	Finished             bool        `json:"finished,omitempty"`
	ManagedOperatorState []gOpHandle `json:"managed_operator_state,omitempty"`
	RawOperatorState     []gOpHandle `json:"raw_operator_state,omitempty"`
	ManagedKeyedState    []gKeyed    `json:"managed_keyed_state,omitempty"`
	RawKeyedState        []gKeyed    `json:"raw_keyed_state,omitempty"`
	InputChannelState    []gChannel  `json:"input_channel_state,omitempty"`
	ResultSubpartitionSt []gChannel  `json:"result_subpartition_state,omitempty"`
}

type gDelegate struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	InMemory bool   `json:"in_memory,omitempty"`
}

type gOpHandle struct {
	Delegate gDelegate     `json:"delegate"`
	States   []gNamedState `json:"states"`
}

type gNamedState struct {
	Name    string  `json:"name"`
	Mode    string  `json:"mode"`
	Offsets []int64 `json:"offsets"`
}

type gRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type gKeyGroups struct {
	Range   gRange  `json:"range"`
	Offsets []int64 `json:"offsets"`
}

type gKeyed struct {
	Type          string       `json:"type"`
	KeyGroups     *gKeyGroups  `json:"key_groups,omitempty"`
	Delegate      *gDelegate   `json:"delegate,omitempty"`
	StateHandleID string       `json:"state_handle_id,omitempty"`
	BackendID     string       `json:"backend_id,omitempty"`
	KeyGroupRange *gRange      `json:"key_group_range,omitempty"`
	CheckpointID  int64        `json:"checkpoint_id,omitempty"`
	Shared        []gLocalPath `json:"shared,omitempty"`
	Private       []gLocalPath `json:"private,omitempty"`
	Meta          *gDelegate   `json:"meta,omitempty"`
}

type gLocalPath struct {
	LocalPath string    `json:"local_path"`
	Handle    gDelegate `json:"handle"`
}

type gChannel struct {
	SubtaskIndex    int       `json:"subtask_index"`
	GateOrPartition int       `json:"gate_or_partition"`
	Channel         int       `json:"channel"`
	Offsets         []int64   `json:"offsets"`
	Delegate        gDelegate `json:"delegate"`
}

// Generate draws one case for a version. The same rng state gives the same case.
func Generate(r *rand.Rand, v model.FlinkVersion) []byte {
	g := gen{r: r, v: v}
	b, err := json.Marshal(g.draw())
	if err != nil {
		panic(fmt.Sprintf("differential: internal error: %v", err))
	}
	return b
}

type gen struct {
	r   *rand.Rand
	v   model.FlinkVersion
	ids int
}

func (g *gen) id() string {
	g.ids++
	// Small distinct IDs spread over both halves, as generated operator IDs are.
	return fmt.Sprintf("%016x%016x", g.r.Uint64(), uint64(g.ids))
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

var mappers = []string{"ARBITRARY", "FIRST", "FULL", "RANGE", "ROUND_ROBIN", "UNSUPPORTED"}

func (g *gen) maxPar() int {
	return []int{1, 2, 4, 8, 16, 128, 128, 128, 256}[g.r.IntN(9)]
}

func (g *gen) draw() *gCase {
	c := &gCase{CheckpointID: int64(1 + g.r.IntN(100))}
	c.AllowNonRestoredState = g.chance(0.3)
	if g.v.AtLeast(model.Flink23) && g.chance(0.2) {
		t := g.chance(0.5)
		c.RecoverOutput = &t
	}
	nv := 1 + g.r.IntN(4)
	wide := g.chance(0.15)
	if wide {
		nv = 3 + g.r.IntN(5)
	}
	for i := 0; i < nv; i++ {
		vx := &gVertex{Name: fmt.Sprintf("v%d", i)}
		nops := 1 + g.r.IntN(3)
		for k := 0; k < nops; k++ {
			op := gOperator{ID: g.id()}
			if g.chance(0.15) {
				op.UserDefinedID = g.id()
			}
			vx.Operators = append(vx.Operators, op)
		}
		vx.Parallelism = 1 + g.r.IntN(8)
		if g.chance(0.6) {
			m := g.maxPar()
			if m < vx.Parallelism && g.chance(0.8) {
				m = 128
			}
			vx.MaxParallelism = &m
		}
		vx.MaxParallelismConfigured = vx.MaxParallelism != nil && g.chance(0.5)
		if i > 0 {
			nin := 0
			if g.chance(0.8) {
				nin = 1
				if g.chance(0.25) {
					nin = 2
				}
			}
			for k := 0; k < nin; k++ {
				e := gEdge{Upstream: g.r.IntN(i)}
				if g.chance(0.85) {
					p := model.Partitioners()[g.r.IntN(len(model.Partitioners()))]
					up, down := p.Mappers()
					e.UpstreamMapper, e.DownstreamMapper = up.String(), down.String()
				} else {
					e.UpstreamMapper, e.DownstreamMapper = g.pick(mappers...), g.pick(mappers...)
				}
				if g.chance(0.05) {
					e.DistributionPattern = "POINTWISE"
				}
				e.Broadcast = g.chance(0.05)
				e.Forward = g.chance(0.05)
				vx.Inputs = append(vx.Inputs, e)
			}
		}
		c.Vertices = append(c.Vertices, vx)
	}
	// Which vertices have consumers (for result subpartition state).
	outputs := make([]int, nv)
	for _, vx := range c.Vertices {
		for _, e := range vx.Inputs {
			outputs[e.Upstream]++
		}
	}
	for i, vx := range c.Vertices {
		finished := g.chance(0.03)
		for k, op := range vx.Operators {
			if !g.chance(0.8) {
				continue
			}
			id := op.ID
			if op.UserDefinedID != "" && g.chance(0.7) {
				id = op.UserDefinedID
			}
			head, tail := k == len(vx.Operators)-1, k == 0
			c.Operators = append(c.Operators, g.opState(id, vx, finished, head && len(vx.Inputs) > 0, len(vx.Inputs), tail && outputs[i] > 0, outputs[i]))
		}
	}
	if g.chance(0.1) {
		// State of an operator the new job does not have.
		c.Operators = append(c.Operators, g.opState(g.id(), c.Vertices[0], false, false, 0, false, 0))
	}
	g.r.Shuffle(len(c.Operators), func(i, j int) { c.Operators[i], c.Operators[j] = c.Operators[j], c.Operators[i] })
	return c
}

func (g *gen) opState(id string, vx *gVertex, finished, inputs bool, gates int, outputs bool, partitions int) *gOpState {
	p := 1 + g.r.IntN(8)
	if g.chance(0.3) {
		p = vx.Parallelism
	}
	m := 128
	switch {
	case vx.MaxParallelism != nil && g.chance(0.8):
		m = *vx.MaxParallelism
	case g.chance(0.5):
		m = g.maxPar()
	}
	if m < p {
		if g.chance(0.9) {
			m = 128
		} else {
			p = m // rarely: a state at its max parallelism
		}
	}
	os := &gOpState{OperatorID: id, Parallelism: p, MaxParallelism: m, FullyFinished: finished}
	if finished {
		return os
	}
	keyed := g.chance(0.5)
	incremental := keyed && g.chance(0.25)
	opstate := g.chance(0.5)
	names := []string{"a", "b", "c", "d", "e"}[:1+g.r.IntN(5)]
	modes := map[string]string{}
	for _, n := range names {
		modes[n] = g.pick("SPLIT_DISTRIBUTE", "SPLIT_DISTRIBUTE", "UNION", "BROADCAST")
	}
	backend := fmt.Sprintf("%08x-0000-4000-8000-%012x", g.r.Uint32(), g.r.Uint64()&0xffffffffffff)
	for i := 0; i < p; i++ {
		switch {
		case g.chance(0.08):
			os.Subtasks = append(os.Subtasks, nil)
			continue
		case g.chance(0.03):
			os.Subtasks = append(os.Subtasks, &gSubtask{Finished: true})
			continue
		}
		s := &gSubtask{}
		file := fmt.Sprintf("file:///ckpt/chk-%s/%d", id[:6], i)
		if opstate {
			for h := 0; h < 1+g.r.IntN(2); h++ {
				oh := gOpHandle{Delegate: gDelegate{Path: fmt.Sprintf("%s-op%d", file, h), Size: 1000, InMemory: g.chance(0.2)}}
				off := int64(8)
				for _, n := range names {
					if !g.chance(0.7) {
						continue
					}
					k := g.r.IntN(4)
					if modes[n] == "BROADCAST" && k == 0 {
						k = 1
					}
					var offs []int64
					for x := 0; x < k; x++ {
						offs = append(offs, off)
						off += int64(1 + g.r.IntN(20))
					}
					oh.States = append(oh.States, gNamedState{Name: n, Mode: modes[n], Offsets: offs})
				}
				if g.chance(0.85) {
					s.ManagedOperatorState = append(s.ManagedOperatorState, oh)
				} else {
					s.RawOperatorState = append(s.RawOperatorState, oh)
				}
			}
		}
		if keyed {
			kr, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
			if err == nil && kr.NumberOfKeyGroups() > 0 {
				rng := gRange{Start: kr.Start, End: kr.End}
				var k gKeyed
				if incremental {
					k = gKeyed{Type: "IncrementalRemoteKeyedStateHandle", BackendID: backend, KeyGroupRange: &rng, CheckpointID: 3,
						Shared:  []gLocalPath{{LocalPath: "000001.sst", Handle: gDelegate{Path: file + "-sst1", Size: 500}}},
						Private: []gLocalPath{{LocalPath: "MANIFEST", Handle: gDelegate{Path: file + "-manifest", Size: 20}}},
						Meta:    &gDelegate{Path: file + "-meta", Size: 30}, StateHandleID: fmt.Sprintf("inc-%d", i)}
				} else {
					var offs []int64
					off := int64(8)
					for x := rng.Start; x <= rng.End; x++ {
						if g.chance(0.2) {
							offs = append(offs, 0)
							continue
						}
						offs = append(offs, off)
						off += int64(1 + g.r.IntN(10))
					}
					typ := "KeyGroupsStateHandle"
					if g.chance(0.2) {
						typ = "KeyGroupsSavepointStateHandle"
					}
					k = gKeyed{Type: typ, KeyGroups: &gKeyGroups{Range: rng, Offsets: offs}, Delegate: &gDelegate{Path: file + "-keyed", Size: off}}
					if typ == "KeyGroupsStateHandle" {
						k.StateHandleID = fmt.Sprintf("kg-%d", i)
					}
				}
				if g.chance(0.9) {
					s.ManagedKeyedState = append(s.ManagedKeyedState, k)
				} else {
					s.RawKeyedState = append(s.RawKeyedState, k)
				}
			}
		}
		if inputs && g.chance(0.5) {
			for ch := 0; ch < 1+g.r.IntN(3); ch++ {
				s.InputChannelState = append(s.InputChannelState, gChannel{SubtaskIndex: i, GateOrPartition: g.r.IntN(gates), Channel: ch, Offsets: []int64{0, 100}, Delegate: gDelegate{Path: file + "-in", Size: 200}})
			}
		}
		if outputs && g.chance(0.5) {
			for ch := 0; ch < 1+g.r.IntN(3); ch++ {
				s.ResultSubpartitionSt = append(s.ResultSubpartitionSt, gChannel{SubtaskIndex: i, GateOrPartition: g.r.IntN(partitions), Channel: ch, Offsets: []int64{0, 100}, Delegate: gDelegate{Path: file + "-out", Size: 200}})
			}
		}
		os.Subtasks = append(os.Subtasks, s)
	}
	return os
}
