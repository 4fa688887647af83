package plots

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
)

// Skew is the key-group balance of one (max parallelism M, parallelism p) pair under Flink's
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: every subtask owns ⌊M/p⌋ or
// ⌈M/p⌉ key groups, and exactly M mod p subtasks own the larger number.
type Skew struct {
	MaxParallelism int // M, the number of key groups
	Parallelism    int // p, the number of subtasks
	MinKeyGroups   int // the fewest key groups any subtask owns (⌊M/p⌋)
	MaxKeyGroups   int // the most key groups any subtask owns (⌈M/p⌉)
	SubtasksAtMax  int // how many subtasks own MaxKeyGroups (M mod p, or p when p divides M)
	// MaxOverMean is MaxKeyGroups / (M/p): how much more than its fair share the most loaded
	// subtask carries. 1 means perfectly balanced; it is always below 2.
	MaxOverMean float64
}

// MeanKeyGroups is M/p, the key groups a subtask would own if they divided evenly.
func (s Skew) MeanKeyGroups() float64 {
	return float64(s.MaxParallelism) / float64(s.Parallelism)
}

// checkPair applies Flink's preconditions of computeKeyGroupRangeForOperatorIndex: both values in
// 1..32768 and maxParallelism ≥ parallelism.
func checkPair(maxParallelism, parallelism int) error {
	if err := model.CheckParallelismPreconditions(maxParallelism); err != nil {
		return fmt.Errorf("max parallelism %d is out of bounds (want 1..%d): %w", maxParallelism, model.UpperBoundMaxParallelism, err)
	}
	if err := model.CheckParallelismPreconditions(parallelism); err != nil {
		return fmt.Errorf("parallelism %d is out of bounds (want 1..%d): %w", parallelism, model.UpperBoundMaxParallelism, err)
	}
	if maxParallelism < parallelism {
		return &model.MaxParallelismBelowParallelismError{MaxParallelism: maxParallelism, Parallelism: parallelism}
	}
	return nil
}

// KeyGroupSkew returns the key-group balance of M = maxParallelism key groups over
// p = parallelism subtasks, in O(1). It is exact: the ceiling formula Flink uses gives each
// subtask ⌈(i+1)M/p⌉ − ⌈iM/p⌉ key groups, which is ⌊M/p⌋ or ⌈M/p⌉, and since the sizes sum to M,
// M mod p of them are the larger. Both values must be in 1..32768 with M ≥ p (errors match
// model.ErrParallelismOutOfBounds and model.ErrMaxParallelismBelowParallelism).
func KeyGroupSkew(maxParallelism, parallelism int) (Skew, error) {
	if err := checkPair(maxParallelism, parallelism); err != nil {
		return Skew{}, err
	}
	return keyGroupSkew(maxParallelism, parallelism), nil
}

// keyGroupSkew is KeyGroupSkew without the checks.
func keyGroupSkew(m, p int) Skew {
	q, r := m/p, m%p
	s := Skew{MaxParallelism: m, Parallelism: p, MinKeyGroups: q, MaxKeyGroups: q, SubtasksAtMax: p, MaxOverMean: 1}
	if r != 0 {
		s.MaxKeyGroups = q + 1
		s.SubtasksAtMax = r
		// (q+1)·p ≤ M+p ≤ 65536: both operands are exact, so the quotient is correctly rounded.
		s.MaxOverMean = float64((q+1)*p) / float64(m)
	}
	return s
}

// SkewSummary condenses the skews of one max parallelism (or of Flink's default max parallelism
// of each parallelism) over several parallelisms: what 'simulate skew' prints per series and
// what Advise ranks candidates by.
type SkewSummary struct {
	// Worst is the point with the highest MaxOverMean (the first of equal ones).
	Worst Skew
	// Balanced counts the points with MaxOverMean exactly 1 (the parallelism divides M).
	Balanced int
	// MeanMaxOverMean is the average MaxOverMean of the points.
	MeanMaxOverMean float64
}

// SummarizeSkew summarizes points, taken in order; it returns the zero SkewSummary for none.
func SummarizeSkew(points []Skew) SkewSummary {
	var s SkewSummary
	if len(points) == 0 {
		return s
	}
	sum := 0.0
	for i, pt := range points {
		sum += pt.MaxOverMean
		if pt.MaxOverMean == 1 {
			s.Balanced++
		}
		if i == 0 || pt.MaxOverMean > s.Worst.MaxOverMean {
			s.Worst = pt
		}
	}
	s.MeanMaxOverMean = sum / float64(len(points))
	return s
}

// KeyGroupSkews returns the skew of every pair (M, p) with p ≤ M, for M in maxParallelisms and p
// in parallelisms (both ascending, without duplicates; pairs with p > M are skipped, as Flink
// cannot run them): one series per M with at least one pair, labelled "M=<M>", then, with
// withDefault, the series "Flink default M" pairing each p with Flink's default max
// parallelism for p (model.ComputeDefaultMaxParallelism). Values must be in 1..32768.
func KeyGroupSkews(maxParallelisms []int, withDefault bool, parallelisms []int) ([]SkewSeries, error) {
	var series []SkewSeries
	for _, m := range maxParallelisms {
		s := SkewSeries{Label: "M=" + strconv.Itoa(m), MaxParallelism: m}
		for _, p := range parallelisms {
			if p > m {
				break
			}
			sk, err := KeyGroupSkew(m, p)
			if err != nil {
				return nil, err
			}
			s.Points = append(s.Points, sk)
		}
		if len(s.Points) > 0 {
			series = append(series, s)
		}
	}
	if withDefault {
		s := SkewSeries{Label: "Flink default M"}
		for _, p := range parallelisms {
			m, err := model.ComputeDefaultMaxParallelism(p)
			if err != nil {
				return nil, fmt.Errorf("parallelism %d: %w", p, err)
			}
			sk, err := KeyGroupSkew(m, p)
			if err != nil {
				return nil, err
			}
			s.Points = append(s.Points, sk)
		}
		series = append(series, s)
	}
	return series, nil
}

// CountSkewPairs is the number of points KeyGroupSkews returns for the same arguments (the
// pairs with p ≤ M, plus every p with withDefault), without computing any: a caller can bound
// its output first. Both lists ascend.
func CountSkewPairs(maxParallelisms []int, withDefault bool, parallelisms []int) int {
	n := 0
	for _, m := range maxParallelisms {
		n += sort.SearchInts(parallelisms, m+1) // parallelisms ascend: the p ≤ m
	}
	if withDefault {
		n += len(parallelisms)
	}
	return n
}

// Moved is the share of keyed state that changes subtask when a job with max parallelism M is
// rescaled from one parallelism to another, counted in key groups (the unit Flink moves).
type Moved struct {
	MaxParallelism int
	From, To       int
	KeyGroupsMoved int     // key groups whose owning subtask index differs after the rescale
	Fraction       float64 // KeyGroupsMoved / MaxParallelism
}

// MovedFraction counts the key groups kg in 0..M−1 whose subtask kg·from/M
// (KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup) differs from kg·to/M. A key group
// that stays at the same subtask index needs no transfer (with local recovery it is not even
// downloaded); every other one is read by a different subtask. If state is spread evenly over
// key groups, Fraction is the share of state that moves. Both parallelisms must be in
// 1..32768 and at most M.
//
// It takes O(min(from, to)) steps, not O(M): a key group stays exactly when it lies in the
// range of the same subtask index i before and after, so the count of those that stay is the
// sum over i < min(from, to) of the overlap of subtask i's two ranges (each from
// computeKeyGroupRangeForOperatorIndex, which agrees with computeOperatorIndexForKeyGroup).
func MovedFraction(maxParallelism, from, to int) (Moved, error) {
	if err := checkPair(maxParallelism, from); err != nil {
		return Moved{}, err
	}
	if err := checkPair(maxParallelism, to); err != nil {
		return Moved{}, err
	}
	m := maxParallelism
	// start is ⌈i·M/p⌉, the first key group of subtask i; a and b are subtask i's before and after.
	start := func(p, i int) int { return (i*m + p - 1) / p }
	stay, a, b := 0, 0, 0
	for i := range min(from, to) {
		a1, b1 := start(from, i+1), start(to, i+1)
		if lo, hi := max(a, b), min(a1, b1); hi > lo {
			stay += hi - lo
		}
		a, b = a1, b1
	}
	n := m - stay
	return Moved{MaxParallelism: m, From: from, To: to, KeyGroupsMoved: n, Fraction: float64(n) / float64(m)}, nil
}

// CountRescales returns, without computing any, how many rescales (M, to) with from, to ≤ M
// the lists give (the rows MovedFractions yields), the steps MovedFraction takes over them (the
// sum of min(from, to)) and how many M have at least one. maxParallelisms and tos ascend.
func CountRescales(maxParallelisms []int, from int, tos []int) (rescales, steps, series int) {
	prefix := make([]int, len(tos)+1) // prefix[k]: the sum of min(from, to) over tos[:k]
	for k, q := range tos {
		prefix[k+1] = prefix[k] + min(from, q)
	}
	for _, m := range maxParallelisms {
		if from > m {
			continue
		}
		k := sort.SearchInts(tos, m+1) // the to ≤ M
		rescales += k
		steps += prefix[k]
		if k > 0 {
			series++
		}
	}
	return rescales, steps, series
}

// MovedFractions calls f with MovedFraction(M, from, to) for every M in maxParallelisms and to
// in tos (both ascending) with from, to ≤ M, M first then to; it stops at the first error.
func MovedFractions(maxParallelisms []int, from int, tos []int, f func(Moved)) error {
	for _, m := range maxParallelisms {
		for _, q := range tos {
			if from > m || q > m {
				break // tos ascend
			}
			r, err := MovedFraction(m, from, q)
			if err != nil {
				return err
			}
			f(r)
		}
	}
	return nil
}

// KeyLoad is one distinct key of a sample: its Java hashCode (see model.JavaIntHash and friends)
// and the number of records that carry it.
type KeyLoad struct {
	Hash    int32
	Records int64
}

// KeyGroupLoads is a key sample folded into key groups: Records[kg] and DistinctKeys[kg] for every
// key group kg in 0..MaxParallelism−1.
type KeyGroupLoads struct {
	MaxParallelism int
	Records        []int64
	DistinctKeys   []int
}

// LoadPerKeyGroup routes every key of the sample to its key group
// (model.ComputeKeyGroupForKeyHash) and sums records and distinct keys per key group. Each entry
// of keys must be a different key (two different keys may share a hash); records must not be
// negative and their total must fit in an int64.
func LoadPerKeyGroup(keys []KeyLoad, maxParallelism int) (KeyGroupLoads, error) {
	if err := model.CheckParallelismPreconditions(maxParallelism); err != nil {
		return KeyGroupLoads{}, fmt.Errorf("max parallelism %d is out of bounds (want 1..%d): %w", maxParallelism, model.UpperBoundMaxParallelism, err)
	}
	l := KeyGroupLoads{MaxParallelism: maxParallelism, Records: make([]int64, maxParallelism), DistinctKeys: make([]int, maxParallelism)}
	var total int64
	for i, k := range keys {
		if k.Records < 0 {
			return KeyGroupLoads{}, fmt.Errorf("key %d has a negative record count %d", i+1, k.Records)
		}
		if total > math.MaxInt64-k.Records {
			return KeyGroupLoads{}, fmt.Errorf("the total record count overflows int64 at key %d", i+1)
		}
		total += k.Records
		kg := model.ComputeKeyGroupForKeyHash(k.Hash, maxParallelism)
		l.Records[kg] += k.Records
		l.DistinctKeys[kg]++
	}
	return l, nil
}

// SubtaskLoad is what one subtask carries for a key sample.
type SubtaskLoad struct {
	Subtask      int
	KeyGroups    int   // the size of the subtask's key-group range
	Records      int64 // records of the sample routed to the subtask
	DistinctKeys int   // distinct keys of the sample routed to the subtask
}

// Load is a key sample spread over the subtasks of one (M, p) pair.
type Load struct {
	MaxParallelism int
	Parallelism    int
	Subtasks       []SubtaskLoad // indexed by subtask
	Records        int64         // total over all subtasks
	DistinctKeys   int           // total over all subtasks
}

// PerSubtask sums the key groups of every subtask's range (Flink's ceiling formula) for
// parallelism p, which must be in 1..M.
func (l KeyGroupLoads) PerSubtask(parallelism int) (Load, error) {
	if err := checkPair(l.MaxParallelism, parallelism); err != nil {
		return Load{}, err
	}
	out := Load{MaxParallelism: l.MaxParallelism, Parallelism: parallelism, Subtasks: make([]SubtaskLoad, parallelism)}
	for i := range out.Subtasks {
		r, err := model.ComputeKeyGroupRangeForOperatorIndex(l.MaxParallelism, parallelism, i)
		if err != nil {
			return Load{}, err
		}
		s := SubtaskLoad{Subtask: i, KeyGroups: r.NumberOfKeyGroups()}
		for kg := r.Start; kg <= r.End; kg++ {
			s.Records += l.Records[kg]
			s.DistinctKeys += l.DistinctKeys[kg]
		}
		out.Subtasks[i] = s
		out.Records += s.Records
		out.DistinctKeys += s.DistinctKeys
	}
	return out, nil
}

// LoadPerSubtask is LoadPerKeyGroup followed by PerSubtask: the per-subtask load of a key sample
// at max parallelism M and parallelism p.
func LoadPerSubtask(keys []KeyLoad, maxParallelism, parallelism int) (Load, error) {
	if err := checkPair(maxParallelism, parallelism); err != nil {
		return Load{}, err
	}
	kgl, err := LoadPerKeyGroup(keys, maxParallelism)
	if err != nil {
		return Load{}, err
	}
	return kgl.PerSubtask(parallelism)
}

// Peak is the most loaded subtask by one measure and how far above the mean it is.
type Peak struct {
	Subtask     int     // the lowest-indexed subtask with the maximum
	Max         float64 // its value
	Mean        float64 // the total divided by the parallelism
	MaxOverMean float64 // Max / Mean; 0 when the total is 0
}

func peak(p int, value func(i int) float64) Peak {
	var pk Peak
	total := 0.0
	for i := range p {
		v := value(i)
		total += v
		if i == 0 || v > pk.Max {
			pk.Subtask, pk.Max = i, v
		}
	}
	pk.Mean = total / float64(p)
	if pk.Mean > 0 {
		pk.MaxOverMean = pk.Max / pk.Mean
	}
	return pk
}

// KeyGroupPeak is the subtask with the most key groups (the layout's skew).
func (l Load) KeyGroupPeak() Peak {
	return peak(l.Parallelism, func(i int) float64 { return float64(l.Subtasks[i].KeyGroups) })
}

// RecordPeak is the subtask with the most records (the skew a job would see).
func (l Load) RecordPeak() Peak {
	return peak(l.Parallelism, func(i int) float64 { return float64(l.Subtasks[i].Records) })
}

// DistinctKeyPeak is the subtask with the most distinct keys (the state-size skew, if every key
// holds the same amount of state).
func (l Load) DistinctKeyPeak() Peak {
	return peak(l.Parallelism, func(i int) float64 { return float64(l.Subtasks[i].DistinctKeys) })
}

// Hotspot splits the record skew of the busiest subtask into its two causes:
// RecordsOverMean = KeyGroupsOverMean × DensityOverMean, where KeyGroupsOverMean is the
// key-group layout (how many more key groups than average the subtask owns) and DensityOverMean
// is the key skew (how many more records per key group than the sample's average its key
// groups carry).
type Hotspot struct {
	Subtask           int
	RecordsOverMean   float64
	KeyGroupsOverMean float64
	DensityOverMean   float64
}

// Hotspot returns the decomposition for the subtask with the most records (zero when the
// sample has no records).
func (l Load) Hotspot() Hotspot {
	rp := l.RecordPeak()
	if l.Records == 0 {
		return Hotspot{Subtask: rp.Subtask}
	}
	s := l.Subtasks[rp.Subtask]
	kgOverMean := float64(s.KeyGroups) * float64(l.Parallelism) / float64(l.MaxParallelism)
	density := (float64(s.Records) / float64(s.KeyGroups)) / (float64(l.Records) / float64(l.MaxParallelism))
	return Hotspot{Subtask: rp.Subtask, RecordsOverMean: rp.MaxOverMean, KeyGroupsOverMean: kgOverMean, DensityOverMean: density}
}

// WorstRecordSkew returns, over the parallelisms 1..maxParallelism (each at most M), the
// parallelism at which the busiest subtask carries the most records relative to the mean, and
// that ratio (the smallest such parallelism on ties; ratio 0 when the sample has no records). It
// uses prefix sums, so the cost is O(M + Σp).
func (l KeyGroupLoads) WorstRecordSkew(maxParallelism int) (parallelism int, maxOverMean float64, err error) {
	if err := checkPair(l.MaxParallelism, maxParallelism); err != nil {
		return 0, 0, err
	}
	parallelism, maxOverMean = l.worstRecordSkewOver(1, maxParallelism)
	return parallelism, maxOverMean, nil
}

// worstRecordSkewOver is WorstRecordSkew over the parallelisms lo..hi (1 ≤ lo ≤ hi ≤ M).
func (l KeyGroupLoads) worstRecordSkewOver(lo, hi int) (parallelism int, maxOverMean float64) {
	ps := make([]int, 0, hi-lo+1)
	for p := lo; p <= hi; p++ {
		ps = append(ps, p)
	}
	return l.worstRecordSkewAmong(ps)
}

// worstRecordSkewAmong is WorstRecordSkew over the parallelisms ps (not empty, each 1..M; the
// first of equal ones wins).
func (l KeyGroupLoads) worstRecordSkewAmong(ps []int) (parallelism int, maxOverMean float64) {
	m := l.MaxParallelism
	prefix := make([]int64, m+1)
	for kg, r := range l.Records {
		prefix[kg+1] = prefix[kg] + r
	}
	total := prefix[m]
	if total == 0 {
		return ps[0], 0
	}
	for j, p := range ps {
		var most int64
		for i := range p {
			start := (i*m + p - 1) / p
			end := ((i+1)*m - 1) / p
			most = max(most, prefix[end+1]-prefix[start])
		}
		r := float64(most) * float64(p) / float64(total)
		if j == 0 || r > maxOverMean {
			parallelism, maxOverMean = p, r
		}
	}
	return parallelism, maxOverMean
}

// DefaultCandidates returns, ascending, the max parallelisms Advise considers by default: the
// powers of two 128..32768 (Flink's default is one of them) and the highly composite numbers in
// that range (each has more divisors than any smaller number, so more parallelisms divide it
// evenly): 180, 240, 360, 720, 840, 1260, 1680, 2520 (= lcm(1..10)), 5040, 7560, 10080, 15120,
// 20160, 25200 and 27720 (= lcm(1..12), the only value ≤ 32768 that every parallelism 1..12
// divides). The slice is new on every call.
func DefaultCandidates() []int {
	return []int{
		128, 180, 240, 256, 360, 512, 720, 840, 1024, 1260, 1680, 2048, 2520, 4096, 5040, 7560,
		8192, 10080, 15120, 16384, 20160, 25200, 27720, 32768,
	}
}

// AdviseOptions configures Advise.
type AdviseOptions struct {
	// MaxExpectedParallelism is N: the job may run at any parallelism L..N. Required, 1..32768.
	MaxExpectedParallelism int
	// MinExpectedParallelism is L, the lowest parallelism the job may run at: 1..N, 0 means 1.
	// Worst cases, means and balanced counts are taken over L..N.
	MinExpectedParallelism int
	// Candidates are the max parallelisms to rank (nil: DefaultCandidates()). Those below N are
	// dropped: Flink cannot run a parallelism above the max parallelism.
	Candidates []int
	// Tolerance is the resolution at which worst-case skews are compared: a candidate's
	// worst-case MaxOverMean is rounded up to the next multiple of Tolerance above 1 (its Step),
	// and candidates with the same Step are tied, the smaller M first. Exact balance (1) is in
	// the first step with everything up to 1 + Tolerance: it has no step of its own above it.
	// 0 compares exact values.
	Tolerance float64
	// Keys, when not nil, is a key sample whose worst-case record skew over 1..N is reported
	// for every candidate (it does not change the ranking).
	Keys []KeyLoad
	// Autoscaler, when not zero, ranks by the parallelisms the Kubernetes operator's autoscaler
	// of that release actually picks instead of by every parallelism: for every target t in
	// L..N, the parallelism autoscaler.Scale returns for a keyed vertex (a HASH input) at max
	// parallelism M, scaled from Current, in the release's default mode, with the limits
	// job.autoscaler.vertex.min-parallelism L and job.autoscaler.vertex.max-parallelism N. Worst,
	// Balanced, the mean and the sample's skew are then taken over those picks.
	Autoscaler autoscaler.Release
	// Current is the parallelism the autoscaler scales from (with Autoscaler), 1..N; 0 means L,
	// so that every target is a scale-up from the lowest expected parallelism (or, at L, no
	// scale).
	Current int
}

// current is the parallelism the autoscaler scales from: Current, or L.
func (o AdviseOptions) current(lo int) int {
	if o.Current != 0 {
		return o.Current
	}
	return lo
}

// Dropped returns, in the order given, the candidates (DefaultCandidates when Candidates is
// nil) below MaxExpectedParallelism, which Advise leaves out.
func (o AdviseOptions) Dropped() []int {
	cs := o.Candidates
	if cs == nil {
		cs = DefaultCandidates()
	}
	var out []int
	for _, m := range cs {
		if m < o.MaxExpectedParallelism {
			out = append(out, m)
		}
	}
	return out
}

// SampleSkew is the worst record skew of a key sample over the parallelisms 1..N.
type SampleSkew struct {
	Parallelism int
	MaxOverMean float64
}

// Candidate is one ranked max parallelism.
type Candidate struct {
	MaxParallelism int
	// Worst is the pair (M, p), p in L..N, with the highest MaxOverMean (the smallest such p).
	Worst Skew
	// Step is ⌈(Worst.MaxOverMean − 1) / Tolerance⌉ (with 1e-9 slack for rounding) but at least
	// 1, so that exact balance shares the first step, or 0 when Tolerance is 0. It is the
	// primary ranking key.
	Step int
	// Balanced counts the parallelisms in L..N that divide M (MaxOverMean exactly 1).
	Balanced int
	// MeanMaxOverMean is the average MaxOverMean over p in L..N.
	MeanMaxOverMean float64
	// KeyGroupsPerSubtaskAtN is M/N: per-key-group bookkeeping each subtask carries at N.
	KeyGroupsPerSubtaskAtN float64
	// RocksDBPrefixBytes is the key-group prefix every RocksDB key carries:
	// CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix, 1 for M ≤ 128, else 2.
	RocksDBPrefixBytes int
	// Sample is the worst record skew of AdviseOptions.Keys (nil without keys).
	Sample *SampleSkew
	// WorstTarget is, with AdviseOptions.Autoscaler, the target (the smallest of equal ones)
	// for which the autoscaler picks Worst.Parallelism; 0 without.
	WorstTarget int
	// Moved counts, with AdviseOptions.Autoscaler, the targets in L..N whose pick is not the
	// target itself.
	Moved int
	// HighestPick is, with AdviseOptions.Autoscaler, the highest parallelism picked for any
	// target in L..N (below N when alignment keeps the job from reaching N).
	HighestPick int
}

// Lowest returns the candidate with the lowest worst-case skew (the first of equal ones, so
// the highest ranked); it is cands[0] unless the ranking used a Tolerance. cands must not be
// empty.
func Lowest(cands []Candidate) Candidate {
	lowest := cands[0]
	for _, c := range cands {
		if c.Worst.MaxOverMean < lowest.Worst.MaxOverMean {
			lowest = c
		}
	}
	return lowest
}

// Advise ranks candidate max parallelisms by the worst key-group skew a job would see at any
// parallelism L..N: by Step, then (ties, including every exact tie) by the smaller M, because
// per-key-group overhead grows with M (an 8-byte offset per key group in every keyed-state
// checkpoint, a state map per key group and state and a timer deduplication map per key group
// on the heap backend). With Tolerance 0, by the exact worst-case value, then by M. With
// opts.Autoscaler, the skews are those of the parallelisms the autoscaler picks for the targets
// L..N (see AdviseOptions.Autoscaler).
func Advise(opts AdviseOptions) ([]Candidate, error) {
	n := opts.MaxExpectedParallelism
	if err := model.CheckParallelismPreconditions(n); err != nil {
		return nil, fmt.Errorf("max expected parallelism %d is out of bounds (want 1..%d): %w", n, model.UpperBoundMaxParallelism, err)
	}
	if opts.Tolerance < 0 || math.IsNaN(opts.Tolerance) || math.IsInf(opts.Tolerance, 0) {
		return nil, fmt.Errorf("tolerance %v must be a finite number ≥ 0", opts.Tolerance)
	}
	lo := opts.MinExpectedParallelism
	if lo == 0 {
		lo = 1
	}
	if lo < 1 || lo > n {
		return nil, fmt.Errorf("min expected parallelism %d is out of bounds (want 1..%d, the max expected parallelism)", lo, n)
	}
	if opts.Autoscaler != 0 {
		if !slices.Contains(autoscaler.Releases(), opts.Autoscaler) {
			return nil, fmt.Errorf("unknown operator release %v", opts.Autoscaler)
		}
		if c := opts.current(lo); c < 1 || c > n {
			return nil, fmt.Errorf("current parallelism %d is out of bounds (want 1..%d, the max expected parallelism)", c, n)
		}
	}
	cands := opts.Candidates
	if cands == nil {
		cands = DefaultCandidates()
	}
	ms := slices.Clone(cands)
	slices.Sort(ms)
	ms = slices.Compact(ms)
	var out []Candidate
	points := make([]Skew, 0, n)
	for _, m := range ms {
		if err := model.CheckParallelismPreconditions(m); err != nil {
			return nil, fmt.Errorf("candidate max parallelism %d is out of bounds (want 1..%d): %w", m, model.UpperBoundMaxParallelism, err)
		}
		if m < n {
			continue
		}
		c := Candidate{MaxParallelism: m, KeyGroupsPerSubtaskAtN: float64(m) / float64(n), RocksDBPrefixBytes: 1}
		if m > 128 {
			c.RocksDBPrefixBytes = 2
		}
		points = points[:0]
		if opts.Autoscaler != 0 {
			var err error
			if points, err = autoscalerPicks(points, opts, m, lo, &c); err != nil {
				return nil, err
			}
		} else {
			for p := lo; p <= n; p++ {
				points = append(points, keyGroupSkew(m, p))
			}
		}
		sum := SummarizeSkew(points)
		c.Worst, c.Balanced, c.MeanMaxOverMean = sum.Worst, sum.Balanced, sum.MeanMaxOverMean
		if opts.Autoscaler != 0 {
			c.WorstTarget = lo + slices.IndexFunc(points, func(s Skew) bool { return s.MaxOverMean == sum.Worst.MaxOverMean })
		}
		if opts.Tolerance > 0 {
			c.Step = max(1, int(math.Ceil((c.Worst.MaxOverMean-1)/opts.Tolerance-1e-9)))
		}
		if opts.Keys != nil {
			kgl, err := LoadPerKeyGroup(opts.Keys, m)
			if err != nil {
				return nil, err
			}
			var p int
			var r float64
			if opts.Autoscaler != 0 {
				picks := make([]int, 0, len(points))
				for _, pt := range points {
					picks = append(picks, pt.Parallelism)
				}
				slices.Sort(picks)
				p, r = kgl.worstRecordSkewAmong(slices.Compact(picks))
			} else {
				p, r = kgl.worstRecordSkewOver(lo, n)
			}
			c.Sample = &SampleSkew{Parallelism: p, MaxOverMean: r}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no candidate max parallelism is ≥ the max expected parallelism %d", n)
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		if a.Step != b.Step {
			return a.Step - b.Step
		}
		if a.Worst.MaxOverMean != b.Worst.MaxOverMean && opts.Tolerance == 0 {
			if a.Worst.MaxOverMean < b.Worst.MaxOverMean {
				return -1
			}
			return 1
		}
		return a.MaxParallelism - b.MaxParallelism
	})
	return out, nil
}

// autoscalerPicks appends to points, for every target t in lo..N, the skew of the parallelism
// opts.Autoscaler picks for t at max parallelism m (see AdviseOptions.Autoscaler), and sets c's
// Moved and HighestPick.
func autoscalerPicks(points []Skew, opts AdviseOptions, m, lo int, c *Candidate) ([]Skew, error) {
	n := opts.MaxExpectedParallelism
	params := autoscaler.Params{Release: opts.Autoscaler, MaxParallelism: m, Current: opts.current(lo),
		Input: autoscaler.Hash, Lower: lo, Upper: n}
	for t := lo; t <= n; t++ {
		d, err := autoscaler.Scale(params, t)
		if err != nil {
			return nil, fmt.Errorf("max parallelism %d, target %d: %w", m, t, err)
		}
		if d.Parallelism != t {
			c.Moved++
		}
		c.HighestPick = max(c.HighestPick, d.Parallelism)
		points = append(points, keyGroupSkew(m, d.Parallelism))
	}
	return points, nil
}
