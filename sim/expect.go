package sim

import (
	"slices"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// expectation is the oracle's verdict on a restore (see oracle.ExpectRestore), with the refusal
// reason as the model error a refusal must match (errors.Is).
type expectation struct {
	oracle.Expectation
	reason error // when refused
}

// refusalErrors maps the oracle's refusal reasons to the model's errors.
var refusalErrors = map[oracle.Reason]error{
	oracle.MaxParallelismBelowParallelism:    model.ErrMaxParallelismBelowParallelism,
	oracle.MaxParallelismMismatch:            model.ErrMaxParallelismMismatch,
	oracle.NonRestoredState:                  model.ErrNonRestoredState,
	oracle.MaxParallelismBelowNewParallelism: model.ErrMaxParallelismBelowNewParallelism,
	oracle.MaxParallelismDisagreement:        model.ErrMaxParallelismDisagreement,
}

// Known Flink issues the simulator attributes violations to, on Flink 1.10.1.
const (
	// KnownFLINK16638: the completeness check ignores user-defined (setUidHash) IDs.
	KnownFLINK16638 = "FLINK-16638"
	// KnownFLINK13973: a set user-defined ID is always preferred, with no fallback to the
	// generated ID, so state stored under the generated ID is silently not restored.
	KnownFLINK13973 = "FLINK-13973"
)

// knownIssue names the known 1.10.1 issue a restore with this expectation runs into, if any.
func (e expectation) knownIssue(v model.FlinkVersion) string {
	if v != model.Flink1101 {
		return ""
	}
	switch {
	case e.ViaUIDHash:
		return KnownFLINK16638
	case e.StaleUIDHash:
		return KnownFLINK13973
	}
	return ""
}

// expectRestore asks the oracle for the outcome of restoring a snapshot of shape old into job j
// on Flink version.
func expectRestore(version model.FlinkVersion, old oracle.Shape, j Job, allowNonRestored bool) expectation {
	return expectOracle(version, old, oracleJob(j), allowNonRestored)
}

// expectOracle asks the oracle for the outcome of restoring a snapshot of shape old into the job
// oj describes on Flink version.
func expectOracle(version model.FlinkVersion, old oracle.Shape, oj oracle.Job, allowNonRestored bool) expectation {
	oj.RefuseMaxParallelismDisagreement = version == model.FlinkMaster
	e := oracle.ExpectRestore(old, oj, allowNonRestored)
	return expectation{Expectation: e, reason: refusalErrors[e.Reason]}
}

// oracleJob describes job j to the oracle in plain values.
func oracleJob(j Job) oracle.Job {
	vertex := func(v int, uids []string) oracle.Vertex {
		c := j.vertexConfig(v)
		return oracle.Vertex{Name: VertexName(v), Parallelism: c.Parallelism, MaxParallelism: c.MaxParallelism, UIDs: uids, UIDHash: c.UIDHash}
	}
	oj := oracle.Job{Source: vertex(0, []string{j.Source.UID}), Keyed: vertex(1, []string{j.Keyed.UID})}
	if j.Sink {
		oj.SinkUID = sinkUID
	}
	for k := range j.Stages {
		oj.Stages = append(oj.Stages, vertex(2+k, j.StageUIDs(k)))
	}
	return oj
}

// oracleKeyType is the oracle's name for a key type.
func oracleKeyType(t KeyType) oracle.KeyType {
	switch t {
	case KeyLong:
		return oracle.Long
	case KeyString:
		return oracle.String
	case KeyRow:
		return oracle.Row
	}
	return oracle.Int
}

// maxParOf gives, for an accepted restore of a snapshot of shape old, the max parallelism the
// oracle expects vertex v to restore with (the source adopts the stored one; it holds no keyed
// state, so only its parallelism bound matters).
func (e expectation) maxParOf(old oracle.Shape) func(v int) int {
	return func(v int) int {
		switch v {
		case 0:
			return old.SourceMax
		case 1:
			return e.KeyedMax
		}
		return e.StageMax[v-2]
	}
}

// settle takes, for each vertex of a (vertices: their indexes in the job, in a's order) where
// the oracle allows any of several max parallelisms (AnyMax: states that disagree, none holding
// keyed state, so Flink adopts the one it checks last in an order the oracle does not emulate,
// harmlessly), the max parallelism the restore ran with when it is one of them: the checks that
// follow expect that one.
func (e *expectation) settle(a *model.Assignment, vertices []int) {
	if !e.Accept || e.AnyMax == nil || a == nil {
		return
	}
	for k, v := range vertices {
		if v < 1 || v >= len(e.AnyMax) || k >= len(a.Vertices) || !slices.Contains(e.AnyMax[v], a.Vertices[k].MaxParallelism) {
			continue
		}
		if v == 1 {
			e.KeyedMax = a.Vertices[k].MaxParallelism
		} else {
			e.StageMax = slices.Clone(e.StageMax)
			e.StageMax[v-2] = a.Vertices[k].MaxParallelism
		}
	}
}
