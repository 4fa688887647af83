package sim

import (
	"fmt"
	"slices"
	"sort"

	"github.com/restoresim/restoresim/model"
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
	jobFeatureLabels(set, p.Job)
	cur := p.Job
	for _, s := range p.Steps {
		switch s.Kind {
		case Resume:
			set["resume"] = true
			set[modeLabel(s.Mode)] = true
		case Rescale:
			set["rescale-in-place"] = true
			if p.Job.LocalRecovery { // local copies kept across the rescale (localrescale.go)
				set["rescale-in-place-local"] = true
			}
			if p.Job.Incremental {
				set["rescale-in-place-incremental"] = true
			}
			for v, n := range s.Parallelism {
				if v >= cur.NumVertices() || n == 0 || (v == 1 && !cur.HasKeyed()) {
					continue
				}
				if v == 1 && n != cur.Keyed.Parallelism {
					set["rescale-in-place-keyed"] = true
				}
				switch v {
				case 0:
					cur.Source.Parallelism = n
				case 1:
					cur.Keyed.Parallelism = n
				default:
					cur.Stages = slices.Clone(cur.Stages)
					cur.Stages[v-2].Config.Parallelism = n
				}
			}
			parallelismLabels(set, cur)
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
			set[modeLabel(c.Mode)] = true
			if c.DropSink {
				set["operator-removed"] = true
			}
			if c.AddSink {
				set["operator-added"] = true
			}
			stageChangeLabels(set, cur.Stages, c.Stages)
			dagLabels(set, Job{Source: c.Source, Keyed: c.Keyed, Stages: c.Stages})
			parallelismLabels(set, Job{Source: c.Source, Keyed: c.Keyed, Stages: c.Stages})
			cur.Source, cur.Keyed, cur.Stages = c.Source, c.Keyed, c.Stages
		case Autoscale:
			// autoscale, and what it scales: autoscale-source (autoscale-source-partitions when it
			// knows the partitions), autoscale-keyed, autoscale-stage; autoscale-mode when a mode
			// is configured.
			set["autoscale"] = true
			if p.Job.LocalRecovery {
				set["rescale-in-place-local"] = true
			}
			switch {
			case s.Vertex == 0:
				set["autoscale-source"] = true
				if s.Autoscaler.Partitions > 0 {
					set["autoscale-source-partitions"] = true
				}
			case s.Vertex == 1:
				set["autoscale-keyed"] = true
			default:
				set["autoscale-stage"] = true
			}
			if s.Autoscaler.Mode != 0 {
				set["autoscale-mode"] = true
			}
		case Fail:
			set["fail"] = true
			if s.Vertex >= 2 {
				set["fail-stage"] = true
			}
		default:
			set[s.Kind.String()] = true
		}
	}
	// Unaligned checkpoints (not on 1.10.1, which takes aligned ones), and their in-flight data
	// rescaled by an in-place rescale of the keyed vertex (a restart's savepoint is aligned).
	if p.Job.Unaligned && p.Job.HasKeyed() && p.Version != model.Flink1101 {
		set["unaligned"] = true
		if set["rescale-in-place-keyed"] {
			set["unaligned-rescale"] = true
		}
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// jobFeatureLabels labels the job line's key values, source state names and sparse snapshots:
// keys-extreme; keys-min-hash (key index 0 is the key whose murmur hash is Integer.MIN_VALUE);
// key-group-probe-wide (the key-group probe above 21,845); op-state-split-names and op-state-union-names when the source keeps splits in
// several SPLIT_DISTRIBUTE (UNION) states; sparse, and sparse-idle-source when some source subtask
// holds no split (its snapshot then has no entry for it).
func jobFeatureLabels(set map[string]bool, j Job) {
	if j.KeyValues == ExtremeKeys {
		set["keys-extreme"] = true
	}
	if j.KeyValues == MinHashKeys {
		set["keys-min-hash"] = true
	}
	if j.KeyGroupProbe > 0 {
		set["key-group-probe-wide"] = true
	}
	split, union := 0, 0
	for k := range min(j.Splits, j.numSourceStates()) {
		if _, mode := j.sourceState(k); mode == model.Union {
			union++
		} else {
			split++
		}
	}
	if split > 1 {
		set["op-state-split-names"] = true
	}
	if union > 1 {
		set["op-state-union-names"] = true
	}
	if j.Sparse {
		set["sparse"] = true
		if j.Source.Parallelism > j.Splits {
			set["sparse-idle-source"] = true
		}
	}
	parallelismLabels(set, j)
}

// parallelismLabels labels wide vertices: parallelism-wide (some vertex at parallelism 86 or
// more), parallelism-above-512, max-parallelism-default-above-128 (a vertex of parallelism 86 or
// more without a configured max parallelism: Flink's default then exceeds 128),
// max-parallelism-non-power-of-two and max-parallelism-large (configured, 4,096 or more).
func parallelismLabels(set map[string]bool, j Job) {
	for _, v := range j.present() {
		c := j.vertexConfig(v)
		if c.Parallelism >= WideParallelism {
			set["parallelism-wide"] = true
			if c.MaxParallelism == 0 {
				set["max-parallelism-default-above-128"] = true
			}
		}
		if c.Parallelism > 512 {
			set["parallelism-above-512"] = true
		}
		if m := c.MaxParallelism; m > 0 {
			if m&(m-1) != 0 {
				set["max-parallelism-non-power-of-two"] = true
			}
			if m >= 4096 {
				set["max-parallelism-large"] = true
			}
		}
	}
}

// modeLabel labels a restore mode: restore-claim, restore-no-claim, restore-legacy.
func modeLabel(m model.RestoreMode) string {
	switch m {
	case model.Claim:
		return "restore-claim"
	case model.Legacy:
		return "restore-legacy"
	}
	return "restore-no-claim"
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
