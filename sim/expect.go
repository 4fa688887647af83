package sim

import (
	"github.com/restoresim/restoresim/model"
)

// jobShape is what the oracle records of a job at a snapshot: enough to predict, without the
// model, whether a restore into another job must be accepted.
type jobShape struct {
	sourceUID, keyedUID string
	sink                bool
	srcPar, keyedPar    int
	srcMax, keyedMax    int // max parallelism in force
	stages              []stageShape
}

// stageShape is a stage at a snapshot: its operators' uids, its max parallelism, and whether it
// is keyed (its operator states then have subtask entries, the head's holding keyed state).
type stageShape struct {
	uids  []string
	max   int
	keyed bool
}

// expectation is the oracle's verdict on a restore, from Flink's documented rules (SPEC §F–§G
// as Flink 1.18 intends them): either accepted (with the keyed vertex's max parallelism and
// whether the keyed state is restored), or refused for a reason (an errors.Is target).
type expectation struct {
	accept     bool
	reason     error // when refused
	keyedMax   int   // when accepted
	keyedState bool  // keyed operator's state restored (else dropped)
	stageMax   []int // when accepted: each stage's max parallelism
	viaUIDHash bool  // the keyed state is matched only through setUidHash
	// staleUIDHash: the keyed state is matched by the generated ID while a setUidHash points
	// elsewhere (1.10.1 then ignores the state: FLINK-13973).
	staleUIDHash bool
	refusedWhen  string
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
	case e.viaUIDHash:
		return KnownFLINK16638
	case e.staleUIDHash:
		return KnownFLINK13973
	}
	return ""
}

// expectRestore predicts the outcome of restoring a snapshot of shape old into job j.
func expectRestore(old jobShape, j Job, allowNonRestored bool) expectation {
	stored := model.OperatorIDFromUID(old.keyedUID)
	gen := model.OperatorIDFromUID(j.Keyed.UID)
	byGen := gen == stored
	byHash := j.Keyed.UIDHash != "" && j.Keyed.UIDHash == stored.String()
	keyedMatched := byGen || byHash
	keyedMax, keyedConfigured := configuredMaxPar(j.Keyed)
	flags := expectation{viaUIDHash: byHash && !byGen, staleUIDHash: byGen && j.Keyed.UIDHash != "" && !byHash}
	refuse := func(reason error, when string) expectation {
		e := flags
		e.reason, e.refusedWhen = reason, when
		return e
	}
	if keyedConfigured && keyedMax < j.Keyed.Parallelism {
		return refuse(model.ErrMaxParallelismBelowParallelism, "configured max parallelism below parallelism")
	}

	// Loading (§G), operators in metadata order: source, keyed, sink.
	// The source is always matched; its max parallelism is never configured, so it is adopted.
	if keyedMatched {
		if keyedConfigured && keyedMax != old.keyedMax {
			return refuse(model.ErrMaxParallelismMismatch, "keyed max parallelism changed")
		}
	} else if !allowNonRestored {
		return refuse(model.ErrNonRestoredState, "keyed state has no operator")
	}
	sinkMatched := old.sink && j.Sink
	if sinkMatched && keyedConfigured && keyedMax != old.keyedMax {
		return refuse(model.ErrMaxParallelismMismatch, "sink max parallelism changed")
	}
	// Stages' operators (after the sink in the metadata): a state with an operator must agree on
	// max parallelism unless the vertex may adopt the stored one (not configured); one without is
	// refused if it holds state (a keyed stage's head) and allowNonRestoredState is off, else
	// skipped (a stateless operator's, or a chained operator's empty entries).
	newStage := map[string]int{}
	for k, st := range j.Stages {
		for _, uid := range st.OperatorUIDs() {
			newStage[uid] = k
		}
	}
	matched := make([][]stageShape, len(j.Stages)) // per new stage, the stored stages it matches
	for _, os := range old.stages {
		for u, uid := range os.uids {
			k, ok := newStage[uid]
			if !ok {
				if os.keyed && u == 0 && !allowNonRestored {
					return refuse(model.ErrNonRestoredState, "keyed stage state has no operator")
				}
				continue
			}
			if m, configured := configuredMaxPar(j.Stages[k].Config); configured && m != os.max {
				return refuse(model.ErrMaxParallelismMismatch, "stage max parallelism changed")
			}
			matched[k] = append(matched[k], os)
		}
	}
	// Assignment (§F): parallelism preconditions, vertex by vertex.
	if old.srcMax < j.Source.Parallelism {
		return refuse(model.ErrMaxParallelismBelowNewParallelism, "source parallelism above its max parallelism")
	}
	if (keyedMatched || sinkMatched) && old.keyedMax < j.Keyed.Parallelism {
		return refuse(model.ErrMaxParallelismBelowNewParallelism, "keyed parallelism above its max parallelism")
	}
	// A stage vertex is repartitioned (and its preconditions checked, its max parallelism adopted)
	// only when one of its operator states has a subtask entry, i.e. comes from a keyed stage;
	// never for stateless operators (SPEC §F.1 step 3, §F.2).
	stageMax := make([]int, len(j.Stages))
	for k, st := range j.Stages {
		stageMax[k], _ = configuredMaxPar(st.Config)
		for _, os := range matched[k] {
			if !os.keyed {
				continue
			}
			if os.max < st.Config.Parallelism {
				return refuse(model.ErrMaxParallelismBelowNewParallelism, "stage parallelism above its max parallelism")
			}
			stageMax[k] = os.max
		}
	}
	e := expectation{accept: true, keyedMax: keyedMax, keyedState: keyedMatched, viaUIDHash: byHash && !byGen,
		staleUIDHash: byGen && j.Keyed.UIDHash != "" && !byHash}
	if keyedMatched || sinkMatched {
		e.keyedMax = old.keyedMax // adopted (or equal when configured)
	}
	e.stageMax = stageMax
	return e
}
