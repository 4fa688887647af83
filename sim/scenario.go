package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
)

// Scenario syntax. A plan renders as lines:
//
//	seed 42
//	flink 1.18
//	job keys=int/uniform/100 splits=4 offsets=split broadcast=true raw-keyed=false backend=full sink=true source=p4/uid:source keyed=p4/m128/uid:keyed
//	process n=10
//	checkpoint
//	restart source=p4/uid:source keyed=p8/uid:keyed allow-non-restored claim
//
// A job may add stage vertices v2…v5 (see Stage), each as INPUT/EDGE/PARTITION/cCHAIN[/keyed]/
// VERTEX, e.g. "v2=keyed/rebalance/blocking/c2/p3/uid:enrich" (stateless) or
// "v3=keyed/hash/pipelined/c1/keyed/p4/m60/uid:agg" (keyed state by a derived key); a restart line
// lists the new job's stages the same way (a stage it does not list is removed).
//
// Blank lines and lines starting with '#' are ignored, and so is everything from " -> " on, so a
// printed trace (each step followed by " -> " and its outcome) parses back into the plan that
// produced it. "seed" and "flink" are optional (seed 0, Flink 1.18).

// ErrScenario matches every scenario parse error.
var ErrScenario = errors.New("scenario")

// Render gives the plan in scenario syntax, one line per element, ending with a newline.
func (p Plan) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d\nflink %s\n%s\n", p.Seed, p.Version, p.Job)
	for _, s := range p.Steps {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParsePlan parses scenario text.
func ParsePlan(text string) (Plan, error) {
	var p Plan
	haveJob, jobLine := false, 0
	var lines []int // the line number of each step
	for n, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, " -> "); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		fail := func(format string, args ...any) (Plan, error) {
			return Plan{}, fmt.Errorf("%w: line %d: %s: %s", ErrScenario, n+1, fields[0], fmt.Sprintf(format, args...))
		}
		switch fields[0] {
		case "seed":
			if len(fields) != 2 {
				return fail("want 'seed N'")
			}
			v, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return fail("%q is not an unsigned integer", fields[1])
			}
			p.Seed = v
			continue
		case "flink":
			if len(fields) != 2 {
				return fail("want 'flink V' (V: %s)", model.FlinkVersionNames())
			}
			v, err := model.ParseFlinkVersion(fields[1])
			if err != nil {
				return fail("%v", err)
			}
			p.Version = v
			continue
		case "job":
			if haveJob { // (the steps before it would belong to another job)
				return fail("a plan has one 'job' line, and line %d is one", jobLine)
			}
			j, err := parseJob(fields[1:])
			if err != nil {
				return fail("%v", err)
			}
			p.Job, haveJob, jobLine = j, true, n+1
			continue
		}
		if !haveJob {
			return fail("a 'job' line must come before the steps")
		}
		s, err := parseStep(fields)
		if err != nil {
			return fail("%v", err)
		}
		p.Steps = append(p.Steps, s)
		lines = append(lines, n+1)
	}
	if !haveJob {
		return Plan{}, fmt.Errorf("%w: no 'job' line", ErrScenario)
	}
	if err := p.Validate(); err != nil {
		var se *StepError
		if errors.As(err, &se) {
			return Plan{}, fmt.Errorf("%w: line %d: %s: %v", ErrScenario, lines[se.Index], p.Steps[se.Index].Kind, se.Err)
		}
		return Plan{}, fmt.Errorf("%w: %v", ErrScenario, err)
	}
	return p, nil
}

// args splits "k=v" and bare-flag tokens.
func args(tokens []string) (map[string]string, error) {
	m := map[string]string{}
	for _, t := range tokens {
		k, v, _ := strings.Cut(t, "=")
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		m[k] = v
	}
	return m, nil
}

func parseBool(m map[string]string, k string) (bool, error) {
	switch m[k] {
	case "true":
		return true, nil
	case "false", "":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want true or false", k, m[k])
}

func parseJob(tokens []string) (Job, error) {
	m, err := args(tokens)
	if err != nil {
		return Job{}, err
	}
	known := map[string]bool{"keys": true, "splits": true, "offsets": true, "broadcast": true, "raw-keyed": true, "backend": true,
		"sink": true, "source": true, "keyed": true, "tms": true, "local-recovery": true, "names": true, "sparse": true, "unaligned": true,
		"key-group-probe": true}
	for k := range m {
		if !known[k] && !isStageKey(k) {
			return Job{}, fmt.Errorf("unknown field %q", k)
		}
	}
	var j Job
	kp := strings.Split(m["keys"], "/")
	if len(kp) == 4 && kp[3] == "extreme" {
		j.KeyValues, kp = ExtremeKeys, kp[:3]
	} else if len(kp) == 4 && kp[3] == "min-hash" {
		j.KeyValues, kp = MinHashKeys, kp[:3]
	}
	if len(kp) != 3 {
		return Job{}, fmt.Errorf("keys=%q: want TYPE/DISTRIBUTION/COUNT[/extreme|/min-hash], e.g. int/uniform/100", m["keys"])
	}
	if j.KeyType = KeyType(lookup(keyTypeNames, kp[0])); j.KeyType == 0 {
		return Job{}, fmt.Errorf("unknown key type %q (want int, long, string or row)", kp[0])
	}
	if j.KeyDist = KeyDist(lookup(keyDistNames, kp[1])); j.KeyDist == 0 {
		return Job{}, fmt.Errorf("unknown key distribution %q (want uniform, zipf, hot or sequential)", kp[1])
	}
	if j.NumKeys, err = positive("key count", kp[2], maxKeys); err != nil {
		return Job{}, err
	}
	if j.Splits, err = positive("splits", m["splits"], maxSplits); err != nil {
		return Job{}, err
	}
	switch m["offsets"] {
	case "split", "":
	case "union":
		j.UnionOffsets = true
	default:
		return Job{}, fmt.Errorf("offsets=%q: want split or union", m["offsets"])
	}
	if m["names"] != "" {
		if j.StateNames, err = positive("names", m["names"], MaxStateNames); err != nil {
			return Job{}, err
		}
		if j.StateNames == 1 {
			j.StateNames = 0 // one state, as without names=
		}
	}
	if m["key-group-probe"] != "" {
		if j.KeyGroupProbe, err = positive("key-group-probe", m["key-group-probe"], model.UpperBoundMaxParallelism); err != nil {
			return Job{}, err
		}
	}
	switch m["backend"] {
	case "full", "":
	case "incremental":
		j.Incremental = true
	default:
		return Job{}, fmt.Errorf("backend=%q: want full or incremental", m["backend"])
	}
	j.TaskManagers = 1
	if m["tms"] != "" {
		if j.TaskManagers, err = positive("tms", m["tms"], maxTaskManagers); err != nil {
			return Job{}, err
		}
	}
	for k, dst := range map[string]*bool{"broadcast": &j.Broadcast, "raw-keyed": &j.RawKeyed, "sink": &j.Sink, "local-recovery": &j.LocalRecovery, "sparse": &j.Sparse, "unaligned": &j.Unaligned} {
		if *dst, err = parseBool(m, k); err != nil {
			return Job{}, err
		}
	}
	if j.Source, err = parseVertex("source", m["source"]); err != nil {
		return Job{}, err
	}
	if j.Keyed, err = parseKeyed(m["keyed"]); err != nil {
		return Job{}, err
	}
	if j.Stages, err = parseStages(m); err != nil {
		return Job{}, err
	}
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	return j, nil
}

// isStageKey reports whether k names a stage vertex: v2, v3, ….
func isStageKey(k string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(k, "v"))
	return strings.HasPrefix(k, "v") && err == nil && n >= 2
}

// parseStages parses the v2=…, v3=… arguments, which must be numbered without gaps.
func parseStages(m map[string]string) ([]Stage, error) {
	n := 0
	for k := range m {
		if isStageKey(k) {
			n++
		}
	}
	if n > MaxStages {
		return nil, fmt.Errorf("%d stages: at most %d (six vertices in all)", n, MaxStages)
	}
	if n == 0 {
		return nil, nil
	}
	stages := make([]Stage, n)
	for k := range stages {
		name := VertexName(2 + k)
		v, ok := m[name]
		if !ok {
			return nil, fmt.Errorf("stages must be numbered v2…v%d without gaps: %s is missing", 1+n, name)
		}
		st, err := parseStage(name, 2+k, v)
		if err != nil {
			return nil, err
		}
		stages[k] = st
	}
	return stages, nil
}

// parseStage parses INPUT/EDGE/PARTITION/cCHAIN/VERTEX for stage vertex index v.
func parseStage(name string, v int, s string) (Stage, error) {
	parts := strings.SplitN(s, "/", 5)
	keyed := false
	if len(parts) == 5 && (parts[4] == "keyed" || strings.HasPrefix(parts[4], "keyed/")) {
		parts[4] = strings.TrimPrefix(strings.TrimPrefix(parts[4], "keyed"), "/")
		keyed = true
	}
	if len(parts) < 5 || parts[4] == "" {
		return Stage{}, fmt.Errorf("%s=%q: want INPUT/EDGE/PARTITION/cCHAIN[/keyed]/VERTEX, e.g. %s=keyed/rebalance/blocking/c2/p4/uid:%s", name, s, name, name)
	}
	st := Stage{Keyed: keyed, Input: -1}
	for u := range v {
		if VertexName(u) == parts[0] {
			st.Input = u
		}
	}
	if st.Input < 0 {
		return Stage{}, fmt.Errorf("%s=%q: input %q is not an earlier vertex (source, keyed or v2…v%d)", name, s, parts[0], v-1)
	}
	if st.Edge = EdgeKind(lookup(edgeNames, parts[1])); st.Edge == 0 {
		return Stage{}, fmt.Errorf("%s=%q: edge %q: want forward, rebalance, hash or broadcast", name, s, parts[1])
	}
	switch parts[2] {
	case "pipelined":
	case "blocking":
		st.Blocking = true
	default:
		return Stage{}, fmt.Errorf("%s=%q: partition %q: want pipelined or blocking", name, s, parts[2])
	}
	c, err := strconv.Atoi(strings.TrimPrefix(parts[3], "c"))
	if !strings.HasPrefix(parts[3], "c") || err != nil || c < 1 || c > MaxChain {
		return Stage{}, fmt.Errorf("%s=%q: chain %q: want c1, c2 or c3", name, s, parts[3])
	}
	st.Chain = c
	if st.Config, err = parseVertex(name, parts[4]); err != nil {
		return Stage{}, err
	}
	if st.Config.UIDHash != "" {
		return Stage{}, fmt.Errorf("%s=%q: a stage takes no hash: (setUidHash is simulated on the keyed vertex)", name, s)
	}
	return st, nil
}

// Validate checks what Flink checks when it builds the job graph: a forward edge joins vertices
// of equal parallelism ("Forward partitioning does not allow change of parallelism"), and uids
// are unique ("Hash collision on user-specified ID"). It also bounds the simulated shape.
func (j Job) Validate() error {
	if len(j.Stages) > MaxStages {
		return fmt.Errorf("%d stages: at most %d (six vertices in all)", len(j.Stages), MaxStages)
	}
	uids := map[string]string{j.Source.UID: "source"}
	add := func(uid, vertex string) error {
		if other, dup := uids[uid]; dup {
			return fmt.Errorf("uid %q is used twice (%s and %s): Flink refuses a hash collision on a user-specified ID", uid, other, vertex)
		}
		uids[uid] = vertex
		return nil
	}
	if !j.HasKeyed() && (j.Sink || j.Broadcast || j.RawKeyed) {
		return fmt.Errorf("keyed=none: sink, broadcast and raw-keyed belong to the keyed vertex")
	}
	if j.HasKeyed() {
		if err := add(j.Keyed.UID, "keyed"); err != nil {
			return err
		}
	}
	if j.Sink {
		if err := add(sinkUID, "keyed"); err != nil {
			return err
		}
	}
	for k, st := range j.Stages {
		v := 2 + k
		if st.Input < 0 || st.Input >= v || (st.Input == 1 && !j.HasKeyed()) {
			return fmt.Errorf("%s: input %s is not an earlier vertex of the job", VertexName(v), VertexName(st.Input))
		}
		if st.Chain < 1 || st.Chain > MaxChain {
			return fmt.Errorf("%s: chain of %d operators: want 1..%d", VertexName(v), st.Chain, MaxChain)
		}
		if st.Keyed && (st.Edge != EdgeHash || st.Blocking || (st.Input >= 2 && !j.Stages[st.Input-2].Keyed)) {
			return fmt.Errorf("%s: a keyed stage reads the source, the keyed vertex or a keyed stage over a pipelined hash edge", VertexName(v))
		}
		if st.Edge == EdgeForward && st.Config.Parallelism != j.Parallelism(st.Input) {
			return fmt.Errorf("%s: forward partitioning does not allow change of parallelism (%s p%d, %s p%d)",
				VertexName(v), VertexName(st.Input), j.Parallelism(st.Input), VertexName(v), st.Config.Parallelism)
		}
		for _, uid := range j.StageUIDs(k) {
			if err := add(uid, VertexName(v)); err != nil {
				return err
			}
		}
	}
	return nil
}

func lookup[K ~uint8](names map[K]string, s string) uint8 {
	for k, n := range names {
		if n == s {
			return uint8(k)
		}
	}
	return 0
}

func positive(what, s string, limit int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 || v > limit {
		return 0, fmt.Errorf("%s %q: want an integer in 1..%d", what, s, limit)
	}
	return v, nil
}

// parseKeyed parses the keyed vertex: "none", or a vertex as parseVertex.
func parseKeyed(s string) (VertexConfig, error) {
	if s == "none" {
		return VertexConfig{}, nil
	}
	return parseVertex("keyed", s)
}

// parseVertex parses "p4/m128/uid:keyed/hash:<32 hex>" (m and hash optional).
func parseVertex(name, s string) (VertexConfig, error) {
	if s == "" {
		return VertexConfig{}, fmt.Errorf("%s= is missing (e.g. %s=p4/uid:%s)", name, name, name)
	}
	var v VertexConfig
	auto := false
	for i, part := range strings.Split(s, "/") {
		var err error
		switch {
		case part == "auto" && strings.HasPrefix(name, "v"): // a stage: generated operator IDs
			auto = true
		case i == 0 && strings.HasPrefix(part, "p"):
			v.Parallelism, err = positive(name+" parallelism", part[1:], model.UpperBoundMaxParallelism)
		case strings.HasPrefix(part, "m"):
			v.MaxParallelism, err = positive(name+" max parallelism", part[1:], model.UpperBoundMaxParallelism)
		case strings.HasPrefix(part, "uid:"):
			v.UID = part[4:]
			if v.UID == "" || strings.HasPrefix(v.UID, "~") {
				err = fmt.Errorf("%s=%q: uid %q: want a name not starting with ~", name, s, v.UID)
			}
		case strings.HasPrefix(part, "hash:"):
			if _, perr := model.ParseOperatorID(part[5:]); perr != nil {
				err = perr
			}
			v.UIDHash = part[5:]
		default:
			err = fmt.Errorf("%s=%q: unknown part %q (want pN, mN, uid:NAME, hash:HEX)", name, s, part)
		}
		if err != nil {
			return VertexConfig{}, err
		}
	}
	if v.Parallelism == 0 || (v.UID == "") == !auto {
		if strings.HasPrefix(name, "v") {
			return VertexConfig{}, fmt.Errorf("%s=%q: want pN and one of uid:NAME or auto (generated IDs)", name, s)
		}
		return VertexConfig{}, fmt.Errorf("%s=%q: want at least pN and uid:NAME", name, s)
	}
	return v, nil
}

func parseStep(f []string) (Step, error) {
	kind := StepKind(lookup(stepNames, f[0]))
	if kind == 0 {
		return Step{}, fmt.Errorf("unknown step (want process, broadcast, checkpoint, savepoint, fail, restart, retain, tm-restart, tm-loss, jm-failover, fault, resume, rollback, rescale or autoscale)")
	}
	m, err := args(f[1:])
	if err != nil {
		return Step{}, err
	}
	s := Step{Kind: kind}
	allowed := map[StepKind][]string{Process: {"n"}, BroadcastUpdate: {"n"}, Retain: {"n"}, Checkpoint: {"abort"},
		Savepoint: nil, Fail: {"vertex", "subtask"}, Restart: {"source", "keyed", "drop-sink", "add-sink", "allow-non-restored", "claim", "legacy"},
		TMRestart: {"tm"}, TMLoss: {"tm"}, JMFailover: nil, Fault: {"kind"}, Resume: {"claim", "legacy"}, Rollback: {"n"},
		Rescale: {"source", "keyed"}, Autoscale: {"vertex", "operator", "target", "mode", "min", "max", "partitions"}}[kind]
	for k := range m {
		ok := (kind == Restart || kind == Rescale) && isStageKey(k)
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return Step{}, fmt.Errorf("unknown argument %q", k)
		}
	}
	switch kind {
	case Process, BroadcastUpdate, Retain:
		if s.N, err = positive("n", m["n"], maxCount); err != nil {
			return Step{}, err
		}
	case Checkpoint:
		_, s.Abort = m["abort"]
	case Fail:
		v, err1 := strconv.Atoi(m["vertex"])
		t, err2 := strconv.Atoi(m["subtask"])
		if err1 != nil || err2 != nil || v < 0 || v > 1+MaxStages || t < 0 {
			return Step{}, fmt.Errorf("want vertex=V subtask=N (V in 0..%d: 0 source, 1 keyed, 2… stages; N >= 0)", 1+MaxStages)
		}
		s.Vertex, s.Subtask = v, t
	case Rollback:
		v, err := strconv.Atoi(m["n"])
		if err != nil || v < 0 {
			return Step{}, fmt.Errorf("want n=N (N >= 0)")
		}
		s.N = v
	case TMRestart, TMLoss:
		v, err := strconv.Atoi(m["tm"])
		if err != nil || v < 0 {
			return Step{}, fmt.Errorf("want tm=N")
		}
		s.TM = v
	case Fault:
		if s.Fault = FaultKind(lookup(faultNames, m["kind"])); s.Fault == 0 {
			return Step{}, fmt.Errorf("kind=%q: want delete-file, truncate-metadata or delete-metadata", m["kind"])
		}
	case Resume:
		if s.Mode, err = parseMode(m); err != nil {
			return Step{}, err
		}
	case Rescale:
		if s.Parallelism, err = parseRescale(m); err != nil {
			return Step{}, err
		}
	case Autoscale:
		if s.Vertex, s.Autoscaler, err = parseAutoscale(m); err != nil {
			return Step{}, err
		}
	case Restart:
		c := &s.Change
		if c.Source, err = parseVertex("source", m["source"]); err != nil {
			return Step{}, err
		}
		if c.Keyed, err = parseKeyed(m["keyed"]); err != nil {
			return Step{}, err
		}
		if c.Stages, err = parseStages(m); err != nil {
			return Step{}, err
		}
		if err := (Job{Source: c.Source, Keyed: c.Keyed, Stages: c.Stages}).Validate(); err != nil {
			return Step{}, err
		}
		_, c.DropSink = m["drop-sink"]
		_, c.AddSink = m["add-sink"]
		_, c.AllowNonRestoredState = m["allow-non-restored"]
		if c.Mode, err = parseMode(m); err != nil {
			return Step{}, err
		}
	}
	return s, nil
}

// parseMode reads a restore mode from the flags claim and legacy (neither: NO_CLAIM).
func parseMode(m map[string]string) (model.RestoreMode, error) {
	_, claim := m["claim"]
	_, legacy := m["legacy"]
	switch {
	case claim && legacy:
		return 0, fmt.Errorf("claim and legacy: one restore mode only")
	case claim:
		return model.Claim, nil
	case legacy:
		return model.Legacy, nil
	}
	return model.NoClaim, nil
}

// parseRescale reads a rescale's new parallelisms: source=N keyed=N v2=N …, at least one.
func parseRescale(m map[string]string) ([]int, error) {
	var out []int
	for k, v := range m {
		idx := 0
		switch {
		case k == "keyed":
			idx = 1
		case isStageKey(k):
			idx, _ = strconv.Atoi(k[1:])
			if idx > 1+MaxStages {
				return nil, fmt.Errorf("%s: at most %d stages", k, MaxStages)
			}
		}
		p, err := positive(k+" parallelism", v, model.UpperBoundMaxParallelism)
		if err != nil {
			return nil, err
		}
		for len(out) <= idx {
			out = append(out, 0)
		}
		out[idx] = p
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("want at least one of source=N keyed=N v2=N …")
	}
	return out, nil
}

// parseAutoscale reads an autoscale step: vertex=NAME operator=RELEASE target=N, and optionally
// mode=MODE min=N max=N (the limits, defaults 1 and 200) and, for the source, partitions=N.
func parseAutoscale(m map[string]string) (int, AutoscalerCall, error) {
	a := AutoscalerCall{Lower: autoscaler.DefaultLower, Upper: autoscaler.DefaultUpper}
	v := -1
	switch name := m["vertex"]; {
	case name == "source":
		v = 0
	case name == "keyed":
		v = 1
	case isStageKey(name):
		v, _ = strconv.Atoi(name[1:])
	}
	if v < 0 || v > 1+MaxStages {
		return 0, a, fmt.Errorf("vertex=%q: want source, keyed or v2 … v%d", m["vertex"], 1+MaxStages)
	}
	var err error
	if a.Release, err = autoscaler.ParseRelease(m["operator"]); err != nil {
		return 0, a, err
	}
	if mode, ok := m["mode"]; ok {
		if a.Mode, err = autoscaler.ParseMode(mode); err != nil {
			return 0, a, err
		}
		if err := a.Release.CheckMode(a.Mode); err != nil {
			return 0, a, err
		}
	}
	if a.Target, err = positive("target", m["target"], autoscaler.MaxTarget); err != nil {
		return 0, a, err
	}
	if x, ok := m["min"]; ok {
		if a.Lower, err = positive("min", x, autoscaler.MaxTarget); err != nil {
			return 0, a, err
		}
	}
	if x, ok := m["max"]; ok {
		if a.Upper, err = positive("max", x, autoscaler.MaxTarget); err != nil {
			return 0, a, err
		}
	}
	if a.Lower > a.Upper {
		return 0, a, fmt.Errorf("min=%d is above max=%d", a.Lower, a.Upper)
	}
	if x, ok := m["partitions"]; ok {
		if v != 0 {
			return 0, a, fmt.Errorf("partitions=%s: only the source reads partitions", x)
		}
		if a.Partitions, err = positive("partitions", x, autoscaler.MaxTarget); err != nil {
			return 0, a, err
		}
	}
	return v, a, nil
}
