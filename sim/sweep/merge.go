package sweep

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/model"
)

// ErrNoSeeds is the error of a merge that read no seed record: an empty or crashed shard
// must not pass for a sweep in which no seed failed.
var ErrNoSeeds = errors.New("no seed records")

// maxLine bounds one line of the shard format.
const maxLine = 64 << 20

// Merger reads the shards of one sweep (the JSON-lines outputs of its --shard i/n runs) into
// a Summary, and checks that they belong together: every record has the run-defining fields
// (flink, steps) of the first one, and no seed is in two records. It keeps a few numbers per
// shard, not per seed: a shard's seeds are an arithmetic progression.
//
// The shards of a cross-version sweep ('sweep --flink A,B,… --format json': one Comparison per
// seed) merge the same way, into a VersionsSummary; a merge is of one kind or the other.
type Merger struct {
	sum      *Summary
	names    []string
	first    *Record // the first record read, and where
	firstAt  string
	firstCmp *Comparison      // the first cross-version record read (then firstAt is where)
	vsum     *VersionsSummary // the cross-version summary, once firstCmp is read
	runs     []seedRun        // the seeds read, as arithmetic progressions
	cur      *seedRun         // the progression the current shard extends, nil before its first record
}

// seedRun is an arithmetic progression of seeds read in one shard: first, first+stride, …
// (n of them; stride 0 when n is 1).
type seedRun struct {
	first, stride, n uint64
	shard            int // index in Merger.names
}

func (r seedRun) last() uint64 { return r.first + (r.n-1)*r.stride }

// NewMerger is a merge of no shard yet.
func NewMerger() *Merger { return &Merger{sum: NewSummary()} }

// runDefining are the fields of a record that every shard of one sweep shares, with the
// sweep flag that sets each.
var runDefining = []struct {
	field, flag string
	value       func(*Record) string
}{
	{"flink", "--flink", func(r *Record) string { return r.Flink }},
	{"steps", "--steps", func(r *Record) string { return strconv.Itoa(r.Steps) }},
}

// ReadShard reads one shard, named name in errors ("name:line: …"): blank lines are skipped,
// every other line must be a record (ParseRecord) with the run-defining fields of the first
// record of the merge.
func (m *Merger) ReadShard(name string, r io.Reader) error {
	m.names = append(m.names, name)
	m.cur = nil
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, n)
		if isComparison(line) {
			c, err := ParseComparison(line)
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if err := m.addComparison(c, at); err != nil {
				return err
			}
			continue
		}
		rec, err := ParseRecord(line)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if m.firstCmp != nil {
			return fmt.Errorf("%s: a single-version record (sweep --flink V) among the cross-version records of %s (sweep --flink %s): the shards of one sweep share --flink",
				at, m.firstAt, m.firstCmp.flinks())
		}
		if m.first == nil {
			m.first, m.firstAt = rec, at
		}
		for _, f := range runDefining {
			if got, want := f.value(rec), f.value(m.first); got != want {
				return fmt.Errorf("%s: seed %d has %s %s, but seed %d (%s) has %s %s: the shards of one sweep share %s",
					at, rec.Seed, f.field, got, m.first.Seed, m.firstAt, f.field, want, f.flag)
			}
		}
		m.addSeed(rec.Seed)
		m.sum.Add(rec)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// addComparison adds a cross-version record read at at.
func (m *Merger) addComparison(c *Comparison, at string) error {
	if m.first != nil {
		return fmt.Errorf("%s: a cross-version record (sweep --flink %s) among the single-version records of %s (sweep --flink %s): the shards of one sweep share --flink",
			at, c.flinks(), m.firstAt, m.first.Flink)
	}
	if m.firstCmp == nil {
		vs := make([]model.FlinkVersion, len(c.Records))
		for i, r := range c.Records {
			vs[i], _ = model.ParseFlinkVersion(r.Flink) // checked by ParseComparison
		}
		m.firstCmp, m.firstAt, m.vsum = c, at, NewVersionsSummary(vs)
	}
	f := m.firstCmp
	if got, want := c.flinks(), f.flinks(); got != want {
		return fmt.Errorf("%s: seed %d has flink %s, but seed %d (%s) has flink %s: the shards of one sweep share --flink", at, c.Seed, got, f.Seed, m.firstAt, want)
	}
	if got, want := c.Records[0].Steps, f.Records[0].Steps; got != want {
		return fmt.Errorf("%s: seed %d has steps %d, but seed %d (%s) has steps %d: the shards of one sweep share --steps", at, c.Seed, got, f.Seed, m.firstAt, want)
	}
	m.addSeed(c.Seed)
	m.vsum.Add(c)
	return nil
}

// CrossVersion reports whether the records read are of a cross-version sweep (then
// VersionsSummary, not Summary, merges them).
func (m *Merger) CrossVersion() bool { return m.firstCmp != nil }

// VersionsSummary is the merged summary of the cross-version shards read and their steps (for
// VersionsSummary.WriteText), with Summary's errors.
func (m *Merger) VersionsSummary() (*VersionsSummary, int, error) {
	if m.firstCmp == nil {
		if m.first != nil {
			return nil, 0, errors.New("the records are of a single-version sweep (merge them with Summary)")
		}
		return nil, 0, ErrNoSeeds
	}
	if err := m.checkDuplicates(); err != nil {
		return nil, 0, err
	}
	return m.vsum, m.firstCmp.Records[0].Steps, nil
}

// addSeed extends the current shard's progression with seed or starts a new one.
func (m *Merger) addSeed(seed uint64) {
	if c := m.cur; c != nil {
		switch {
		case c.n == 1 && seed > c.first:
			c.stride, c.n = seed-c.first, 2
			return
		case c.n > 1 && seed > c.last() && seed-c.last() == c.stride:
			c.n++
			return
		}
	}
	m.runs = append(m.runs, seedRun{first: seed, n: 1, shard: len(m.names) - 1})
	m.cur = &m.runs[len(m.runs)-1]
}

// Summary is the merged summary of the shards read. It is an error (ErrNoSeeds) when they
// held no record, and when a seed is in two records (naming the smallest such seed).
func (m *Merger) Summary() (*Summary, error) {
	if m.firstCmp != nil {
		return nil, errors.New("the records are of a cross-version sweep (merge them with VersionsSummary)")
	}
	if m.sum.seeds == 0 {
		return nil, ErrNoSeeds
	}
	if err := m.checkDuplicates(); err != nil {
		return nil, err
	}
	return m.sum, nil
}

// checkDuplicates refuses a seed read twice, naming the smallest such seed.
func (m *Merger) checkDuplicates() error {
	if d, ok := m.duplicate(); ok {
		a, b := m.names[d.shards[0]], m.names[d.shards[1]]
		if d.shards[0] == d.shards[1] {
			return fmt.Errorf("seed %d is in %s twice: a sweep runs each seed once", d.seed, a)
		}
		return fmt.Errorf("seed %d is in both %s and %s: overlapping shards (give each shard of one sweep once)", d.seed, a, b)
	}
	return nil
}

// dup is a seed read twice, and the shards of its two records (in reading order).
type dup struct {
	seed   uint64
	shards [2]int
}

// duplicate finds the smallest seed that two progressions share, sweeping them in order of
// their first seed with the ones still open.
func (m *Merger) duplicate() (dup, bool) {
	runs := slices.Clone(m.runs)
	slices.SortStableFunc(runs, func(a, b seedRun) int {
		switch {
		case a.first < b.first:
			return -1
		case a.first > b.first:
			return 1
		}
		return 0
	})
	var best dup
	found := false
	var open []seedRun
	for _, r := range runs {
		if found && r.first > best.seed {
			break
		}
		j := 0
		for _, o := range open {
			if o.last() >= r.first {
				open[j] = o
				j++
			}
		}
		open = open[:j]
		for _, o := range open {
			if x, ok := intersect(o, r); ok && (!found || x < best.seed) {
				best, found = dup{x, [2]int{min(o.shard, r.shard), max(o.shard, r.shard)}}, true
			}
		}
		open = append(open, r)
	}
	return best, found
}

// intersect is the smallest seed in both progressions.
func intersect(a, b seedRun) (uint64, bool) {
	lo, hi := max(a.first, b.first), min(a.last(), b.last())
	if lo > hi {
		return 0, false
	}
	if a.n == 1 || b.n == 1 {
		if a.n != 1 {
			a, b = b, a
		}
		if contains(b, a.first) {
			return a.first, true
		}
		return 0, false
	}
	// x ≡ a.first (mod a.stride), x ≡ b.first (mod b.stride): the Chinese remainder theorem,
	// in big integers so that nothing overflows.
	A, B := new(big.Int).SetUint64(a.first), new(big.Int).SetUint64(b.first)
	D1, D2 := new(big.Int).SetUint64(a.stride), new(big.Int).SetUint64(b.stride)
	g := new(big.Int).GCD(nil, nil, D1, D2)
	diff := new(big.Int).Sub(B, A)
	if new(big.Int).Mod(diff, g).Sign() != 0 {
		return 0, false
	}
	mod := new(big.Int).Div(D2, g) // the solutions are A + D1·(t + k·mod)
	t := new(big.Int)
	if mod.Cmp(big.NewInt(1)) != 0 {
		inv := new(big.Int).ModInverse(new(big.Int).Mod(new(big.Int).Div(D1, g), mod), mod)
		t.Mul(new(big.Int).Div(diff, g), inv).Mod(t, mod)
	}
	x := new(big.Int).Add(A, new(big.Int).Mul(D1, t))
	l := new(big.Int).Mul(D1, mod) // the lcm of the strides
	if lb := new(big.Int).SetUint64(lo); x.Cmp(lb) < 0 {
		k := new(big.Int).Sub(lb, x)
		k.Add(k, new(big.Int).Sub(l, big.NewInt(1))).Div(k, l) // ⌈(lo-x)/l⌉
		x.Add(x, k.Mul(k, l))
	}
	if x.Cmp(new(big.Int).SetUint64(hi)) > 0 {
		return 0, false
	}
	return x.Uint64(), true
}

// contains reports whether seed is in the progression r.
func contains(r seedRun, seed uint64) bool {
	if seed < r.first || seed > r.last() {
		return false
	}
	return r.n == 1 && seed == r.first || r.n > 1 && (seed-r.first)%r.stride == 0
}
