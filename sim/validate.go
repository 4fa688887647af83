package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// The bounds of a plan's numbers (the scenario parser's and Validate's).
const (
	maxKeys         = 1_000_000 // Job.NumKeys
	maxSplits       = 10_000    // Job.Splits
	maxTaskManagers = 1024      // Job.TaskManagers
	maxCount        = 1_000_000 // a step's N (records, updates, num-retained)
)

// StepError is Plan.Validate's error for a step the plan's job cannot take: Index is the
// step's index in Plan.Steps.
type StepError struct {
	Index int
	Step  Step
	Err   error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %d (%s): %v", e.Index, e.Step, e.Err) }

func (e *StepError) Unwrap() error { return e.Err }

// Validate is the one check of a plan before it runs: ParsePlan refuses the scenario text of a
// plan it refuses, and Shrink never tries one. A plan it accepts is one the simulator takes: it
// must run without a panic of the world (TestValidPlansDoNotPanic; a panic of the model is a
// finding). It checks
//
//   - the job: every field in range, as the scenario parser reads it (key type and count,
//     splits, TaskManagers, vertices of parallelism 1..32768 with a uid), a job Flink can build
//     (Job.Validate), and no configured max parallelism below a vertex's parallelism;
//   - every step, against the jobs the plan can be running at that step — the job line's, or
//     the job of any restart or in-place rescale before it (a refused restart leaves the old
//     job running, so any of them may be): a known step kind with its numbers in range; a
//     broadcast step only in a job with broadcast state (Job.Broadcast, which no restart
//     changes); a fail step naming a subtask of one of those jobs (a run takes the index modulo
//     the job actually running; an index that exists in none of them is a mistake in the plan,
//     not a choice of subtask); a TaskManager step naming one of the job's TaskManagers; a
//     rescale naming at least one vertex, and only vertices of one of those jobs; a restart
//     whose new job is well formed (Flink may still refuse to build it: the run finds out) and
//     keeps the keyed vertex or its absence; no restore mode on Flink 1.10.1, which has none.
//     Its error for a step is a *StepError;
//   - operator uids kept apart by kind across the whole plan: a uid (or setUidHash) of the
//     source or the keyed operator never names the sink or a stage operator in the job or any
//     restart, because the simulator can only interpret each kind's own state. (Which other
//     restarts Flink accepts is for the run to find out.)
func (p Plan) Validate() error {
	if !p.Version.Known() {
		return fmt.Errorf("flink version %d is not one of %s", p.Version, model.FlinkVersionNames())
	}
	if err := p.Job.checkFields(); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	j := p.Job
	if err := j.Validate(); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	for v := range j.NumVertices() {
		if c := j.vertexConfig(v); c.MaxParallelism > 0 && c.MaxParallelism < c.Parallelism {
			return fmt.Errorf("job: %s: max parallelism %d is below parallelism %d: Flink does not build such a vertex", VertexName(v), c.MaxParallelism, c.Parallelism)
		}
	}
	b := newPlanBounds(j)
	for i, s := range p.Steps {
		if err := b.check(p.Version, s); err != nil {
			return &StepError{Index: i, Step: s, Err: err}
		}
		b.see(s)
	}
	return p.checkUIDKinds()
}

// checkFields checks the job's fields against the bounds the scenario parser reads them with.
func (j Job) checkFields() error {
	switch {
	case keyTypeNames[j.KeyType] == "":
		return fmt.Errorf("key type %d: want int, long, string or row", j.KeyType)
	case keyDistNames[j.KeyDist] == "":
		return fmt.Errorf("key distribution %d: want uniform, zipf, hot or sequential", j.KeyDist)
	case j.KeyValues != PlainKeys && j.KeyValues != ExtremeKeys && j.KeyValues != MinHashKeys:
		return fmt.Errorf("key values %d: want plain, extreme or min-hash", j.KeyValues)
	case j.NumKeys < 1 || j.NumKeys > maxKeys:
		return fmt.Errorf("key count %d: want 1..%d", j.NumKeys, maxKeys)
	case j.Splits < 1 || j.Splits > maxSplits:
		return fmt.Errorf("splits %d: want 1..%d", j.Splits, maxSplits)
	case j.TaskManagers < 1 || j.TaskManagers > maxTaskManagers:
		return fmt.Errorf("tms %d: want 1..%d", j.TaskManagers, maxTaskManagers)
	case j.StateNames < 0 || j.StateNames > MaxStateNames:
		return fmt.Errorf("names %d: want 0..%d", j.StateNames, MaxStateNames)
	}
	return checkVertices(j.Source, j.Keyed, j.Stages)
}

// checkVertices checks a job's (or a restart's) vertex configurations as the scenario parser
// reads them: parallelism 1..32768 (the keyed vertex's 0: none), max parallelism 0..32768, a
// uid (a stage's may be empty: generated IDs) not starting with '~', a setUidHash of 32 hex
// digits and only on the source or the keyed vertex, known edge kinds.
func checkVertices(source, keyed VertexConfig, stages []Stage) error {
	check := func(name string, c VertexConfig, stage bool) error {
		switch {
		case c.Parallelism < 1 || c.Parallelism > model.UpperBoundMaxParallelism:
			return fmt.Errorf("%s: parallelism %d: want 1..%d", name, c.Parallelism, model.UpperBoundMaxParallelism)
		case c.MaxParallelism < 0 || c.MaxParallelism > model.UpperBoundMaxParallelism:
			return fmt.Errorf("%s: max parallelism %d: want 1..%d (0: Flink's default)", name, c.MaxParallelism, model.UpperBoundMaxParallelism)
		case (c.UID == "" && !stage) || strings.HasPrefix(c.UID, "~"):
			return fmt.Errorf("%s: uid %q: want a name not starting with ~", name, c.UID)
		case c.UIDHash != "" && stage:
			return fmt.Errorf("%s: a stage takes no hash: (setUidHash is simulated on the keyed vertex)", name)
		}
		if c.UIDHash != "" {
			if _, err := model.ParseOperatorID(c.UIDHash); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	}
	if err := check("source", source, false); err != nil {
		return err
	}
	if keyed != (VertexConfig{}) { // (keyed=none: the zero configuration)
		if err := check("keyed", keyed, false); err != nil {
			return err
		}
	}
	for k, st := range stages {
		if err := check(VertexName(2+k), st.Config, true); err != nil {
			return err
		}
		if edgeNames[st.Edge] == "" {
			return fmt.Errorf("%s: edge %d: want forward, rebalance, hash or broadcast", VertexName(2+k), st.Edge)
		}
	}
	return nil
}

// planBounds are, up to a step of a plan, what the jobs the plan can be running have: the vertex
// indexes and the largest parallelism of each (what a fail or rescale step may name), the
// TaskManagers and whether there is broadcast state.
type planBounds struct {
	par       [2 + MaxStages]int // per vertex index, the largest parallelism so far (0: no such vertex)
	numV      int                // the largest number of vertex indexes so far
	keyed     bool               // the job has its keyed vertex (no restart adds or removes it)
	tms       int                // Job.TaskManagers (no step changes it)
	broadcast bool               // Job.Broadcast (no step changes it)
	// scalable: per vertex index, whether some job so far has it and can scale it on its own
	// (every vertex but a stage behind a forward edge, which follows its input): what an
	// autoscale step may name.
	scalable [2 + MaxStages]bool
}

func newPlanBounds(j Job) *planBounds {
	b := &planBounds{keyed: j.HasKeyed(), tms: j.TaskManagers, broadcast: j.Broadcast}
	b.seeJob(j)
	return b
}

func (b *planBounds) seeJob(j Job) {
	b.numV = max(b.numV, j.NumVertices())
	for v := range j.NumVertices() {
		b.par[v] = max(b.par[v], j.Parallelism(v))
		if j.Parallelism(v) > 0 && (v < 2 || j.Stages[v-2].Edge != EdgeForward) {
			b.scalable[v] = true
		}
	}
}

// see takes in the job a restart or in-place rescale step may leave running.
func (b *planBounds) see(s Step) {
	switch s.Kind {
	case Restart:
		b.seeJob(Job{Source: s.Change.Source, Keyed: s.Change.Keyed, Stages: s.Change.Stages})
	case Rescale:
		for v, q := range s.Parallelism {
			if v < b.numV && b.par[v] > 0 { // a rescale of a vertex no job has changes nothing
				b.par[v] = max(b.par[v], q)
			}
		}
	case Autoscale:
		// The autoscaler never picks above max(current, job.autoscaler.vertex.max-parallelism).
		if v := s.Vertex; v < b.numV && b.par[v] > 0 {
			b.par[v] = max(b.par[v], min(s.Autoscaler.Upper, model.UpperBoundMaxParallelism))
		}
	}
}

// vertices names the vertex indexes of the jobs seen so far: "0 source, 1 keyed, 2 v2".
func (b *planBounds) vertices() string {
	var names []string
	for v := range b.numV {
		if b.par[v] > 0 {
			names = append(names, fmt.Sprintf("%d %s", v, VertexName(v)))
		}
	}
	return strings.Join(names, ", ")
}

// check refuses a step the jobs seen so far cannot take (see Validate).
func (b *planBounds) check(version model.FlinkVersion, s Step) error {
	switch s.Kind {
	case Process, BroadcastUpdate, Retain:
		if s.N < 1 || s.N > maxCount {
			return fmt.Errorf("n=%d: want 1..%d", s.N, maxCount)
		}
		if s.Kind == BroadcastUpdate && !b.broadcast {
			return errors.New("the job has no broadcast state (broadcast=false): no rule update reaches it")
		}
	case Checkpoint, Savepoint, JMFailover:
	case Rollback:
		if s.N < 0 {
			return fmt.Errorf("n=%d: want n >= 0", s.N)
		}
	case Fail:
		return b.checkFail(s)
	case TMRestart, TMLoss:
		if s.TM < 0 || s.TM >= b.tms {
			return fmt.Errorf("the job has no TaskManager %d: it runs on tms=%d (want tm=0..%d)", s.TM, b.tms, b.tms-1)
		}
	case Fault:
		if faultNames[s.Fault] == "" {
			return fmt.Errorf("fault kind %d: want delete-file, truncate-metadata or delete-metadata", s.Fault)
		}
	case Resume:
		return checkMode(version, s.Mode)
	case Rescale:
		return b.checkRescale(s)
	case Autoscale:
		return b.checkAutoscale(s)
	case Restart:
		c := s.Change
		if err := checkVertices(c.Source, c.Keyed, c.Stages); err != nil {
			return err
		}
		if err := (Job{Source: c.Source, Keyed: c.Keyed, Stages: c.Stages}).Validate(); err != nil {
			return err
		}
		if (c.Keyed.Parallelism > 0) != b.keyed {
			return errors.New("keyed=none must stay as in the job line (the simulator does not add or remove the keyed vertex)")
		}
		return checkMode(version, c.Mode)
	default:
		return fmt.Errorf("unknown step kind %d", s.Kind)
	}
	return nil
}

// checkMode refuses a restore mode the version does not have.
func checkMode(version model.FlinkVersion, m model.RestoreMode) error {
	switch {
	case m != model.NoClaim && m != model.Claim && m != model.Legacy:
		return fmt.Errorf("restore mode %d: want NO_CLAIM, CLAIM or LEGACY", m)
	case m == model.Legacy && version == model.Flink1101:
		return errors.New("legacy: Flink 1.10.1 has no restore modes")
	}
	return nil
}

// checkFail refuses a fail step naming no subtask of the jobs seen so far.
func (b *planBounds) checkFail(s Step) error {
	switch v := s.Vertex; {
	case v < 0 || s.Subtask < 0:
		return fmt.Errorf("vertex=%d subtask=%d: want indexes >= 0", v, s.Subtask)
	case v == 1 && b.par[1] == 0:
		return fmt.Errorf("the job has no keyed vertex (its vertices: %s)", b.vertices())
	case v >= b.numV:
		return fmt.Errorf("the job has no vertex %d (its vertices: %s)", v, b.vertices())
	case s.Subtask >= b.par[v]:
		return fmt.Errorf("%s has no subtask %d: it runs at parallelism %d at most up to this step (want subtask 0..%d)",
			VertexName(v), s.Subtask, b.par[v], b.par[v]-1)
	}
	return nil
}

// checkAutoscale refuses an autoscale step naming no vertex that one of the jobs seen so far can
// scale on its own.
func (b *planBounds) checkAutoscale(s Step) error {
	if s.Vertex >= 0 && s.Vertex < len(b.scalable) && b.scalable[s.Vertex] {
		return nil
	}
	var names []string
	for v := range b.numV {
		if b.scalable[v] {
			names = append(names, VertexName(v))
		}
	}
	if s.Vertex >= 0 && s.Vertex < b.numV && b.par[s.Vertex] > 0 {
		return fmt.Errorf("%s follows its input over a forward edge in every job up to this step: it cannot be scaled on its own (scalable: %s)", VertexName(s.Vertex), strings.Join(names, ", "))
	}
	return fmt.Errorf("no job up to this step has a vertex %s (scalable: %s)", VertexName(s.Vertex), strings.Join(names, ", "))
}

// checkRescale refuses a rescale naming no vertex, or one no job seen so far has.
func (b *planBounds) checkRescale(s Step) error {
	named := false
	for v, p := range s.Parallelism {
		switch {
		case p == 0:
			continue
		case p < 0 || p > model.UpperBoundMaxParallelism:
			return fmt.Errorf("%s=%d: want a parallelism in 1..%d", VertexName(v), p, model.UpperBoundMaxParallelism)
		case v == 1 && !b.keyed:
			return fmt.Errorf("the job has no keyed vertex (its vertices: %s)", b.vertices())
		case v >= b.numV:
			return fmt.Errorf("the job has no vertex %s (its vertices: %s)", VertexName(v), b.vertices())
		}
		named = true
	}
	if !named {
		return errors.New("want at least one of source=N keyed=N v2=N …")
	}
	return nil
}

// fitSteps makes every fail and rescale step of a generated plan name only what Validate
// accepts: a fail step's index that names no subtask is taken modulo the bounds (as a run takes
// it modulo the running job), and a rescale forgets the vertices no job of the plan has (a run
// leaves them alone). The generator draws these steps from the job it expects to be running,
// which after an in-place rescale drawn in place of a restart can be a job no step of the plan
// names.
func fitSteps(p *Plan) {
	b := newPlanBounds(p.Job)
	for i := range p.Steps {
		s := &p.Steps[i]
		switch {
		case s.Kind == Fail && b.checkFail(*s) != nil:
			s.Vertex %= b.numV
			if b.par[s.Vertex] == 0 { // no keyed vertex: the source fails instead, as in a run
				s.Vertex = 0
			}
			s.Subtask %= b.par[s.Vertex]
		case s.Kind == Autoscale && b.checkAutoscale(*s) != nil:
			s.Vertex = 0 // the source: every job has it
		case s.Kind == Rescale && b.checkRescale(*s) != nil:
			ps := slices.Clone(s.Parallelism)
			for v := range ps {
				if v >= b.numV || (v == 1 && !b.keyed) {
					ps[v] = 0
				}
			}
			for len(ps) > 0 && ps[len(ps)-1] == 0 {
				ps = ps[:len(ps)-1]
			}
			s.Parallelism = ps
		}
		b.see(*s)
	}
}

// checkUIDKinds refuses a uid (or setUidHash) of the source or the keyed operator that names
// the sink or a stage operator anywhere in the plan (see Validate).
func (p Plan) checkUIDKinds() error {
	j := p.Job
	core := map[model.OperatorID]string{}
	other := map[model.OperatorID]string{model.OperatorIDFromUID(sinkUID): sinkUID}
	addCore := func(c VertexConfig) {
		core[model.OperatorIDFromUID(c.UID)] = c.UID
		if id, err := model.ParseOperatorID(c.UIDHash); err == nil {
			core[id] = "hash:" + c.UIDHash
		}
	}
	addStages := func(j Job) {
		for k := range j.Stages {
			for _, uid := range j.StageUIDs(k) {
				other[model.OperatorIDFromUID(uid)] = uid
			}
		}
	}
	addCore(j.Source)
	if j.HasKeyed() {
		addCore(j.Keyed)
	}
	addStages(j)
	for _, s := range p.Steps {
		if s.Kind != Restart {
			continue
		}
		addCore(s.Change.Source)
		if j.HasKeyed() {
			addCore(s.Change.Keyed)
		}
		addStages(Job{Source: s.Change.Source, Keyed: s.Change.Keyed, Stages: s.Change.Stages})
	}
	for _, id := range slices.SortedFunc(maps.Keys(core), func(a, b model.OperatorID) int { return strings.Compare(a.String(), b.String()) }) {
		if o, ok := other[id]; ok {
			name := core[id]
			return fmt.Errorf("%s (a source or keyed operator) and %s (the sink or a stage operator) have the same operator ID %s: keep their uids apart", name, o, id)
		}
	}
	return nil
}
