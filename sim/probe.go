package sim

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// MinWideProbe is the smallest parallelism whose default max parallelism is capped by the
// 32,768 bound: roundUpToPowerOfTwo(p + p/2) is 65,536 from p = 21,846 on.
const MinWideProbe = 21846

// checkKeyGroupProbe checks the model's key-group arithmetic at the job's KeyGroupProbe
// parallelism against the oracle's, without running that many subtasks: the default max
// parallelism (KeyGroupRangeAssignment.computeDefaultMaxParallelism, capped at 32,768), and, at
// that max parallelism and at the keyed vertex's configured one when it is at least the probe,
// the key-group ranges of the first, second, middle and last two subtasks, the owner of each
// range's ends, and the key group and owner of the job's first key and of the key of its type
// whose murmur hash is Integer.MIN_VALUE (rarekeys.go), hashed by the oracle. Max parallelism p
// itself (one key group a subtask) is checked too: it is no power of two, where a broken sign
// rule shows.
func (w *World) checkKeyGroupProbe(step int) {
	p := w.job.KeyGroupProbe
	if p <= 0 {
		return
	}
	want := oracle.DefaultMaxParallelism(p)
	got, err := model.ComputeDefaultMaxParallelism(p)
	if err != nil || got != want {
		w.violate(step, InvKeyOwner, fmt.Sprintf("default max parallelism at parallelism %d is %d (%v), want %d", p, got, err, want), "")
		return
	}
	ms := []int{want, p} // (max parallelism p: one key group a subtask, M not a power of two)
	if m := w.job.Keyed.MaxParallelism; m >= p && m != want && m != p {
		ms = append(ms, m)
	}
	for _, m := range ms {
		for _, i := range []int{0, 1, p / 2, p - 2, p - 1} {
			s, e := oracle.KeyGroupRange(m, p, i)
			r, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
			if err != nil || r.Start != s || r.End != e {
				w.violate(step, InvKeyOwner, fmt.Sprintf("key-group range of subtask %d of %d at max parallelism %d is %v (%v), want [%d,%d]", i, p, m, r, err, s, e), "")
				return
			}
			for _, kg := range []int{s, e} {
				if o := model.ComputeOperatorIndexForKeyGroup(m, p, kg); kg <= e && o != i {
					w.violate(step, InvKeyOwner, fmt.Sprintf("key group %d of %d at parallelism %d goes to subtask %d, want %d", kg, m, p, o, i), "")
					return
				}
			}
		}
		t := w.job.KeyType
		if t == 0 {
			t = KeyInt
		}
		first, _ := keyOf(t, w.job.KeyValues, 0)
		minHash, _ := minHashKey(t)
		for _, key := range []string{first, minHash} {
			h, err := oracle.HashCode(oracleKeyType(t), key)
			if err != nil {
				panic("sim: internal error: " + err.Error())
			}
			kg := oracle.KeyGroup(h, m)
			o := oracle.Owner(kg, m, p)
			if gotKG, gotO := model.ComputeKeyGroupForKeyHash(h, m), model.AssignKeyToParallelOperator(h, m, p); gotKG != kg || gotO != o {
				w.violate(step, InvKeyOwner, fmt.Sprintf("key %s (hashCode %d) at max parallelism %d, parallelism %d: key group %d on subtask %d, want %d on %d", key, h, m, p, gotKG, gotO, kg, o), "")
				return
			}
		}
	}
}
