package sweep

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restoresim/restoresim/sim"
)

// MaxListed bounds the failing seeds a summary lists (the smallest ones); the rest are counted.
const MaxListed = 100

// failingSeed is a listed failing seed: enough to print its replay command.
type failingSeed struct {
	seed  uint64
	flink string
	steps int
}

func (f failingSeed) less(g failingSeed) bool {
	if f.seed != g.seed {
		return f.seed < g.seed
	}
	if f.flink != g.flink {
		return f.flink < g.flink
	}
	return f.steps < g.steps
}

// Summary accumulates seed records. Every field is a count or a bounded list, and adding
// records is commutative, so the summary of shards merged in any order equals the summary of
// the unsharded sweep, and memory does not grow with the number of seeds.
type Summary struct {
	seeds            int
	minSeed, maxSeed uint64
	flinks           map[string]int
	steps            map[int]int
	results          map[string]int
	invSeeds         map[string]int // failed seeds with at least one violation of the invariant
	invCount         map[string]int // violations of the invariant (not known issues)
	knownSeeds       map[string]int // seeds with a finding of the known issue
	knownCount       map[string]int // findings of the known issue
	labels           map[string]int // seeds with the label
	failing          []failingSeed  // the smallest failing seeds, sorted, at most MaxListed
	failed           int
}

// NewSummary is the summary of no seed.
func NewSummary() *Summary {
	return &Summary{flinks: map[string]int{}, steps: map[int]int{}, results: map[string]int{},
		invSeeds: map[string]int{}, invCount: map[string]int{}, knownSeeds: map[string]int{},
		knownCount: map[string]int{}, labels: map[string]int{}}
}

// Seeds is the number of seeds added.
func (s *Summary) Seeds() int { return s.seeds }

// Failed is the number of failing seeds added.
func (s *Summary) Failed() int { return s.failed }

// Add counts one seed. It does not check the record against the others: a Merger does.
func (s *Summary) Add(r *Record) {
	if s.seeds == 0 || r.Seed < s.minSeed {
		s.minSeed = r.Seed
	}
	if s.seeds == 0 || r.Seed > s.maxSeed {
		s.maxSeed = r.Seed
	}
	s.seeds++
	s.flinks[r.Flink]++
	s.steps[r.Steps]++
	s.results[r.Result]++
	invSeen, knownSeen := map[string]bool{}, map[string]bool{}
	for _, v := range r.Violations {
		if v.Known != "" {
			s.knownCount[v.Known]++
			if !knownSeen[v.Known] {
				knownSeen[v.Known] = true
				s.knownSeeds[v.Known]++
			}
			continue
		}
		s.invCount[v.Invariant]++
		if !invSeen[v.Invariant] {
			invSeen[v.Invariant] = true
			s.invSeeds[v.Invariant]++
		}
	}
	for _, l := range r.Labels {
		s.labels[l]++
	}
	if r.Failed() {
		s.failed++
		f := failingSeed{r.Seed, r.Flink, r.Steps}
		i := sort.Search(len(s.failing), func(i int) bool { return f.less(s.failing[i]) })
		if i < MaxListed {
			s.failing = append(s.failing, failingSeed{})
			copy(s.failing[i+1:], s.failing[i:])
			s.failing[i] = f
			if len(s.failing) > MaxListed {
				s.failing = s.failing[:MaxListed]
			}
		}
	}
}

func sortedNames[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sharePct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// WriteText prints the summary as the text 'simulate sweep' and 'simulate summarize' print:
// the seeds, outcome counts, violations by invariant, known issues, features (sim.Labels), the
// replay commands of the MaxListed smallest failing seeds, and a last line "FAIL: …" or "ok: …".
func (s *Summary) WriteText(w io.Writer) { s.WriteTextShrunk(w, nil) }

// WriteTextShrunk is WriteText, with the shrunk plans of the failing seeds in shrunk
// (Report.WriteShrunk) after their replay commands, before the last line.
func (s *Summary) WriteTextShrunk(w io.Writer, shrunk []Report) {
	if s.seeds == 0 {
		fmt.Fprintln(w, "seeds    0")
	} else {
		fmt.Fprintf(w, "seeds    %d (%d..%d)\n", s.seeds, s.minSeed, s.maxSeed)
	}
	fmt.Fprintf(w, "flink    %s\n", joinOrDash(sortedNames(s.flinks)))
	var st []string
	stepsKeys := make([]int, 0, len(s.steps))
	for k := range s.steps {
		stepsKeys = append(stepsKeys, k)
	}
	sort.Ints(stepsKeys)
	for _, k := range stepsKeys {
		st = append(st, strconv.Itoa(k))
	}
	fmt.Fprintf(w, "steps    %s\n", joinOrDash(st))

	outcomes := []struct {
		name string
		key  sim.Verdict
	}{
		{"ok (every invariant held)", sim.VerdictOK},
		{"known-issue findings only", sim.VerdictKnown},
		{"failed", sim.VerdictFailed},
	}
	// One name column for every table, as wide as the longest name.
	width := len("known issues (do not fail a seed)") - 2
	for _, m := range []map[string]int{s.invSeeds, s.knownSeeds, s.labels} {
		for k := range m {
			width = max(width, utf8.RuneCountInString(k))
		}
	}
	heading := func(title, a, b string) { fmt.Fprintf(w, "\n%-*s %7s %11s\n", width+2, title, a, b) }
	row := func(name string, a int, b string) {
		fmt.Fprintf(w, "  %s%s %7d %11s\n", name, strings.Repeat(" ", width-utf8.RuneCountInString(name)), a, b)
	}

	heading("outcomes", "seeds", "share")
	for _, o := range outcomes {
		n := s.results[o.key.String()]
		row(o.name, n, sharePct(n, s.seeds))
	}
	heading("violations by invariant", "seeds", "violations")
	writeCountTable(w, s.invSeeds, s.invCount, row)
	heading("known issues (do not fail a seed)", "seeds", "findings")
	writeCountTable(w, s.knownSeeds, s.knownCount, row)
	heading("features (sim.Labels)", "seeds", "share")
	if len(s.labels) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, l := range sortedNames(s.labels) {
		row(l, s.labels[l], sharePct(s.labels[l], s.seeds))
	}

	fmt.Fprintf(w, "\nfailing seeds (%d)\n", s.failed)
	if s.failed == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, f := range s.failing {
		fmt.Fprintf(w, "  %s\n", Command(fmt.Sprintf("run --seed %d --flink %s --steps %d", f.seed, f.flink, f.steps)))
	}
	if more := s.failed - len(s.failing); more > 0 {
		fmt.Fprintf(w, "  ... and %d more (the %d smallest seeds are listed)\n", more, MaxListed)
	}
	if len(shrunk) > 0 {
		fmt.Fprintf(w, "\nshrunk failing seeds (%d)\n", len(shrunk))
	}
	for i, r := range shrunk {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "# seed %d flink %s: %s\n", r.Plan.Seed, r.Plan.Version, r.Replay)
		r.WriteShrunk(w)
	}
	fmt.Fprintln(w)
	if s.failed > 0 {
		fmt.Fprintf(w, "FAIL: %d of %d seeds failed\n", s.failed, s.seeds)
	} else {
		fmt.Fprintf(w, "ok: no seed failed (%d with known-issue findings only)\n", s.results[sim.VerdictKnown.String()])
	}
}

func writeCountTable(w io.Writer, seeds, count map[string]int, row func(name string, a int, b string)) {
	if len(seeds) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, k := range sortedNames(seeds) {
		row(k, seeds[k], strconv.Itoa(count[k]))
	}
}

func joinOrDash(ss []string) string {
	if len(ss) == 0 {
		return "-"
	}
	return strings.Join(ss, ", ")
}
