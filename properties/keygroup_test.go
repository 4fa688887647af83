package properties

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/spaolacci/murmur3"
	"pgregory.net/rapid"
)

// TestKeyGroupPartition: for any (M, p), the ranges of subtasks 0..p−1 partition 0..M−1 in order
// and contiguously, sizes differ by at most 1, every key group is contained in exactly one range,
// and kg ∈ range(i) ⇔ ComputeOperatorIndexForKeyGroup(M, p, kg) = i.
func TestKeyGroupPartition(t *testing.T) {
	cov := newCoverage(t)
	cov.require("M-mod-p-nonzero", 0.30)
	cov.require("p-equals-1", 0.02)
	cov.require("p-above-1", 0.50)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		m := drawMaxParallelism(t, "M")
		p := drawParallelism(t, m, "p")
		cov.labelIf(m%p != 0, "M-mod-p-nonzero")
		cov.labelIf(p == 1, "p-equals-1")
		cov.labelIf(p > 1, "p-above-1")
		next, minSize, maxSize := 0, math.MaxInt, 0
		ranges := make([]model.KeyGroupRange, p)
		for i := range p {
			r := mustRange(t, m, p, i)
			ranges[i] = r
			if r.Start != next {
				t.Fatalf("M=%d p=%d: range %d = %v starts at %d, want %d (contiguous, in order)", m, p, i, r, r.Start, next)
			}
			if ws, we := rangeOf(m, p, i); r.Start != ws || r.End != we {
				t.Fatalf("M=%d p=%d: range %d = %v, want [%d, %d]", m, p, i, r, ws, we)
			}
			next = r.End + 1
			minSize, maxSize = min(minSize, r.NumberOfKeyGroups()), max(maxSize, r.NumberOfKeyGroups())
		}
		if next != m {
			t.Fatalf("M=%d p=%d: ranges end at %d, want %d", m, p, next-1, m-1)
		}
		if maxSize-minSize > 1 {
			t.Fatalf("M=%d p=%d: range sizes %d..%d differ by more than 1", m, p, minSize, maxSize)
		}
		// Every key group in exactly one range, and Contains agrees with the index formula.
		// For large M, check every boundary and a sample.
		check := func(kg int) {
			want := model.ComputeOperatorIndexForKeyGroup(m, p, kg)
			if o := ownerOf(kg, m, p); o != want {
				t.Fatalf("M=%d p=%d: ComputeOperatorIndexForKeyGroup(kg=%d) = %d, the ranges give %d", m, p, kg, want, o)
			}
			n := 0
			for i, r := range ranges {
				if r.Contains(kg) {
					n++
					if i != want {
						t.Fatalf("M=%d p=%d: key group %d ∈ range(%d) = %v, but its operator index is %d", m, p, kg, i, r, want)
					}
				}
			}
			if n != 1 {
				t.Fatalf("M=%d p=%d: key group %d is in %d ranges, want exactly 1", m, p, kg, n)
			}
		}
		if m*p <= 1<<16 {
			for kg := range m {
				check(kg)
			}
		} else {
			for k := 0; k < 16; k++ { // the first and last ranges and a sample in between
				for _, i := range []int{k, p - 1 - k, rapid.IntRange(0, p-1).Draw(t, "subtask")} {
					if i >= 0 && i < p {
						check(ranges[i].Start)
						check(ranges[i].End)
					}
				}
			}
			check(rapid.IntRange(0, m-1).Draw(t, "kg"))
		}
	})
}

// oracleMurmur is the reference: spaolacci/murmur3 over the little-endian int, then Flink's sign
// rule (negative → absolute value, Integer.MIN_VALUE → 0).
func oracleMurmur(code int32) int32 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(code))
	h := int32(murmur3.Sum32WithSeed(b[:], 0))
	switch {
	case h == math.MinInt32:
		return 0
	case h < 0:
		return -h
	}
	return h
}

// TestMurmurHash: MurmurHash equals spaolacci/murmur3 plus Flink's sign rule, and the key group
// of a key hash is that value mod M, its subtask the owner of that key group.
func TestMurmurHash(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		code := rapid.Int32().Draw(t, "hashCode")
		want := oracleMurmur(code)
		if got := model.MurmurHash(code); got != want {
			t.Fatalf("MurmurHash(%d) = %d, want %d", code, got, want)
		}
		m := drawMaxParallelism(t, "M")
		p := drawParallelism(t, m, "p")
		kg := int(want) % m
		if got := model.ComputeKeyGroupForKeyHash(code, m); got != kg {
			t.Fatalf("ComputeKeyGroupForKeyHash(%d, %d) = %d, want murmur %% M = %d", code, m, got, kg)
		}
		if got, o := model.AssignKeyToParallelOperator(code, m, p), ownerOf(kg, m, p); got != o {
			t.Fatalf("AssignKeyToParallelOperator(%d, %d, %d) = %d, want the owner of key group %d: %d", code, m, p, got, kg, o)
		}
	})
	// Edge vectors: −2089875627 is the one int whose MurmurHash3 is Integer.MIN_VALUE (the
	// 32-bit hash of a 4-byte input is a bijection), which the sign rule maps to 0.
	for _, c := range []int32{0, 1, -1, 42, math.MaxInt32, math.MinInt32, -2089875627} {
		if got, want := model.MurmurHash(c), oracleMurmur(c); got != want {
			t.Errorf("MurmurHash(%d) = %d, want %d", c, got, want)
		}
	}
}

// TestDefaultMaxParallelism: within [128, 32768], a power of two, ≥ p for p ≤ 32768 (hence
// ≥ the parallelism up to the upper bound), and at least 1.5·p where the bound allows.
func TestDefaultMaxParallelism(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.OneOf(rapid.IntRange(1, 200), rapid.IntRange(1, model.UpperBoundMaxParallelism)).Draw(t, "p")
		m, err := model.ComputeDefaultMaxParallelism(p)
		if err != nil {
			t.Fatalf("ComputeDefaultMaxParallelism(%d): %v", p, err)
		}
		if m < model.DefaultLowerBoundMaxParallelism || m > model.UpperBoundMaxParallelism {
			t.Fatalf("ComputeDefaultMaxParallelism(%d) = %d, outside [128, 32768]", p, m)
		}
		if m&(m-1) != 0 {
			t.Fatalf("ComputeDefaultMaxParallelism(%d) = %d, not a power of two", p, m)
		}
		if m < p {
			t.Fatalf("ComputeDefaultMaxParallelism(%d) = %d, below the parallelism", p, m)
		}
		if want := min(model.UpperBoundMaxParallelism, p+p/2); m < want {
			t.Fatalf("ComputeDefaultMaxParallelism(%d) = %d, below min(p + p/2, 32768) = %d", p, m, want)
		}
	})
	for _, p := range []int{0, -1, model.UpperBoundMaxParallelism + 1} {
		if _, err := model.ComputeDefaultMaxParallelism(p); err == nil {
			t.Errorf("ComputeDefaultMaxParallelism(%d) accepted an out-of-bounds parallelism", p)
		}
	}
}

func drawKeyGroupRange(t *rapid.T, label string) model.KeyGroupRange {
	if rapid.IntRange(0, 9).Draw(t, label+"-empty") == 0 {
		return model.EmptyKeyGroupRange
	}
	s := rapid.IntRange(0, 200).Draw(t, label+"-start")
	n := rapid.IntRange(1, 200).Draw(t, label+"-size")
	r, err := model.NewKeyGroupRange(s, s+n-1)
	if err != nil {
		t.Fatalf("NewKeyGroupRange(%d, %d): %v", s, s+n-1, err)
	}
	return r
}

// members lists the key groups a range contains, by Contains over 0..400.
func members(r model.KeyGroupRange) map[int]bool {
	out := map[int]bool{}
	for kg := 0; kg <= 400; kg++ {
		if r.Contains(kg) {
			out[kg] = true
		}
	}
	return out
}

// TestKeyGroupRangeAlgebra: intersection is commutative, associative and contained in both
// sides; membership follows Start..End inclusive; NumberOfKeyGroups counts the members.
func TestKeyGroupRangeAlgebra(t *testing.T) {
	cov := newCoverage(t)
	cov.require("overlapping", 0.2)
	cov.require("disjoint", 0.1)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		a, b, c := drawKeyGroupRange(t, "a"), drawKeyGroupRange(t, "b"), drawKeyGroupRange(t, "c")
		ab := a.Intersection(b)
		cov.labelIf(!ab.IsEmpty(), "overlapping")
		cov.labelIf(ab.IsEmpty() && !a.IsEmpty() && !b.IsEmpty(), "disjoint")
		if ba := b.Intersection(a); ab != ba {
			t.Fatalf("%v ∩ %v = %v but %v ∩ %v = %v", a, b, ab, b, a, ba)
		}
		if l, r := ab.Intersection(c), a.Intersection(b.Intersection(c)); l != r {
			t.Fatalf("(a∩b)∩c = %v, a∩(b∩c) = %v for a=%v b=%v c=%v", l, r, a, b, c)
		}
		ma, mb, mab := members(a), members(b), members(ab)
		for kg := range mab {
			if !ma[kg] || !mb[kg] {
				t.Fatalf("key group %d ∈ %v ∩ %v = %v but not in both sides", kg, a, b, ab)
			}
		}
		for kg := range ma {
			if mb[kg] && !mab[kg] {
				t.Fatalf("key group %d in %v and %v but not in their intersection %v", kg, a, b, ab)
			}
		}
		for _, r := range []model.KeyGroupRange{a, b, ab} {
			m := members(r)
			if len(m) != r.NumberOfKeyGroups() {
				t.Fatalf("%v contains %d key groups, NumberOfKeyGroups = %d", r, len(m), r.NumberOfKeyGroups())
			}
			if !r.IsEmpty() && (!m[r.Start] || !m[r.End] || m[r.Start-1] || m[r.End+1]) {
				t.Fatalf("%v: membership is not Start..End inclusive", r)
			}
			n := 0
			for kg := range r.All() {
				if !m[kg] {
					t.Fatalf("%v.All() yields %d, which it does not contain", r, kg)
				}
				n++
			}
			if n != len(m) {
				t.Fatalf("%v.All() yields %d key groups, want %d", r, n, len(m))
			}
		}
	})
}

// TestOffsetsFollowKeyGroups: intersecting KeyGroupRangeOffsets keeps each key group's offset.
func TestOffsetsFollowKeyGroups(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawKeyGroupRange(t, "range")
		if r.IsEmpty() {
			r = model.KeyGroupRange{Start: 3, End: 9}
		}
		offs := make([]int64, r.NumberOfKeyGroups())
		for i := range offs {
			offs[i] = int64(1000*(r.Start+i) + 7)
		}
		o, err := model.NewKeyGroupRangeOffsets(r, offs)
		if err != nil {
			t.Fatalf("NewKeyGroupRangeOffsets: %v", err)
		}
		cut := drawKeyGroupRange(t, "cut")
		in := o.Intersection(cut)
		if in.Range != r.Intersection(cut) {
			t.Fatalf("offsets of %v cut to %v have range %v, want %v", r, cut, in.Range, r.Intersection(cut))
		}
		if len(in.Offsets) != in.Range.NumberOfKeyGroups() {
			t.Fatalf("cut offsets: %d offsets for %d key groups", len(in.Offsets), in.Range.NumberOfKeyGroups())
		}
		for kg := range in.Range.All() {
			got, err := in.Offset(kg)
			if err != nil || got != int64(1000*kg+7) {
				t.Fatalf("offset of key group %d after cutting %v to %v = %d (%v), want %d", kg, r, cut, got, err, 1000*kg+7)
			}
		}
	})
}
