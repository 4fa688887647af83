package oracle

import (
	"cmp"
	"fmt"
	"slices"
)

// This file is the oracle's view of in-flight data (unaligned checkpoints, FLIP-76): which
// records a checkpoint's barrier overtook on the keyBy edge, and whether a restore processed each
// of them exactly once, on the subtask that owns its key.

// InFlightPerSplit is the simulated backpressure: of the records a process step reading n records
// per source subtask reads from one split, the last InFlightPerSplit(n) (or all, when fewer) are
// still in flight on the keyBy edge when the step ends; the records in flight before the step are
// processed first (a channel is FIFO).
func InFlightPerSplit(n int) int { return 1 + n%3 }

// ProcessedAfter is, per split, the offset up to which the keyed vertex has processed the records
// after a process step of an unaligned job (n records per source subtask) moved the source from
// offsets before to after: every record of a split up to its InFlightPerSplit(n) last ones read
// in this step. The records of [ProcessedAfter[s], after[s]) are in flight.
func ProcessedAfter(n int, before, after map[int]int64) map[int]int64 {
	out := make(map[int]int64, len(after))
	hold := int64(InFlightPerSplit(n))
	for s, o := range after {
		read := o - before[s]
		out[s] = o - min(hold, max(read, 0))
	}
	return out
}

// InFlightRecord is one record of the input log: split, offset and key (in its display form).
type InFlightRecord struct {
	Split  int
	Offset int64
	Key    string
}

// Replayed is an in-flight record a restored subtask processed from its channel state.
type Replayed struct {
	InFlightRecord
	Subtask int
}

// CheckReplay checks a restore's replay of in-flight data against the records in flight at the
// restored checkpoint (want): each processed exactly once, by the subtask of parallelism p at max
// parallelism maxPar that owns its key (the oracle's own routing), none dropped, none added. It
// returns one line per problem, at most limit (all when limit ≤ 0), in a fixed order.
func CheckReplay(kt KeyType, maxPar, p int, want []InFlightRecord, got []Replayed, limit int) []string {
	var out []string
	add := func(format string, args ...any) {
		if limit <= 0 || len(out) < limit {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	byRecord := func(a, b InFlightRecord) int {
		return cmp.Or(cmp.Compare(a.Split, b.Split), cmp.Compare(a.Offset, b.Offset))
	}
	exp := slices.SortedFunc(slices.Values(want), byRecord)
	rep := slices.SortedFunc(slices.Values(got), func(a, b Replayed) int {
		return cmp.Or(byRecord(a.InFlightRecord, b.InFlightRecord), cmp.Compare(a.Subtask, b.Subtask))
	})
	i, k := 0, 0
	for i < len(exp) || k < len(rep) {
		switch {
		case k >= len(rep) || (i < len(exp) && byRecord(exp[i], rep[k].InFlightRecord) < 0):
			add("in-flight record %d@%d (key %q) was not processed after the restore (dropped)", exp[i].Split, exp[i].Offset, exp[i].Key)
			i++
		case i >= len(exp) || byRecord(exp[i], rep[k].InFlightRecord) > 0:
			add("subtask %d processed record %d@%d (key %q), which was not in flight at the checkpoint", rep[k].Subtask, rep[k].Split, rep[k].Offset, rep[k].Key)
			k++
		default:
			first := k
			for ; k < len(rep) && byRecord(exp[i], rep[k].InFlightRecord) == 0; k++ {
				r := rep[k]
				if r.Key != exp[i].Key {
					add("in-flight record %d@%d restored with key %q, want %q", r.Split, r.Offset, r.Key, exp[i].Key)
				}
				kg, owner, err := Route(kt, exp[i].Key, maxPar, p)
				switch {
				case err != nil:
					add("in-flight record %d@%d: the oracle cannot route key %q: %v", r.Split, r.Offset, exp[i].Key, err)
				case owner != r.Subtask:
					add("in-flight record %d@%d (key %q, key group %d of %d) processed by subtask %d, its key's owner is %d", r.Split, r.Offset, exp[i].Key, kg, maxPar, r.Subtask, owner)
				}
			}
			if n := k - first; n > 1 {
				add("in-flight record %d@%d (key %q) processed %d times after the restore (duplicated)", exp[i].Split, exp[i].Offset, exp[i].Key, n)
			}
			i++
		}
	}
	return out
}
