package sim

import (
	"fmt"
	"sort"
)

// Labels classifies a plan by the features it exercises, for sweep summaries and coverage
// checks: state kinds, key types and distributions, backends, step kinds, and for restarts the
// kind of rescale (up, down, same, to a non-divisor of the old parallelism, max parallelism
// changed or dropped, re-uid, setUidHash, allowNonRestoredState, claim). The result is sorted
// and each label appears once.
func Labels(p Plan) []string {
	set := map[string]bool{
		"flink-" + p.Version.String():    true,
		"key-" + p.Job.KeyType.String():  true,
		"dist-" + p.Job.KeyDist.String(): true,
		"backend-" + backendName(p.Job):  true,
		"offsets-" + offsetsName(p.Job):  true,
	}
	if p.Job.Broadcast {
		set["state-broadcast"] = true
	}
	if p.Job.RawKeyed {
		set["state-raw-keyed"] = true
	}
	if p.Job.Sink {
		set["chain-sink"] = true
	}
	dagLabels(set, p.Job)
	cur := p.Job
	for _, s := range p.Steps {
		switch s.Kind {
		case Checkpoint:
			if s.Abort {
				set["checkpoint-declined"] = true
			} else {
				set["checkpoint"] = true
			}
		case Restart:
			c := s.Change
			set["restart"] = true
			for name, pair := range map[string][2]int{"source": {cur.Source.Parallelism, c.Source.Parallelism}, "keyed": {cur.Keyed.Parallelism, c.Keyed.Parallelism}} {
				from, to := pair[0], pair[1]
				switch {
				case to > from:
					set["scale-up-"+name] = true
				case to < from:
					set["scale-down-"+name] = true
				default:
					set["scale-same-"+name] = true
				}
				if to != from && (to%from != 0 && from%to != 0) {
					set["rescale-non-divisor-"+name] = true
				}
			}
			if c.Keyed.MaxParallelism != cur.Keyed.MaxParallelism {
				if c.Keyed.MaxParallelism == 0 {
					set["max-parallelism-unconfigured"] = true
				} else {
					set["max-parallelism-changed"] = true
				}
			}
			if c.Keyed.UID != cur.Keyed.UID {
				set["re-uid"] = true
			}
			if c.Keyed.UIDHash != "" {
				set["uid-hash"] = true
			}
			if c.AllowNonRestoredState {
				set["allow-non-restored"] = true
			}
			if c.Claim {
				set["restore-claim"] = true
			} else {
				set["restore-no-claim"] = true
			}
			if c.DropSink {
				set["operator-removed"] = true
			}
			if c.AddSink {
				set["operator-added"] = true
			}
			stageChangeLabels(set, cur.Stages, c.Stages)
			dagLabels(set, Job{Source: c.Source, Keyed: c.Keyed, Stages: c.Stages})
			cur.Source, cur.Keyed, cur.Stages = c.Source, c.Keyed, c.Stages
		case Fail:
			set["fail"] = true
			if s.Vertex >= 2 {
				set["fail-stage"] = true
			}
		default:
			set[s.Kind.String()] = true
		}
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

func backendName(j Job) string {
	if j.Incremental {
		return "incremental"
	}
	return "full"
}

func offsetsName(j Job) string {
	if j.UnionOffsets {
		return "union"
	}
	return "split"
}

// dagLabels labels the job graph: vertex count, edge kinds, partition types and chain lengths
// of the stages.
func dagLabels(set map[string]bool, j Job) {
	set[fmt.Sprintf("vertices-%d", len(j.present()))] = true
	if !j.HasKeyed() {
		set["no-keyed-vertex"] = true
	}
	if len(j.Stages) == 0 {
		return
	}
	set["dag"] = true
	for _, st := range j.Stages {
		set["edge-"+st.Edge.String()] = true
		if st.Blocking {
			set["partition-blocking"] = true
		} else {
			set["partition-pipelined"] = true
		}
		set[fmt.Sprintf("stage-chain-%d", st.Chain)] = true
		if st.Keyed {
			set["state-keyed-stage"] = true
		}
		if st.Config.UID == "" {
			set["stage-auto-id"] = true
		}
	}
}

// stageChangeLabels labels what a restart changes about the stages (matched by position).
func stageChangeLabels(set map[string]bool, old, next []Stage) {
	switch {
	case len(next) > len(old):
		set["stage-added"] = true
	case len(next) < len(old):
		set["stage-removed"] = true
	}
	for k := range min(len(old), len(next)) {
		o, n := old[k].Config, next[k].Config
		switch {
		case n.Parallelism > o.Parallelism:
			set["scale-up-stage"] = true
		case n.Parallelism < o.Parallelism:
			set["scale-down-stage"] = true
		}
		if n.MaxParallelism != o.MaxParallelism {
			set["stage-max-parallelism-changed"] = true
		}
		if n.UID != o.UID {
			set["stage-re-uid"] = true
		}
		if next[k].Chain != old[k].Chain {
			set["stage-chain-changed"] = true
		}
	}
}
