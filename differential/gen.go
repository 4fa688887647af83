package differential

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
)

// Generate draws one case for a version, in the JSON of ASSIGN-CASE.md. The same rng state
// gives the same case.
func Generate(r *rand.Rand, v model.FlinkVersion) []byte {
	b, err := json.Marshal(GenerateCase(r, v))
	if err != nil {
		panic(fmt.Sprintf("differential: internal error: %v", err))
	}
	return b
}

// GenerateCase draws one case for a version as an assigncase.Case. The same rng state gives the
// same case.
//
// A case is drawn as a restore meant to succeed (the new job's vertices, their chains and edges,
// and a checkpoint of it taken at other parallelisms), and then, in about half of the cases, a
// fault is put in: one of the Faults, each as likely as the others, so that every refusal
// kind is well represented beside the assignments. The faults a version cannot show are not
// drawn for it; recover_output_on_downstream_task is only ever false (the model does not recover
// output buffers downstream, FLINK-38542: Case.Input refuses such a case as not modelled). The
// model's versions are the branch heads the archives hold (FLINK-38483 and FLINK-40269 on
// release-1.20, FLINK-40269 on release-2.2 and release-2.3), so every shape is drawn on every
// version that has it.
func GenerateCase(r *rand.Rand, v model.FlinkVersion) *assigncase.Case {
	g := gen{r: r, v: v}
	return g.draw()
}

// A Fault is what the generator puts into a case to make a side refuse it (or, for some, to
// reach a rarer path that still assigns).
type Fault string

// The faults.
const (
	FaultNone               Fault = ""
	FaultMissingOperator    Fault = "missing-operator" // state of an operator the job lacks
	FaultMaxParChange       Fault = "max-parallelism-change"
	FaultMaxParBelow        Fault = "max-parallelism-below-parallelism"
	FaultVertexParallelism  Fault = "vertex-parallelism"   // parallelism above the configured max
	FaultMixedFinished      Fault = "mixed-finished"       // a chain with finished and running operators
	FaultUnsupportedRescale Fault = "unsupported-rescale"  // in-flight data over a pointwise edge, rescaled
	FaultTopologyChange     Fault = "topology-change"      // channel state of an operator now chained inside
	FaultRawKeyedOnly       Fault = "raw-keyed-only"       // raw keyed state without managed keyed state
	FaultStateInput         Fault = "state-input"          // old state Flink's constructors refuse
	FaultMaxParDisagreement Fault = "max-par-disagreement" // chained keyed operators of other max parallelisms
	FaultMaxParOutOfBounds  Fault = "max-par-out-of-bounds"
	FaultFieldVersion       Fault = "field-version" // a field the version does not have
)

// Faults lists the faults the generator draws for a version.
func Faults(v model.FlinkVersion) []Fault {
	fs := []Fault{FaultMissingOperator, FaultMaxParChange, FaultMaxParBelow, FaultVertexParallelism, FaultMixedFinished,
		FaultUnsupportedRescale, FaultTopologyChange, FaultRawKeyedOnly, FaultStateInput, FaultMaxParDisagreement,
		FaultMaxParOutOfBounds}
	if v.Before(model.Flink23) {
		fs = append(fs, FaultFieldVersion)
	}
	return fs
}

type gen struct {
	r     *rand.Rand
	v     model.FlinkVersion
	ids   uint64
	fault Fault
	files int
	// anonymous: the case's handles may come without a state-handle id or checkpointed size
	// (Flink makes one up, which the comparison ignores); in most cases all are given, so that
	// most answers are equal to Flink's byte for byte (judged without decoding).
	anonymous bool
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

func ptr[T any](x T) *T { return &x }

// id is a fresh 32-hex operator id: random high half, a counter in the low half (distinct).
func (g *gen) id() string {
	g.ids++
	var b [16]byte
	hi, lo := g.r.Uint64(), g.ids|g.r.Uint64()<<20
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	return hex.EncodeToString(b[:])
}

// maxPar draws a max parallelism: mostly small (short key-group offset lists), sometimes
// Flink's usual ones.
func (g *gen) maxPar() int {
	return []int{1, 2, 3, 4, 8, 8, 12, 16, 16, 32, 32, 64, 128, 256}[g.intn(14)]
}

// parallelism draws a parallelism: 1 to 8 mostly, up to 24 sometimes.
func (g *gen) parallelism() int {
	if g.chance(0.08) {
		return 1 + g.intn(24)
	}
	return 1 + g.intn(8)
}

// partitioner draws an edge's mappers: mostly a real partitioner's (hash and rebalance the most
// usual; the pointwise ones, whose in-flight data cannot be rescaled, less often), sometimes
// any pair of mappers.
func (g *gen) mappers() (up, down string) {
	if g.chance(0.05) {
		ms := model.SubtaskStateMappers()
		return ms[g.intn(len(ms))].String(), ms[g.intn(len(ms))].String()
	}
	weights := []struct {
		p model.Partitioner
		w int
	}{{model.HashPartitioner, 30}, {model.RebalancePartitioner, 18}, {model.ShufflePartitioner, 6}, {model.GlobalPartitioner, 8},
		{model.CustomPartitioner, 8}, {model.ForwardPartitioner, 16}, {model.RescalePartitioner, 8}, {model.BroadcastPartitioner, 6}}
	x := g.intn(100)
	for _, w := range weights {
		if x < w.w {
			u, d := w.p.Mappers()
			return u.String(), d.String()
		}
		x -= w.w
	}
	panic("unreachable")
}

func (g *gen) draw() *assigncase.Case {
	c := &assigncase.Case{CheckpointID: int64(1 + g.intn(100)), Operators: []assigncase.OperatorState{}}
	g.anonymous = g.chance(0.1)
	if g.chance(0.5) {
		c.AllowNonRestoredState = ptr(g.chance(0.3))
	}
	if g.chance(0.5) {
		fs := Faults(g.v)
		g.fault = fs[g.intn(len(fs))]
	}
	if g.v.AtLeast(model.Flink23) && g.chance(0.2) {
		c.RecoverOutputOnDownstreamTask = ptr(false)
	}

	// The new job: one to four vertices (sometimes up to eight), chains of one to three
	// operators, each vertex after the first reading one or two earlier ones.
	nv := 1 + g.intn(4)
	if g.chance(0.15) {
		nv = 3 + g.intn(6)
	}
	for i := 0; i < nv; i++ {
		vx := assigncase.Vertex{Name: "v" + strconv.Itoa(i), Parallelism: g.parallelism()}
		nops := 1 + g.intn(3)
		for k := 0; k < nops; k++ {
			op := assigncase.VertexOperator{ID: g.id()}
			if g.chance(0.12) {
				op.UserDefinedID = ptr(g.id())
			}
			vx.Operators = append(vx.Operators, op)
		}
		switch {
		case g.chance(0.2): // Flink's default for the parallelism (128 and up)
		case g.chance(0.5):
			vx.MaxParallelism, vx.MaxParallelismConfigured = ptr(g.maxPar()), true
		default:
			vx.MaxParallelism = ptr(g.maxPar())
		}
		if vx.MaxParallelism != nil && *vx.MaxParallelism < vx.Parallelism {
			*vx.MaxParallelism = 128
		}
		if i > 0 && g.chance(0.9) {
			nin := 1
			if g.chance(0.3) {
				nin = 2 + g.intn(2)
			}
			for k := 0; k < nin; k++ {
				in := assigncase.Input{Upstream: g.intn(i)}
				in.UpstreamMapper, in.DownstreamMapper = g.mappers()
				if g.chance(0.1) {
					in.DistributionPattern = ptr([]string{"ALL_TO_ALL", "POINTWISE"}[g.intn(2)])
				}
				if g.chance(0.05) {
					in.Broadcast = ptr(g.chance(0.5))
				}
				if g.chance(0.05) {
					in.Forward = ptr(g.chance(0.5))
				}
				vx.Inputs = append(vx.Inputs, in)
			}
		}
		c.Vertices = append(c.Vertices, vx)
	}
	if g.chance(0.05) {
		// Edges given their partition index explicitly (in the upstream's order).
		next := make([]int, nv)
		for i := range c.Vertices {
			for k := range c.Vertices[i].Inputs {
				in := &c.Vertices[i].Inputs[k]
				in.Partition = ptr(next[in.Upstream])
				next[in.Upstream]++
			}
		}
	}
	outputs := make([]int, nv) // the produced data sets of each vertex
	for _, vx := range c.Vertices {
		for _, e := range vx.Inputs {
			outputs[e.Upstream]++
		}
	}

	// The checkpoint: per vertex a shape shared by its operators (the old parallelism and max
	// parallelism, whether it is keyed, has channel state, is finished).
	for i := range c.Vertices {
		vx := &c.Vertices[i]
		s := g.shape(vx, len(vx.Inputs), outputs[i])
		for k, op := range vx.Operators {
			if !g.chance(0.85) {
				continue
			}
			id := op.ID
			if op.UserDefinedID != nil && g.chance(0.7) {
				id = *op.UserDefinedID
			}
			head, tail := k == len(vx.Operators)-1, k == 0
			c.Operators = append(c.Operators, g.opState(id, s, head, tail))
		}
	}
	g.applyFault(c, outputs)
	g.r.Shuffle(len(c.Operators), func(i, j int) { c.Operators[i], c.Operators[j] = c.Operators[j], c.Operators[i] })
	return c
}

// shape is what the operator states of one vertex share.
type shape struct {
	parallelism, maxParallelism int
	keyed, incremental          bool
	opState, raw                bool
	channel                     bool
	gates, partitions           int
	finished                    bool
	names                       []string
	modes                       map[string]string
	backend                     string
}

var stateNames = []string{"a", "b", "c", "buffer", "offsets", "source-split", "window-contents", "Aa", "BB", "pending"}

func (g *gen) shape(vx *assigncase.Vertex, gates, partitions int) *shape {
	s := &shape{parallelism: g.parallelism(), gates: gates, partitions: partitions}
	if g.chance(0.35) {
		s.parallelism = vx.Parallelism
	}
	switch {
	case vx.MaxParallelism != nil && g.chance(0.8):
		s.maxParallelism = *vx.MaxParallelism
	case vx.MaxParallelism == nil && g.chance(0.6):
		m, _ := model.ComputeDefaultMaxParallelism(s.parallelism)
		s.maxParallelism = m
	default:
		s.maxParallelism = g.maxPar()
	}
	if s.maxParallelism < s.parallelism {
		s.maxParallelism = 128
	}
	// A non-configured max parallelism may adopt the restored one, which must hold the new
	// parallelism: a restore meant to succeed keeps it there.
	if vx.MaxParallelism == nil || !vx.MaxParallelismConfigured {
		if s.maxParallelism < vx.Parallelism {
			s.maxParallelism = 128
		}
	} else if s.maxParallelism != *vx.MaxParallelism && g.fault != FaultMaxParChange {
		s.maxParallelism = *vx.MaxParallelism
	}
	s.keyed = g.chance(0.55)
	s.incremental = s.keyed && g.chance(0.3)
	s.opState = g.chance(0.5)
	s.raw = g.chance(0.1)
	s.channel = (gates > 0 || partitions > 0) && g.chance(0.3)
	s.finished = g.chance(0.04)
	n := 1 + g.intn(4)
	perm := g.r.Perm(len(stateNames))
	s.modes = map[string]string{}
	for _, k := range perm[:n] {
		name := stateNames[k]
		s.names = append(s.names, name)
		s.modes[name] = []string{"SPLIT_DISTRIBUTE", "SPLIT_DISTRIBUTE", "UNION", "BROADCAST"}[g.intn(4)]
	}
	s.backend = fmt.Sprintf("%08x-0000-4000-8000-%012x", g.r.Uint32(), g.r.Uint64()&0xffffffffffff)
	return s
}

// file is a fresh file path, in the normalized form mostly, sometimes as file:///.
func (g *gen) file(op string, what string) string {
	g.files++
	prefix := "file:/ckpt/"
	if g.chance(0.03) {
		prefix = "file:///ckpt/"
	}
	return prefix + op[:6] + "/" + what + "-" + strconv.Itoa(g.files)
}

func (g *gen) stream(op, what string, size int64) assigncase.Stream {
	if g.chance(0.1) {
		g.files++
		return assigncase.Stream{Path: "mem-" + op[:6] + "-" + what + "-" + strconv.Itoa(g.files), Size: size, InMemory: ptr(true)}
	}
	return assigncase.Stream{Path: g.file(op, what), Size: size}
}

func (g *gen) opState(id string, s *shape, head, tail bool) assigncase.OperatorState {
	os := assigncase.OperatorState{OperatorID: id, Parallelism: s.parallelism, MaxParallelism: s.maxParallelism, Subtasks: []*assigncase.Subtask{}}
	if s.finished {
		os.FullyFinished = ptr(true)
		return os
	}
	if g.chance(0.03) {
		os.CoordinatorState = ptr(g.stream(id, "coordinator", 50))
	}
	n := s.parallelism
	if g.chance(0.05) {
		n = g.intn(s.parallelism + 1) // trailing subtasks without an entry
	}
	for i := 0; i < n; i++ {
		switch {
		case g.chance(0.06):
			os.Subtasks = append(os.Subtasks, nil)
			continue
		case g.chance(0.03):
			os.Subtasks = append(os.Subtasks, &assigncase.Subtask{Finished: ptr(true)})
			continue
		}
		os.Subtasks = append(os.Subtasks, g.subtask(id, s, i, head, tail))
	}
	return os
}

func (g *gen) subtask(id string, s *shape, i int, head, tail bool) *assigncase.Subtask {
	st := &assigncase.Subtask{}
	if s.opState {
		for h := 0; h < 1+g.intn(3); h++ {
			oh := assigncase.OperatorStateHandle{Delegate: g.stream(id, "op", 1000), States: []assigncase.NamedState{}}
			off := int64(8)
			for _, k := range g.r.Perm(len(s.names)) {
				name := s.names[k]
				if !g.chance(0.75) {
					continue
				}
				mode := s.modes[name]
				n := g.intn(4)
				if mode == "BROADCAST" && n == 0 {
					n = 1
				}
				offs := make([]int64, 0, n)
				for x := 0; x < n; x++ {
					offs = append(offs, off)
					off += int64(1 + g.intn(20))
				}
				oh.States = append(oh.States, assigncase.NamedState{Name: name, Mode: mode, Offsets: offs})
			}
			if s.raw && g.chance(0.3) {
				st.RawOperatorState = append(st.RawOperatorState, oh)
			} else {
				st.ManagedOperatorState = append(st.ManagedOperatorState, oh)
			}
		}
	}
	if s.keyed {
		kr, err := model.ComputeKeyGroupRangeForOperatorIndex(s.maxParallelism, s.parallelism, i)
		if err == nil && kr.NumberOfKeyGroups() > 0 {
			// One handle for the range, or (as after an earlier rescale) two for its halves.
			ranges := []assigncase.Range{{Start: kr.Start, End: kr.End}}
			if kr.NumberOfKeyGroups() > 1 && g.chance(0.15) {
				mid := kr.Start + g.intn(kr.NumberOfKeyGroups()-1)
				ranges = []assigncase.Range{{Start: kr.Start, End: mid}, {Start: mid + 1, End: kr.End}}
			}
			for _, rng := range ranges {
				k := g.keyed(id, s, i, rng)
				if s.raw && g.chance(0.3) {
					st.RawKeyedState = append(st.RawKeyedState, k)
				} else {
					st.ManagedKeyedState = append(st.ManagedKeyedState, k)
				}
			}
		}
	}
	if s.channel && head && s.gates > 0 && g.chance(0.6) {
		st.InputChannelState = g.channels(id, "in", i, s.gates)
	}
	if s.channel && tail && s.partitions > 0 && g.chance(0.6) {
		st.ResultSubpartitionState = g.channels(id, "out", i, s.partitions)
	}
	return st
}

func (g *gen) keyed(id string, s *shape, i int, rng assigncase.Range) assigncase.KeyedHandle {
	if s.incremental {
		r := rng
		k := assigncase.KeyedHandle{Type: assigncase.IncrementalRemoteKeyedStateHandle, BackendID: ptr(s.backend), KeyGroupRange: &r,
			CheckpointID: ptr(int64(1 + g.intn(5))), Meta: ptr(g.stream(id, "meta", 30))}
		shared := []assigncase.SharedFile{}
		for x := 0; x < g.intn(3); x++ {
			shared = append(shared, assigncase.SharedFile{LocalPath: fmt.Sprintf("%06d.sst", x+1), Handle: g.stream(id, "sst", 500)})
		}
		private := []assigncase.SharedFile{{LocalPath: "MANIFEST-000001", Handle: g.stream(id, "manifest", 20)}}
		k.Shared, k.Private = &shared, &private
		// Without an id (or a checkpointed size) Flink makes one up, which the comparison
		// ignores; mostly given, so that most answers are equal byte for byte.
		if !g.anonymous || g.chance(0.5) {
			k.StateHandleID = ptr("inc-" + id[:6] + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(rng.Start))
		}
		if !g.anonymous || g.chance(0.5) {
			k.CheckpointedSize = ptr(int64(100 + g.intn(1000)))
		}
		return k
	}
	offs := make([]int64, 0, rng.End-rng.Start+1)
	off := int64(8)
	for x := rng.Start; x <= rng.End; x++ {
		if g.chance(0.2) {
			offs = append(offs, 0)
			continue
		}
		offs = append(offs, off)
		off += int64(1 + g.intn(10))
	}
	typ := assigncase.KeyGroupsStateHandle
	if g.anonymous && g.chance(0.3) {
		typ = assigncase.KeyGroupsSavepointStateHandle
	}
	k := assigncase.KeyedHandle{Type: typ, KeyGroups: &assigncase.KeyGroups{Range: rng, Offsets: offs}, Delegate: ptr(g.stream(id, "keyed", off))}
	if typ == assigncase.KeyGroupsStateHandle && (!g.anonymous || g.chance(0.5)) {
		k.StateHandleID = ptr("kg-" + id[:6] + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(rng.Start))
	}
	return k
}

// channels draws the in-flight data of one old subtask: a few channels of one or several gates
// (partitions), each channel once.
func (g *gen) channels(id, what string, subtask, gates int) []assigncase.ChannelHandle {
	var out []assigncase.ChannelHandle
	d := g.stream(id, what, 200)
	for gate := 0; gate < gates; gate++ {
		if gates > 1 && !g.chance(0.7) {
			continue
		}
		for ch := 0; ch < 1+g.intn(3); ch++ {
			h := assigncase.ChannelHandle{GateOrPartition: gate, Channel: ch, Offsets: []int64{int64(100 * ch), int64(100*ch + 50)}, Delegate: d}
			if g.chance(0.5) {
				h.SubtaskIndex = ptr(subtask)
			}
			if g.chance(0.3) {
				h.StateSize = ptr(int64(100))
			}
			out = append(out, h)
		}
	}
	return out
}

// applyFault puts the drawn fault into the case.
func (g *gen) applyFault(c *assigncase.Case, outputs []int) {
	vi := g.intn(len(c.Vertices))
	vx := &c.Vertices[vi]
	statesOf := func(vx *assigncase.Vertex) []int {
		var out []int
		for k := range c.Operators {
			for _, op := range vx.Operators {
				if c.Operators[k].OperatorID == op.ID || (op.UserDefinedID != nil && c.Operators[k].OperatorID == *op.UserDefinedID) {
					out = append(out, k)
				}
			}
		}
		return out
	}
	switch g.fault {
	case FaultMissingOperator:
		s := g.shape(vx, 0, 0)
		c.Operators = append(c.Operators, g.opState(g.id(), s, false, false))
	case FaultMaxParChange:
		// A configured max parallelism other than the state's (or, unconfigured, below the new
		// parallelism: adoption refused).
		if ks := statesOf(vx); len(ks) > 0 {
			os := &c.Operators[ks[0]]
			m := os.MaxParallelism * 2
			if g.chance(0.5) && os.MaxParallelism > 1 {
				m = os.MaxParallelism / 2
			}
			if m < vx.Parallelism {
				m = vx.Parallelism
			}
			if m == os.MaxParallelism {
				m++
			}
			vx.MaxParallelism, vx.MaxParallelismConfigured = ptr(m), true
		}
	case FaultMaxParBelow:
		// The state's max parallelism below the new parallelism.
		if ks := statesOf(vx); len(ks) > 0 {
			os := &c.Operators[ks[0]]
			if os.MaxParallelism > 1 {
				vx.Parallelism = os.MaxParallelism + 1 + g.intn(4)
				if vx.MaxParallelism != nil && *vx.MaxParallelism < vx.Parallelism {
					*vx.MaxParallelism = vx.Parallelism
					if g.chance(0.5) {
						vx.MaxParallelism = nil
						vx.MaxParallelismConfigured = false
					}
				}
			}
		}
	case FaultVertexParallelism:
		m := 1 + g.intn(8)
		vx.MaxParallelism, vx.MaxParallelismConfigured = ptr(m), true
		vx.Parallelism = m + 1 + g.intn(4)
	case FaultMixedFinished:
		ks := statesOf(vx)
		if len(ks) > 0 && len(vx.Operators) > 1 {
			os := &c.Operators[ks[g.intn(len(ks))]]
			os.FullyFinished, os.Subtasks, os.CoordinatorState = ptr(true), []*assigncase.Subtask{}, nil
		}
	case FaultUnsupportedRescale:
		// Channel state over an edge of unsupported mappers, the vertex rescaled.
		for i := len(c.Vertices) - 1; i > 0; i-- {
			v := &c.Vertices[i]
			if len(v.Inputs) == 0 {
				continue
			}
			gate := g.intn(len(v.Inputs))
			v.Inputs[gate].UpstreamMapper, v.Inputs[gate].DownstreamMapper = "UNSUPPORTED", "UNSUPPORTED"
			head := v.Operators[len(v.Operators)-1]
			for k := range c.Operators {
				os := &c.Operators[k]
				if os.FullyFinished != nil || (os.OperatorID != head.ID && (head.UserDefinedID == nil || os.OperatorID != *head.UserDefinedID)) {
					continue
				}
				if os.Parallelism == v.Parallelism {
					v.Parallelism = os.Parallelism + 1
					if v.MaxParallelism != nil && *v.MaxParallelism < v.Parallelism {
						*v.MaxParallelism = 128
					}
				}
				for j, st := range os.Subtasks {
					if st != nil && st.Finished == nil {
						st.InputChannelState = g.channels(os.OperatorID, "in", j, len(v.Inputs))
					}
				}
				break
			}
			break
		}
	case FaultTopologyChange:
		// In-flight data on an operator that is not its chain's head (input) or tail (output),
		// of a vertex with a chain.
		for k := range c.Vertices {
			if v := &c.Vertices[(vi+k)%len(c.Vertices)]; len(v.Operators) > 1 {
				vx = v
				break
			}
		}
		if len(vx.Operators) > 1 {
			for _, k := range statesOf(vx) {
				os := &c.Operators[k]
				for j, st := range os.Subtasks {
					if st != nil && st.Finished == nil {
						if g.chance(0.5) {
							st.InputChannelState = g.channels(os.OperatorID, "in", j, 1+g.intn(2))
						} else {
							st.ResultSubpartitionState = g.channels(os.OperatorID, "out", j, 1+g.intn(2))
						}
						break
					}
				}
			}
		}
	case FaultRawKeyedOnly:
		for _, k := range statesOf(vx) {
			for _, st := range c.Operators[k].Subtasks {
				if st != nil && len(st.ManagedKeyedState) > 0 {
					st.RawKeyedState = append(st.RawKeyedState, st.ManagedKeyedState...)
					st.ManagedKeyedState = nil
				}
			}
		}
	case FaultStateInput:
		if len(c.Operators) == 0 {
			return
		}
		os := &c.Operators[g.intn(len(c.Operators))]
		switch g.intn(4) {
		case 0: // a parallelism above the max parallelism
			os.Parallelism = os.MaxParallelism + 1
		case 1: // more subtask entries than the parallelism
			os.Subtasks = append(os.Subtasks, &assigncase.Subtask{Finished: ptr(true)})
			for len(os.Subtasks) <= os.Parallelism {
				os.Subtasks = append([]*assigncase.Subtask{nil}, os.Subtasks...)
			}
		case 2: // key-group offsets that do not fit the range
			for _, st := range os.Subtasks {
				if st != nil && len(st.ManagedKeyedState) > 0 && st.ManagedKeyedState[0].KeyGroups != nil {
					kg := st.ManagedKeyedState[0].KeyGroups
					kg.Offsets = append(kg.Offsets, 7)
					break
				}
			}
		default: // a fully finished operator with subtask state
			if len(os.Subtasks) > 0 {
				os.FullyFinished = ptr(true)
			}
		}
	case FaultMaxParDisagreement:
		// Keyed operators of one chain checkpointed at other max parallelisms (FLINK-40113).
		ks := statesOf(vx)
		if len(ks) > 1 {
			os := &c.Operators[ks[1]]
			m := c.Operators[ks[0]].MaxParallelism * 2
			if m < os.Parallelism {
				m = 128
			}
			*os = g.opState(os.OperatorID, &shape{parallelism: os.Parallelism, maxParallelism: m, keyed: true, names: []string{"a"},
				modes: map[string]string{"a": "UNION"}, backend: "b"}, false, false)
		}
	case FaultMaxParOutOfBounds:
		// A restored max parallelism above Flink's upper bound, the vertex free to adopt it.
		if ks := statesOf(vx); len(ks) > 0 {
			c.Operators[ks[0]].MaxParallelism = 32769 + g.intn(100)
			vx.MaxParallelismConfigured = false
		}
	case FaultFieldVersion:
		if g.v.Before(model.Flink20) && len(c.Operators) > 0 && g.chance(0.5) {
			c.Operators[g.intn(len(c.Operators))].Name = ptr("an operator")
		} else {
			c.RecoverOutputOnDownstreamTask = ptr(false)
		}
	}
}
