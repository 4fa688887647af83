package sim

import "slices"

// MaxShrinkRuns bounds the runs Shrink makes: it stops with the smallest plan found so far
// once it has run this many candidates (candidates the plan's validation refuses are not run
// and not counted).
const MaxShrinkRuns = 2000

// FirstFailure is the invariant of the first violation (in the order a Result lists them)
// that is not attributed to a known Flink issue, "" when there is none.
func FirstFailure(vs []Violation) string {
	for _, v := range vs {
		if v.Known == "" {
			return v.Invariant
		}
	}
	return ""
}

// SameFailure is the predicate Shrink keeps a failing run's candidates by: the candidate fails,
// its first failing violation breaks the same invariant as o's (FirstFailure), and when that is
// a panic (InvPanic), it panics at the same place (Outcome.PanicAt): another panic is another
// bug, not a smaller case of this one.
func SameFailure(o Outcome) func(Outcome) bool {
	inv := FirstFailure(o.Violations)
	return func(c Outcome) bool {
		return inv != "" && FirstFailure(c.Violations) == inv && (inv != InvPanic || c.PanicAt == o.PanicAt)
	}
}

// ShrinkOutcome shrinks a failing outcome's plan (Shrink with SameFailure) and sets its Min to
// the run of the plan found. It leaves o as it is when o passes, when its plan was never
// generated (a generator panic), or when its plan does not reproduce o when run again.
func ShrinkOutcome(o Outcome) Outcome {
	if !o.Verdict().Failed() || o.Plan.Job.Source.Parallelism == 0 {
		return o
	}
	keep := SameFailure(o)
	if !keep(RunSafe(o.Plan)) {
		return o
	}
	m := RunSafe(Shrink(o.Plan, keep))
	o.Min = &m
	return o
}

// Shrink reduces p to a smaller plan whose run keep still accepts (keep(RunSafe(p)) is
// assumed), deterministically and in at most MaxShrinkRuns runs. It repeats, while one of them
// makes progress: dropping steps (delta debugging: halves of the schedule, then quarters, …,
// then single steps), lowering step counts (records, broadcast updates), and simplifying the
// job (stages dropped, chains of one operator, features off, parallelism, keys, splits and
// TaskManagers lowered to 1 or halved; the broadcast state turned off with its rule updates,
// the TaskManager steps taken modulo a lowered number of TaskManagers). A candidate is run only
// if it is a valid plan that renders and parses back (Plan.Validate, ParsePlan): a step its job
// cannot take is never tried, so a shrunk plan replays, and fails as it failed here. Each is
// judged by RunSafe and kept only if keep accepts it.
func Shrink(p Plan, keep func(Outcome) bool) Plan {
	s := shrinker{cur: clonePlan(p), keep: keep}
	for progress := true; progress && s.runs < MaxShrinkRuns; {
		progress = s.dropSteps()
		progress = s.smallerSteps() || progress
		progress = s.simplerJob() || progress
	}
	return s.cur
}

type shrinker struct {
	cur  Plan
	keep func(Outcome) bool
	runs int
}

// try runs c if it is valid and the budget allows, and makes it the current plan if keep
// accepts it.
func (s *shrinker) try(c Plan) bool {
	if s.runs >= MaxShrinkRuns || c.Validate() != nil {
		return false
	}
	text := c.Render()
	if q, err := ParsePlan(text); err != nil || q.Render() != text {
		return false
	}
	s.runs++
	if !s.keep(RunSafe(c)) {
		return false
	}
	s.cur = c
	return true
}

func clonePlan(p Plan) Plan {
	p.Job.Stages = slices.Clone(p.Job.Stages)
	p.Steps = slices.Clone(p.Steps)
	for i := range p.Steps {
		p.Steps[i].Change.Stages = slices.Clone(p.Steps[i].Change.Stages)
	}
	return p
}

// dropSteps removes chunks of steps, halving the chunk size down to one step.
func (s *shrinker) dropSteps() bool {
	progress := false
	for chunk := max(len(s.cur.Steps)/2, 1); chunk >= 1 && len(s.cur.Steps) > 0; chunk /= 2 {
		for i := 0; i < len(s.cur.Steps); {
			c := clonePlan(s.cur)
			c.Steps = slices.Delete(c.Steps, i, min(i+chunk, len(c.Steps)))
			if s.try(c) {
				progress = true
			} else {
				i += chunk
			}
		}
	}
	return progress
}

// smaller tries the values 1, then half of *v, for an int field of a copy of the current plan
// that at points to, and returns whether one was kept.
func (s *shrinker) smaller(at func(*Plan) *int, floor int) bool {
	progress := false
	for {
		cur := *at(&s.cur)
		tried := false
		for _, n := range []int{floor, cur / 2} {
			if n < floor || n >= cur {
				continue
			}
			c := clonePlan(s.cur)
			*at(&c) = n
			fitTaskManagers(&c)
			tried = true
			if s.try(c) {
				progress = true
				break
			}
		}
		if !tried || *at(&s.cur) == cur {
			return progress
		}
	}
}

// smallerSteps lowers the record and update counts of the steps, and simplifies the restarts'
// new jobs (stages dropped, parallelism lowered).
func (s *shrinker) smallerSteps() bool {
	progress := false
	for i := range s.cur.Steps {
		switch s.cur.Steps[i].Kind {
		case Process, BroadcastUpdate:
			progress = s.smaller(func(p *Plan) *int { return &p.Steps[i].N }, 1) || progress
		case Restart:
			progress = s.simplerRestart(i) || progress
		}
	}
	return progress
}

// simplerRestart simplifies the new job of restart step i.
func (s *shrinker) simplerRestart(i int) bool {
	progress := false
	ch := func(p *Plan) *Change { return &p.Steps[i].Change }
	for k := len(ch(&s.cur).Stages) - 1; k >= 0; k-- {
		if k < len(ch(&s.cur).Stages) {
			c := clonePlan(s.cur)
			d := dropStage(Plan{Job: Job{Stages: ch(&c).Stages}}, k)
			ch(&c).Stages = d.Job.Stages
			progress = s.try(c) || progress
		}
	}
	ints := []func(*Plan) *int{func(p *Plan) *int { return &ch(p).Source.Parallelism }}
	if ch(&s.cur).Keyed.Parallelism > 0 {
		ints = append(ints, func(p *Plan) *int { return &ch(p).Keyed.Parallelism })
	}
	for k := range ch(&s.cur).Stages {
		ints = append(ints, func(p *Plan) *int { return &ch(p).Stages[k].Config.Parallelism })
	}
	for _, f := range ints {
		progress = s.smaller(f, 1) || progress
	}
	return progress
}

// simplerJob drops stages, turns features off and lowers the job's sizes.
func (s *shrinker) simplerJob() bool {
	progress := false
	for k := len(s.cur.Job.Stages) - 1; k >= 0; k-- {
		if k < len(s.cur.Job.Stages) {
			progress = s.try(dropStage(s.cur, k)) || progress
		}
	}
	for k := range s.cur.Job.Stages {
		if s.cur.Job.Stages[k].Chain > 1 {
			c := clonePlan(s.cur)
			c.Job.Stages[k].Chain = 1
			progress = s.try(c) || progress
		}
	}
	flags := []func(*Job) *bool{
		func(j *Job) *bool { return &j.Sink }, func(j *Job) *bool { return &j.Broadcast },
		func(j *Job) *bool { return &j.RawKeyed }, func(j *Job) *bool { return &j.LocalRecovery },
		func(j *Job) *bool { return &j.Incremental }, func(j *Job) *bool { return &j.UnionOffsets },
	}
	for _, f := range flags {
		if *f(&s.cur.Job) {
			c := clonePlan(s.cur)
			*f(&c.Job) = false
			if !c.Job.Broadcast { // a job without broadcast state takes no rule updates
				c.Steps = slices.DeleteFunc(c.Steps, func(st Step) bool { return st.Kind == BroadcastUpdate })
			}
			progress = s.try(c) || progress
		}
	}
	ints := []func(*Plan) *int{
		func(p *Plan) *int { return &p.Job.Source.Parallelism }, func(p *Plan) *int { return &p.Job.NumKeys },
		func(p *Plan) *int { return &p.Job.Splits }, func(p *Plan) *int { return &p.Job.TaskManagers },
	}
	if s.cur.Job.HasKeyed() {
		ints = append(ints, func(p *Plan) *int { return &p.Job.Keyed.Parallelism })
	}
	for k := range s.cur.Job.Stages {
		ints = append(ints, func(p *Plan) *int { return &p.Job.Stages[k].Config.Parallelism })
	}
	for _, f := range ints {
		progress = s.smaller(f, 1) || progress
	}
	return progress
}

// fitTaskManagers makes c's TaskManager steps name one of its job's TaskManagers (modulo their
// number), after the shrinker lowered it.
func fitTaskManagers(c *Plan) {
	for i := range c.Steps {
		if st := &c.Steps[i]; st.Kind == TMRestart || st.Kind == TMLoss {
			st.TM %= max(1, c.Job.TaskManagers)
		}
	}
}

// dropStage is p without stage k: the stages reading it read its input instead, and the later
// vertexes move down one index.
func dropStage(p Plan, k int) Plan {
	c := clonePlan(p)
	v := 2 + k
	in := c.Job.Stages[k].Input
	c.Job.Stages = slices.Delete(c.Job.Stages, k, k+1)
	for i := range c.Job.Stages {
		switch st := &c.Job.Stages[i]; {
		case st.Input == v:
			st.Input = in
		case st.Input > v:
			st.Input--
		}
	}
	return c
}
