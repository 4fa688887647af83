package model

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spaolacci/murmur3"
)

// TestMurmurHashAgainstMurmur3 cross-checks MurmurHash with an independent implementation of
// MurmurHash3_x86_32 (spaolacci/murmur3) plus Flink's sign rule, over random ints and the edges.
func TestMurmurHashAgainstMurmur3(t *testing.T) {
	n := 2_000_000
	if testing.Short() {
		n = 100_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var buf [4]byte
	check := func(v int32) {
		binary.LittleEndian.PutUint32(buf[:], uint32(v))
		want := int32(murmur3.Sum32WithSeed(buf[:], 0))
		switch {
		case want == math.MinInt32:
			want = 0
		case want < 0:
			want = -want
		}
		if got := MurmurHash(v); got != want {
			t.Fatalf("MurmurHash(%d) = %d, murmur3 + sign rule = %d", v, got, want)
		}
	}
	for _, v := range []int32{0, 1, -1, math.MaxInt32, math.MinInt32, -1035494534, -2089875627} {
		check(v)
	}
	for range n {
		check(int32(rng.Uint32()))
	}
}

func TestMurmurHashFacts(t *testing.T) {
	// SPEC §A: examples, and the two inputs whose hash is 0 (raw 0 and raw Integer.MIN_VALUE).
	for in, want := range map[int32]int32{0: 593689054, 1: 68075478, -1: 1982413648, 2: 1085422463, -1035494534: 0, -2089875627: 0} {
		if got := MurmurHash(in); got != want {
			t.Errorf("MurmurHash(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestJavaStringHash(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"Aa", 2112},
		{"BB", 2112},
		{"polygenelubricants", math.MinInt32},
		{"hello", 99162322},
		{"😀", 1772899},              // surrogate pair D83D DE00: 31*0xD83D + 0xDE00
		{"é", 233},                  // U+00E9, one code unit
		{"e\u0301", 101*31 + 0x301}, // not normalised
	} {
		if got := JavaStringHash(c.s); got != c.want {
			t.Errorf("JavaStringHash(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestJavaLongHash(t *testing.T) {
	for in, want := range map[int64]int32{0: 0, 1: 1, 4294967296: 1, -1: 0, math.MinInt64: math.MinInt32, math.MaxInt64: math.MinInt32} {
		if got := JavaLongHash(in); got != want {
			t.Errorf("JavaLongHash(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestJavaDoubleHashNaNsCollapse(t *testing.T) {
	quiet := JavaDoubleHash(math.NaN())
	other := JavaDoubleHash(math.Float64frombits(0x7ff0000000000001)) // a signalling NaN
	if quiet != other || quiet != 2146959360 {
		t.Errorf("NaN hashes %d and %d, want both 2146959360", quiet, other)
	}
	if JavaFloatHash(float32(math.NaN())) != 0x7fc00000 || JavaFloatHash(math.Float32frombits(0x7f800001)) != 0x7fc00000 {
		t.Error("float NaNs must collapse to 0x7fc00000")
	}
}

func TestComputeKeyGroupRangeForOperatorIndexPreconditions(t *testing.T) {
	// SPEC §K.1: suggested acceptance cases.
	if _, err := ComputeKeyGroupRangeForOperatorIndex(4, 5, 0); !errors.Is(err, ErrMaxParallelismBelowParallelism) {
		t.Errorf("M=4 p=5: err %v, want ErrMaxParallelismBelowParallelism", err)
	}
	_, err := ComputeKeyGroupRangeForOperatorIndex(40000, 5, 0)
	if !errors.Is(err, ErrParallelismOutOfBounds) || !strings.HasSuffix(err.Error(), "40000") {
		t.Errorf("M=40000: err %v, want ErrParallelismOutOfBounds ending in 40000", err)
	}
	var oob *ParallelismOutOfBoundsError
	if !errors.As(err, &oob) || oob.Parallelism != 40000 {
		t.Errorf("errors.As: %v", err)
	}
	for _, p := range []int{0, -1, 32769} {
		if _, err := ComputeKeyGroupRangeForOperatorIndex(128, p, 0); !errors.Is(err, ErrParallelismOutOfBounds) {
			t.Errorf("p=%d: err %v", p, err)
		}
	}
	// The operator index is not validated.
	if r, err := ComputeKeyGroupRangeForOperatorIndex(10, 3, 5); err != nil || r != (KeyGroupRange{17, 19}) {
		t.Errorf("range(10, 3, 5) = %v, %v; want [17,19]", r, err)
	}
	// SPEC §K.1 smoke values.
	if r, _ := ComputeKeyGroupRangeForOperatorIndex(10, 5, 3); r != (KeyGroupRange{6, 7}) {
		t.Errorf("range(10, 5, 3) = %v", r)
	}
	if got := AssignKeyToParallelOperator(JavaStringHash("hello"), 10, 5); got != 4 {
		t.Errorf(`assignKeyToParallelOperator("hello", 10, 5) = %d, want 4`, got)
	}
	if got := ComputeKeyGroupForKeyHash(123456789, 10); got != 9 {
		t.Errorf("computeKeyGroupForKeyHash(123456789, 10) = %d, want 9", got)
	}
}

// TestRangesTileAndInvert checks, for every M ≤ 300 and p ≤ M, that the ranges tile [0, M−1] in
// order and are the inverse of ComputeOperatorIndexForKeyGroup, with sizes differing by ≤ 1.
func TestRangesTileAndInvert(t *testing.T) {
	maxM := 300
	if testing.Short() {
		maxM = 64
	}
	for m := 1; m <= maxM; m++ {
		for p := 1; p <= m; p++ {
			next, lo, hi := 0, m, 0
			for i := range p {
				r, err := ComputeKeyGroupRangeForOperatorIndex(m, p, i)
				if err != nil {
					t.Fatalf("M=%d p=%d i=%d: %v", m, p, i, err)
				}
				if r.Start != next {
					t.Fatalf("M=%d p=%d i=%d: %v does not start at %d", m, p, i, r, next)
				}
				for kg := range r.All() {
					if ComputeOperatorIndexForKeyGroup(m, p, kg) != i {
						t.Fatalf("M=%d p=%d: key group %d in range %d but routed elsewhere", m, p, kg, i)
					}
				}
				next = r.End + 1
				lo, hi = min(lo, r.NumberOfKeyGroups()), max(hi, r.NumberOfKeyGroups())
			}
			if next != m || hi-lo > 1 {
				t.Fatalf("M=%d p=%d: ranges end at %d (want %d), sizes %d..%d", m, p, next-1, m-1, lo, hi)
			}
		}
	}
}

func TestKeyGroupRangeBasics(t *testing.T) {
	if _, err := KeyGroupRangeOf(-3, 2); !errors.Is(err, ErrInvalidKeyGroupRange) {
		t.Errorf("of(-3, 2): %v, want ErrInvalidKeyGroupRange", err)
	}
	if r, err := KeyGroupRangeOf(5, 3); err != nil || r != EmptyKeyGroupRange || r.NumberOfKeyGroups() != 0 {
		t.Errorf("of(5, 3) = %v, %v; want EMPTY", r, err)
	}
	r := KeyGroupRange{Start: 3, End: 7}
	if r.String() != "KeyGroupRange{startKeyGroup=3, endKeyGroup=7}" {
		t.Errorf("String() = %q", r.String())
	}
	if r.Intersection(EmptyKeyGroupRange) != EmptyKeyGroupRange || EmptyKeyGroupRange.Intersection(KeyGroupRange{0, 0}) != EmptyKeyGroupRange {
		t.Error("intersection with EMPTY must be EMPTY")
	}
	if id, err := r.KeyGroupID(5); err != nil || id != 8 { // Flink's check allows idx == size
		t.Errorf("KeyGroupID(5) = %d, %v; want 8 (one past the end, as Flink allows)", id, err)
	}
	if _, err := r.KeyGroupID(6); !errors.Is(err, ErrKeyGroupOutOfRange) {
		t.Errorf("KeyGroupID(6): %v", err)
	}
	o, _ := NewKeyGroupRangeOffsets(r, []int64{0, 1, 2, 3, 4})
	if _, err := o.Offset(8); !errors.Is(err, ErrKeyGroupOutOfRange) {
		t.Errorf("Offset(8): %v", err)
	}
	if _, err := NewKeyGroupRangeOffsets(r, []int64{1}); !errors.Is(err, ErrInvalidKeyGroupRange) {
		t.Errorf("offset length mismatch: %v", err)
	}
}

func TestDefaultMaxParallelismPlateaus(t *testing.T) {
	// SPEC §C.7 plateau boundaries, beyond the golden file's 2100.
	for _, c := range [][3]int{{1, 85, 128}, {86, 171, 256}, {172, 341, 512}, {342, 683, 1024}, {684, 1365, 2048},
		{1366, 2731, 4096}, {2732, 5461, 8192}, {5462, 10923, 16384}, {10924, 32768, 32768}} {
		for _, p := range []int{c[0], c[1]} {
			if got, err := ComputeDefaultMaxParallelism(p); err != nil || got != c[2] {
				t.Errorf("default max parallelism for %d = %d, %v; want %d", p, got, err, c[2])
			}
		}
	}
	if _, err := ComputeDefaultMaxParallelism(32769); !errors.Is(err, ErrParallelismOutOfBounds) {
		t.Errorf("32769: %v", err)
	}
}

// sink keeps benchmark results alive; benchM and benchP are variables so that neither benchmark
// can constant-fold the modulo and division.
var (
	sink   int
	benchM = 128
	benchP = 7
)

// BenchmarkAssignKeyToParallelOperator routes 1024 key hashes with the model's function.
// Compare with BenchmarkAssignKeyHandInlined, measured side by side in the same run.
func BenchmarkAssignKeyToParallelOperator(b *testing.B) {
	hashes := benchHashes()
	m, p := benchM, benchP
	for b.Loop() {
		s := 0
		for _, h := range hashes {
			s += AssignKeyToParallelOperator(h, m, p)
		}
		sink = s
	}
}

// BenchmarkAssignKeyHandInlined is the baseline: murmur and the modulo written out by hand in
// the loop, with no function boundary.
func BenchmarkAssignKeyHandInlined(b *testing.B) {
	hashes := benchHashes()
	m, p := benchM, benchP
	for b.Loop() {
		s := 0
		for _, code := range hashes {
			k := uint32(code) * 0xcc9e2d51
			k = k<<15 | k>>17
			k *= 0x1b873593
			h := k<<13 | k>>19
			h = h*5 + 0xe6546b64
			h ^= 4
			h ^= h >> 16
			h *= 0x85ebca6b
			h ^= h >> 13
			h *= 0xc2b2ae35
			h ^= h >> 16
			v := int32(h)
			if v < 0 {
				if v == math.MinInt32 {
					v = 0
				} else {
					v = -v
				}
			}
			s += int(v) % m * p / m
		}
		sink = s
	}
}

func benchHashes() []int32 {
	rng := rand.New(rand.NewPCG(7, 7))
	h := make([]int32, 1024)
	for i := range h {
		h[i] = int32(rng.Uint32())
	}
	return h
}
