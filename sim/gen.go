package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
	"github.com/restoresim/restoresim/sim/oracle"
)

// Named random streams: each decision family draws from its own stream, so adding a stream or
// changing how many numbers one family draws never shifts the others.
const (
	streamJob uint64 = iota + 1
	streamSchedule
	streamRecords
	streamRescale
	streamFaults
	streamDAG         // the job's stage vertices
	streamDAGSchedule // failures of stage subtasks, stage changes on restart
	streamShape       // whether the job has a keyed vertex
	streamJobFeatures // key values, state names, sparse snapshots, wide jobs
	streamModes       // LEGACY among the restores that are not CLAIM
	streamInPlace     // in-place rescales (adaptive scheduler)
	streamUnaligned   // unaligned checkpoints
	streamSQLKey      // SQL (row) keys
	streamMinHashKey  // a key whose murmur hash is Integer.MIN_VALUE
	streamWideProbe   // the key-group probe at a parallelism above 21,845
	streamAutoscale   // operator autoscaler steps
)

// newStream returns the independent stream id of seed.
func newStream(seed, id uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, id)) }

// DefaultSteps is the default schedule length.
const DefaultSteps = 40

// Generate draws a plan from seed: a job (with swarm-style feature switches: which state kinds,
// key type and distribution, backend) and a schedule of steps.
func Generate(seed uint64, version model.FlinkVersion, steps int) Plan {
	if steps <= 0 {
		steps = DefaultSteps
	}
	r := newStream(seed, streamJob)
	j := Job{
		KeyType:      KeyType(1 + r.IntN(3)),
		KeyDist:      KeyDist(1 + r.IntN(4)),
		NumKeys:      []int{1, 10, 100, 1000, 5000}[r.IntN(5)],
		Splits:       1 + r.IntN(12),
		UnionOffsets: r.IntN(3) == 0,
		Broadcast:    r.IntN(2) == 0,
		RawKeyed:     r.IntN(3) == 0,
		Incremental:  r.IntN(2) == 0,
		Sink:         r.IntN(2) == 0,
	}
	// Drawn after the fields above so that adding them kept older seeds' jobs unchanged.
	j.TaskManagers = 1 + r.IntN(4)
	j.LocalRecovery = r.IntN(2) == 0
	j.Source = VertexConfig{Parallelism: drawParallelism(r), UID: "source"}
	j.Keyed = VertexConfig{Parallelism: drawParallelism(r), UID: "keyed"}
	if r.IntN(2) == 0 {
		j.Keyed.MaxParallelism = drawMaxParallelism(r, j.Keyed.Parallelism)
	}
	if r.IntN(4) == 0 {
		j.Keyed.UID = fmt.Sprintf("keyed-v%d", r.IntN(100))
	}
	// Swarm switch: one job in ten has no keyed vertex (the source alone, or with stages).
	if newStream(seed, streamShape).IntN(10) == 0 {
		j.Keyed = VertexConfig{}
		j.Sink, j.Broadcast, j.RawKeyed = false, false, false
	}
	// Swarm switch: half the jobs are a DAG of three to six vertices. The stages come from their
	// own streams, so a job without stages is drawn exactly as before they existed.
	if rd := newStream(seed, streamDAG); rd.IntN(2) == 0 {
		for k := range 1 + rd.IntN(MaxStages) {
			j.Stages = append(j.Stages, drawStage(rd, j, 2+k))
		}
	}
	drawFeatures(newStream(seed, streamJobFeatures), &j)
	// One job in four with a keyed vertex is a SQL job keyed by a row (from its own stream, so
	// the other seeds' plans stay as they were).
	if j.HasKeyed() && newStream(seed, streamSQLKey).IntN(4) == 0 {
		j.KeyType = KeyRow
	}
	// One job in four with a keyed vertex takes unaligned checkpoints (drawn for every version, so
	// that a seed's plan is the same under each: on 1.10.1, which has none, the job takes aligned
	// ones).
	if j.HasKeyed() && newStream(seed, streamUnaligned).IntN(4) == 0 {
		j.Unaligned = true
	}
	// One job in eight with a keyed vertex and plain keys has the key whose murmur hash is
	// Integer.MIN_VALUE as key index 0 (the sign rule; rarekeys.go).
	if j.HasKeyed() && j.KeyValues == PlainKeys && newStream(seed, streamMinHashKey).IntN(8) == 0 {
		j.KeyValues = MinHashKeys
	}
	// One job in ten probes the key-group arithmetic at a parallelism above 21,845 (probe.go).
	if r := newStream(seed, streamWideProbe); r.IntN(10) == 0 {
		j.KeyGroupProbe = MinWideProbe + r.IntN(model.UpperBoundMaxParallelism-MinWideProbe+1)
	}
	p := Plan{Seed: seed, Version: version, Job: j, Steps: generateSteps(seed, version, j, steps)}
	fitSteps(&p)
	return p
}

// WideParallelism is the parallelism from which Flink's default max parallelism exceeds 128
// (SPEC §C: 1.5 × 86 = 129, rounded up to a power of two: 256).
const WideParallelism = 86

// drawFeatures draws the job's later swarm switches from their own stream (so that the jobs of
// older seeds without them stay as they were): extreme and non-ASCII key values, several
// SPLIT_DISTRIBUTE and UNION state names, sparse snapshots, and one job in eight wide: a keyed
// vertex of parallelism 86 to 1,024 whose max parallelism is unconfigured (Flink's default,
// above 128) or up to 32,768, often not a power of two.
func drawFeatures(r *rand.Rand, j *Job) {
	if r.IntN(4) == 0 {
		j.KeyValues = ExtremeKeys
	}
	if n := 2 + r.IntN(MaxStateNames-1); r.IntN(3) == 0 && j.Source.Parallelism <= 64 {
		// (Not for wide sources: every subtask receives every UNION element, p² handles.)
		j.StateNames = n
	}
	if r.IntN(3) == 0 {
		j.Sparse = true
	}
	if r.IntN(8) == 0 && j.HasKeyed() {
		j.Keyed.Parallelism = WideParallelism + r.IntN(1024-WideParallelism+1)
		switch r.IntN(3) {
		case 0, 1:
			j.Keyed.MaxParallelism = 0
		default:
			j.Keyed.MaxParallelism = max(j.Keyed.Parallelism, []int{1000, 1009, 4096, 5040, 30000, 32768}[r.IntN(6)])
		}
		j.NumKeys = max(j.NumKeys, 1000)
		for k := range j.Stages { // forward stages follow their input's parallelism
			st := &j.Stages[k]
			if st.Edge == EdgeForward {
				st.Config.Parallelism = j.Parallelism(st.Input)
				if st.Config.MaxParallelism > 0 && st.Config.MaxParallelism < st.Config.Parallelism {
					st.Config.MaxParallelism = 0
				}
			}
		}
	}
}

// maxRecordsPerStep bounds the records a process step reads over all source subtasks, to keep
// the run time of wide jobs in check.
const maxRecordsPerStep = 4096

// drawParallelism: mostly 1..16, sometimes up to 64, rarely up to 1024.
func drawParallelism(r *rand.Rand) int {
	switch x := r.IntN(20); {
	case x < 14:
		return 1 + r.IntN(16)
	case x < 19:
		return 1 + r.IntN(64)
	default:
		return 1 + r.IntN(1024)
	}
}

// drawMaxParallelism: a power of two, a highly divisible number, or an odd one, ≥ p.
func drawMaxParallelism(r *rand.Rand, p int) int {
	var m int
	switch r.IntN(3) {
	case 0:
		m = []int{128, 256, 512, 1024, 4096, 32768}[r.IntN(6)]
	case 1:
		m = []int{60, 120, 360, 720, 1260, 5040}[r.IntN(6)]
	default:
		m = []int{7, 13, 42, 97, 129, 1000, 1009}[r.IntN(7)]
	}
	return max(m, p)
}

// drawStage draws stage vertex v: its input (an earlier vertex), edge, partition type, chain
// length and configuration.
func drawStage(r *rand.Rand, j Job, v int) Stage {
	st := Stage{Input: r.IntN(v), Edge: EdgeKind(1 + r.IntN(4)), Blocking: r.IntN(3) == 0, Chain: 1 + r.IntN(MaxChain)}
	if st.Input == 1 && !j.HasKeyed() {
		st.Input = 0
	}
	st.Config = VertexConfig{Parallelism: drawParallelism(r), UID: VertexName(v)}
	if r.IntN(3) == 0 {
		st.Config.UID = "" // no uid: generated operator IDs
	}
	// A third of the stages that can be keyed (reading the stateful region) are: keyBy a derived key.
	if (st.Input < 2 || j.Stages[st.Input-2].Keyed) && r.IntN(3) == 0 {
		st.Keyed, st.Edge, st.Blocking = true, EdgeHash, false
	}
	if st.Edge == EdgeForward {
		st.Config.Parallelism = j.Parallelism(st.Input)
	}
	if r.IntN(4) == 0 {
		st.Config.MaxParallelism = drawMaxParallelism(r, st.Config.Parallelism)
	}
	return st
}

// drawStageChange draws the stages of a restarted job from the running ones (c.Source and
// c.Keyed already drawn): rescaled, sometimes with a changed or dropped max parallelism, re-uid'd,
// the last one removed or a new one added. Forward stages follow their input's parallelism.
func drawStageChange(r *rand.Rand, c *Change, stages []Stage) {
	next := slices.Clone(stages)
	for k := range next {
		next[k].Config.Parallelism = rescale(r, next[k].Config.Parallelism)
	}
	if len(next) > 0 {
		k := r.IntN(len(next))
		switch r.IntN(12) {
		case 0:
			next[k].Config.MaxParallelism = drawMaxParallelism(r, next[k].Config.Parallelism)
		case 1:
			next[k].Config.MaxParallelism = 0
		case 2:
			next[k].Config.UID = fmt.Sprintf("%s-r%d", VertexName(2+k), r.IntN(100))
		case 3:
			next = next[:len(next)-1]
		case 4: // chain an operator more or less (generated IDs may change with it)
			next[k].Chain = 1 + r.IntN(MaxChain)
		}
	}
	if len(next) < MaxStages && r.IntN(10) == 0 {
		j := Job{Source: c.Source, Keyed: c.Keyed, Stages: next}
		st := drawStage(r, j, 2+len(next))
		st.Config.UID = fmt.Sprintf("%s-a%d", VertexName(2+len(next)), r.IntN(100))
		next = append(next, st)
	}
	j := Job{Source: c.Source, Keyed: c.Keyed, Stages: next}
	for k := range next {
		if next[k].Edge == EdgeForward {
			next[k].Config.Parallelism = j.Parallelism(next[k].Input)
		}
		if m := next[k].Config.MaxParallelism; m > 0 && m < next[k].Config.Parallelism {
			next[k].Config.MaxParallelism = 0 // keep the job buildable; max parallelism below parallelism is tested on the keyed vertex
		}
	}
	if len(next) == 0 {
		next = nil // as a parsed restart line without stages
	}
	c.Stages = next
}

func generateSteps(seed uint64, version model.FlinkVersion, j Job, n int) []Step {
	r := newStream(seed, streamSchedule)
	rm := newStream(seed, streamModes)
	// mode draws the restore mode of a restore whose CLAIM flag was drawn already: NO_CLAIM or,
	// one in three, LEGACY (where the version has restore modes; 1.10.1 has none, and its plan
	// keeps NO_CLAIM there). The draw happens on every version, so that the plans of one seed
	// differ between versions in that token only.
	mode := func(claim bool) model.RestoreMode {
		if claim {
			return model.Claim
		}
		if legacy := rm.IntN(3) == 0; legacy && version != model.Flink1101 {
			return model.Legacy
		}
		return model.NoClaim
	}
	ri := newStream(seed, streamInPlace)
	adaptive := ri.IntN(4) == 0 // a quarter of the jobs are rescaled in place now and then
	ra := newStream(seed, streamAutoscale)
	autoscaling := ra.IntN(5) == 0 // a fifth of the jobs are scaled by the operator's autoscaler now and then
	rs := newStream(seed, streamRescale)
	rf := newStream(seed, streamFaults)
	rd := newStream(seed, streamDAGSchedule)
	dag := len(j.Stages) > 0
	steps := make([]Step, 0, n)
	src, keyed := j.Source, j.Keyed
	stages := j.Stages
	sink := j.Sink
	for range n {
		var s Step
		switch x := r.IntN(100); {
		case x < 33:
			s = Step{Kind: Process, N: 1 + r.IntN(50)}
			s.N = max(1, min(s.N, maxRecordsPerStep/max(1, src.Parallelism)))
		case x < 40 && j.Broadcast:
			s = Step{Kind: BroadcastUpdate, N: 1 + r.IntN(5)}
		case x < 58:
			s = Step{Kind: Checkpoint, Abort: r.IntN(8) == 0}
		case x < 62:
			s = Step{Kind: Savepoint}
		case x < 70:
			v := r.IntN(2)
			p := src.Parallelism
			if v == 1 {
				p = keyed.Parallelism
			}
			if p == 0 { // no keyed vertex
				v, p = 0, src.Parallelism
			}
			s = Step{Kind: Fail, Vertex: v, Subtask: r.IntN(p)}
			if len(stages) > 0 && rd.IntN(2) == 0 {
				s.Vertex = 2 + rd.IntN(len(stages))
				s.Subtask = rd.IntN(stages[s.Vertex-2].Config.Parallelism)
			}
		case x < 73:
			s = Step{Kind: Retain, N: 1 + r.IntN(3)}
		case x < 82: // infrastructure: TaskManagers, JobManager, storage
			switch y := rf.IntN(13); {
			case y < 3:
				s = Step{Kind: TMRestart, TM: rf.IntN(j.TaskManagers)}
			case y < 5:
				s = Step{Kind: TMLoss, TM: rf.IntN(j.TaskManagers)}
			case y < 7:
				s = Step{Kind: JMFailover}
			case y < 9:
				s = Step{Kind: Resume, Mode: mode(rf.IntN(2) == 0)}
			case y < 10:
				s = Step{Kind: Rollback, N: rf.IntN(4)}
			default:
				s = Step{Kind: Fault, Fault: FaultKind(1 + rf.IntN(3))}
			}
		default:
			c := drawChange(rs, src, keyed, sink)
			c.Mode = mode(c.Mode == model.Claim)
			if !j.HasKeyed() {
				c.Keyed, c.AddSink, c.DropSink = VertexConfig{}, false, false
			}
			if dag {
				drawStageChange(rd, &c, stages)
			}
			s = Step{Kind: Restart, Change: c}
			if c.valid(keyed, stages) {
				src, keyed, stages = c.Source, c.Keyed, c.Stages
				sink = (sink && !c.DropSink) || c.AddSink
			}
		}
		if adaptive && ri.IntN(8) == 0 { // this step becomes an in-place rescale instead
			s = Step{Kind: Rescale, Parallelism: []int{rescale(ri, src.Parallelism)}}
			src.Parallelism = s.Parallelism[0]
			if keyed.Parallelism > 0 {
				keyed.Parallelism = rescale(ri, keyed.Parallelism)
				s.Parallelism = append(s.Parallelism, keyed.Parallelism)
			}
			if len(stages) > 0 && ri.IntN(2) == 0 {
				s.Parallelism = append(s.Parallelism[:1], keyed.Parallelism) // (0 without a keyed vertex: unchanged)
				stages = slices.Clone(stages)
				for k := range stages {
					stages[k].Config.Parallelism = rescale(ri, stages[k].Config.Parallelism)
					s.Parallelism = append(s.Parallelism, stages[k].Config.Parallelism)
				}
			}
		}
		if autoscaling && s.Kind != Restart && s.Kind != Rescale && ra.IntN(6) == 0 { // this step becomes an autoscale instead
			s = drawAutoscale(ra, j, src, keyed, stages)
			p := predictAutoscale(s, src, keyed, stages)
			stages = slices.Clone(stages) // (a restart step's stages, or the job's)
			switch v := s.Vertex; v {
			case 0:
				src.Parallelism = p
			case 1:
				keyed.Parallelism = p
			default:
				stages[v-2].Config.Parallelism = p
			}
			for k := range stages { // forward stages follow their input
				if stages[k].Edge == EdgeForward {
					stages[k].Config.Parallelism = (Job{Source: src, Keyed: keyed, Stages: stages}).Parallelism(stages[k].Input)
				}
			}
		}
		steps = append(steps, s)
	}
	return steps
}

// drawAutoscale draws an autoscale step for the job the generator expects to be running
// (source src, keyed vertex keyed, stages): a vertex that can be scaled on its own (the keyed
// vertex half the time, where there is one), an operator release and, where it has modes, now
// and then a mode; a target near the current parallelism, far above or below it, or equal; the
// limits mostly the defaults, sometimes an upper limit near the target (so that the search
// finds nothing and the release's fallback decides); for the source, its partitions (the job's
// splits) known two times in three.
func drawAutoscale(r *rand.Rand, j Job, src, keyed VertexConfig, stages []Stage) Step {
	cands := []int{0}
	if keyed.Parallelism > 0 {
		cands = append(cands, 1)
	}
	for k, st := range stages {
		if st.Edge != EdgeForward {
			cands = append(cands, 2+k)
		}
	}
	v := cands[r.IntN(len(cands))]
	if keyed.Parallelism > 0 && r.IntN(2) == 0 {
		v = 1
	}
	cur := (Job{Source: src, Keyed: keyed, Stages: stages}).Parallelism(v)
	releases := autoscaler.Releases()
	a := AutoscalerCall{Release: releases[r.IntN(len(releases))], Lower: autoscaler.DefaultLower, Upper: autoscaler.DefaultUpper}
	if ms := a.Release.Modes(); len(ms) > 0 && r.IntN(2) == 0 {
		a.Mode = ms[r.IntN(len(ms))]
	}
	switch r.IntN(5) {
	case 0:
		a.Target = cur + 1 + r.IntN(4)
	case 1:
		a.Target = max(1, cur-1-r.IntN(4))
	case 2:
		a.Target = cur + 1 + r.IntN(2*cur+8)
	case 3:
		a.Target = max(1, cur/(2+r.IntN(3)))
	default:
		a.Target = cur
	}
	if r.IntN(4) == 0 {
		a.Lower = 1 + r.IntN(cur+1)
	}
	switch r.IntN(6) {
	case 0, 1:
		a.Upper = max(a.Lower, a.Target+r.IntN(3)-1)
	case 2:
		a.Upper = max(a.Lower, cur+r.IntN(cur+1))
	}
	a.Upper = max(a.Upper, a.Lower) // (a lower limit drawn for a wide vertex may pass the default upper one)
	if v == 0 && r.IntN(3) > 0 {
		a.Partitions = j.Splits
	}
	return Step{Kind: Autoscale, Vertex: v, Autoscaler: a}
}

// predictAutoscale is the parallelism the generator expects autoscale step s to leave vertex
// s.Vertex at, by the oracle's reference, taking the configured max parallelism or else Flink's
// default for the current parallelism (the run may have adopted another one).
func predictAutoscale(s Step, src, keyed VertexConfig, stages []Stage) int {
	j := Job{Source: src, Keyed: keyed, Stages: stages}
	c := j.vertexConfig(s.Vertex)
	m := c.MaxParallelism
	if m == 0 {
		m = oracle.DefaultMaxParallelism(c.Parallelism)
	}
	in := "rebalance"
	switch {
	case s.Vertex == 0:
		in = "source"
	case s.Vertex == 1 || stages[s.Vertex-2].Edge == EdgeHash:
		in = "hash"
	}
	a := s.Autoscaler
	return oracle.AutoscaleParallelism(oracle.Autoscale{Release: a.Release.String(), Mode: modeName(a.Mode), MaxParallelism: m,
		Current: c.Parallelism, Input: in, Partitions: a.Partitions, Lower: a.Lower, Upper: a.Upper, Target: a.Target})
}

// valid is the generator's guess of whether a change will be accepted (to keep the generated
// job close to the running one); the oracle, not this, decides what must happen.
func (c Change) valid(old VertexConfig, stages []Stage) bool {
	if c.Keyed.UID != old.UID && c.Keyed.UIDHash == "" && !c.AllowNonRestoredState {
		return false
	}
	if c.Keyed.MaxParallelism != old.MaxParallelism && c.Keyed.MaxParallelism != 0 && old.MaxParallelism != 0 {
		return false
	}
	for k, st := range c.Stages {
		if k < len(stages) && st.Config.UID == stages[k].Config.UID && st.Config.MaxParallelism != 0 &&
			st.Config.MaxParallelism != stages[k].Config.MaxParallelism {
			return false
		}
	}
	for k, st := range stages { // a keyed stage's state needs its operator, or allowNonRestoredState
		if st.Keyed && !c.AllowNonRestoredState && (k >= len(c.Stages) || c.Stages[k].Config.UID != st.Config.UID) {
			return false
		}
	}
	return true
}

func drawChange(r *rand.Rand, src, keyed VertexConfig, sink bool) Change {
	c := Change{Source: src, Keyed: keyed, AllowNonRestoredState: r.IntN(3) == 0}
	if r.IntN(2) == 0 {
		c.Mode = model.Claim
	}
	c.Source.Parallelism = rescale(r, src.Parallelism)
	c.Keyed.Parallelism = rescale(r, keyed.Parallelism)
	switch r.IntN(10) {
	case 0: // change (or set) the configured max parallelism
		c.Keyed.MaxParallelism = drawMaxParallelism(r, c.Keyed.Parallelism)
	case 1: // drop the configuration: back to Flink's default
		c.Keyed.MaxParallelism = 0
	case 2: // re-uid the keyed operator, sometimes pinning its old ID with setUidHash
		old := keyed
		c.Keyed.UID = fmt.Sprintf("keyed-v%d", r.IntN(100))
		if r.IntN(2) == 0 {
			c.Keyed.UIDHash = oracle.OperatorIDFromUID(old.UID).String() // the ID Flink logs, not the model's
			if old.UIDHash != "" {
				c.Keyed.UIDHash = old.UIDHash
			}
		}
	}
	if sink && r.IntN(6) == 0 {
		c.DropSink = true
	} else if !sink && r.IntN(6) == 0 {
		c.AddSink = true
	}
	return c
}

// rescale picks a new parallelism: the same, up, down, or to a non-divisor.
func rescale(r *rand.Rand, p int) int {
	switch r.IntN(5) {
	case 0:
		return p
	case 1:
		return min(p*2, 1024)
	case 2:
		return max(1, p/2)
	case 3:
		return max(1, p+1+r.IntN(7))
	default:
		return max(1, p-1-r.IntN(3))
	}
}
