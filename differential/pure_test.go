package differential

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestKeyGroupsAgainstFlink: the key group and subtask of keys of every Java key type the model
// hashes, the model's against KeyGroupRangeAssignment's, on every version with sources.
func TestKeyGroupsAgainstFlink(t *testing.T) {
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(27, uint64(v)))
		for round := 0; round < 20; round++ {
			m := 1 + r.IntN(1<<15)
			p := 1 + r.IntN(min(m, 1000))
			type keyset struct {
				typ  string
				keys []any
				hash func(any) int32
			}
			sets := []keyset{
				{"int", nil, func(k any) int32 { return model.JavaIntHash(k.(int32)) }},
				{"long", nil, func(k any) int32 { return model.JavaLongHash(k.(int64)) }},
				{"string", nil, func(k any) int32 { return model.JavaStringHash(k.(string)) }},
				{"boolean", nil, func(k any) int32 { return model.JavaBooleanHash(k.(bool)) }},
				{"double", nil, func(k any) int32 { return model.JavaDoubleHash(k.(float64)) }},
			}
			for i := 0; i < 100; i++ {
				sets[0].keys = append(sets[0].keys, int32(r.Uint32()))
				sets[1].keys = append(sets[1].keys, int64(r.Uint64()))
				sets[2].keys = append(sets[2].keys, randomString(r))
				sets[3].keys = append(sets[3].keys, r.IntN(2) == 0)
				sets[4].keys = append(sets[4].keys, math.Float64frombits(r.Uint64()))
			}
			sets[0].keys = append(sets[0].keys, int32(0), int32(-1), int32(math.MinInt32), int32(math.MaxInt32))
			sets[1].keys = append(sets[1].keys, int64(math.MinInt64), int64(-1), int64(1)<<32)
			sets[2].keys = append(sets[2].keys, "", "ä", "日本", "\U0001F600")
			sets[4].keys = append(sets[4].keys, 0.0, math.Copysign(0, -1), math.NaN(), math.Inf(1))
			for _, s := range sets {
				if s.typ == "string" || s.typ == "boolean" {
					// JSON carries these as they are.
				}
				got, err := j.KeyGroups(s.typ, s.keys, m, p)
				if err != nil {
					t.Fatalf("%s: %v", v, err)
				}
				for i, k := range s.keys {
					h := s.hash(k)
					want := fmt.Sprint(h, model.ComputeKeyGroupForKeyHash(h, m), model.AssignKeyToParallelOperator(h, m, p))
					flink := fmt.Sprint(got[i].Hash, got[i].KeyGroup, got[i].OperatorIndex)
					if want != flink {
						t.Errorf("%s %s key %#v at max parallelism %d, parallelism %d: model (hash, key group, subtask) %s, Flink %s", v, s.typ, k, m, p, want, flink)
					}
				}
			}
		}
	}
}

func randomString(r *rand.Rand) string {
	n := r.IntN(12)
	rs := make([]rune, n)
	for i := range rs {
		switch r.IntN(4) {
		case 0:
			rs[i] = rune(0x20 + r.IntN(0x5f))
		case 1:
			rs[i] = rune(0xa0 + r.IntN(0x700))
		case 2:
			rs[i] = rune(0x4e00 + r.IntN(0x5000))
		default:
			rs[i] = rune(0x10000 + r.IntN(0x1000)) // a surrogate pair in UTF-16
		}
	}
	return string(rs)
}

// TestRangesAgainstFlink: every subtask's key-group range and the default max parallelism.
func TestRangesAgainstFlink(t *testing.T) {
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(28, uint64(v)))
		for round := 0; round < 300; round++ {
			m := 1 + r.IntN(1<<15)
			if round%3 == 0 {
				m = []int{1, 2, 128, 256, 4096, 32768}[r.IntN(6)]
			}
			p := 1 + r.IntN(min(m, 2000))
			def, ranges, err := j.Ranges(m, p)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			wantDef, err := model.ComputeDefaultMaxParallelism(p)
			if err != nil || wantDef != def {
				t.Errorf("%s: default max parallelism of %d: model %d (%v), Flink %d", v, p, wantDef, err, def)
			}
			for i, got := range ranges {
				want, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
				if err != nil || want != got {
					t.Fatalf("%s: range of subtask %d of %d at max parallelism %d: model %v (%v), Flink %v", v, i, p, m, want, err, got)
				}
			}
		}
	}
}

// TestMappersAgainstFlink: SubtaskStateMapper's new-to-old mapping, every mapper, parallelisms
// 1 to 12 each way.
func TestMappersAgainstFlink(t *testing.T) {
	for _, v := range versions(t) {
		j := jvm(t, v)
		for _, mp := range model.SubtaskStateMappers() {
			for o := 1; o <= 12; o++ {
				for n := 1; n <= 12; n++ {
					got, ferr := j.Mapper(mp, o, n)
					want, merr := mp.NewToOldSubtasksMapping(o, n)
					if (ferr != nil) != (merr != nil) {
						t.Errorf("%s %s %d→%d: model error %v, Flink error %v", v, mp, o, n, merr, ferr)
					}
					if ferr != nil || merr != nil {
						continue
					}
					if mp.IsAmbiguous() != got.Ambiguous || want.IsIdentity() != got.Identity {
						t.Errorf("%s %s %d→%d: model ambiguous %v identity %v, Flink %v %v", v, mp, o, n, mp.IsAmbiguous(), want.IsIdentity(), got.Ambiguous, got.Identity)
					}
					for i := 0; i < n; i++ {
						if w := want.MappedIndexes(i); !slices.Equal(w, got.Mappings[i]) && !(len(w) == 0 && len(got.Mappings[i]) == 0) {
							t.Errorf("%s %s %d→%d: new subtask %d reads model %v, Flink %v", v, mp, o, n, i, w, got.Mappings[i])
						}
					}
				}
			}
		}
	}
}
