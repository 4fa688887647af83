package sim

import "sort"

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
			cur.Source, cur.Keyed = c.Source, c.Keyed
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
