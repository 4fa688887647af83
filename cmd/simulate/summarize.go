package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restoresim/restoresim/model"
)

func init() {
	register(&command{name: "summarize", summary: "merge the --format json outputs of sweep shards into one summary", run: runSummarize})
}

// maxListed bounds the failing seeds a summary lists (the smallest ones); the rest are counted.
const maxListed = 100

// seedRecord is one line of 'sweep --format json': everything a summary needs about a seed.
type seedRecord struct {
	Seed       uint64            `json:"seed"`
	Flink      string            `json:"flink"`
	Steps      int               `json:"steps"`
	Result     string            `json:"result"` // resultOK, resultKnown or resultFail
	Violations []recordViolation `json:"violations"`
	Labels     []string          `json:"labels"`
}

type recordViolation struct {
	Step      int    `json:"step"`
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
	Known     string `json:"known,omitempty"`
}

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

// summary accumulates seed records. Every field is a count or a bounded list, and adding
// records is commutative, so the summary of shards merged in any order equals the summary of
// the unsharded sweep, and memory does not grow with the number of seeds.
type summary struct {
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
	failing          []failingSeed  // the smallest failing seeds, sorted, at most maxListed
	failed           int
}

func newSummary() *summary {
	return &summary{flinks: map[string]int{}, steps: map[int]int{}, results: map[string]int{},
		invSeeds: map[string]int{}, invCount: map[string]int{}, knownSeeds: map[string]int{},
		knownCount: map[string]int{}, labels: map[string]int{}}
}

// add counts one seed.
func (s *summary) add(r *seedRecord) {
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
	if r.Result == resultFail {
		s.failed++
		f := failingSeed{r.Seed, r.Flink, r.Steps}
		i := sort.Search(len(s.failing), func(i int) bool { return f.less(s.failing[i]) })
		if i < maxListed {
			s.failing = append(s.failing, failingSeed{})
			copy(s.failing[i+1:], s.failing[i:])
			s.failing[i] = f
			if len(s.failing) > maxListed {
				s.failing = s.failing[:maxListed]
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

// write prints the summary as text.
func (s *summary) write(w io.Writer) {
	if s.seeds == 0 {
		fmt.Fprintln(w, "seeds    0")
	} else {
		fmt.Fprintf(w, "seeds    %d (%d..%d)\n", s.seeds, s.minSeed, s.maxSeed)
	}
	fmt.Fprintf(w, "flink    %s\n", joinOrDash(sortedNames(s.flinks), "-"))
	var st []string
	stepsKeys := make([]int, 0, len(s.steps))
	for k := range s.steps {
		stepsKeys = append(stepsKeys, k)
	}
	sort.Ints(stepsKeys)
	for _, k := range stepsKeys {
		st = append(st, strconv.Itoa(k))
	}
	fmt.Fprintf(w, "steps    %s\n", joinOrDash(st, "-"))

	outcomes := []struct{ name, key string }{
		{"ok (every invariant held)", resultOK},
		{"known-issue findings only", resultKnown},
		{"failed", resultFail},
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
		row(o.name, s.results[o.key], sharePct(s.results[o.key], s.seeds))
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
		fmt.Fprintf(w, "  simulate run --seed %d --flink %s --steps %d\n", f.seed, f.flink, f.steps)
	}
	if more := s.failed - len(s.failing); more > 0 {
		fmt.Fprintf(w, "  ... and %d more (the %d smallest seeds are listed)\n", more, maxListed)
	}
	fmt.Fprintln(w)
	if s.failed > 0 {
		fmt.Fprintf(w, "FAIL: %d of %d seeds failed\n", s.failed, s.seeds)
	} else {
		fmt.Fprintf(w, "ok: no seed failed (%d with known-issue findings only)\n", s.results[resultKnown])
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

func joinOrDash(ss []string, empty string) string {
	if len(ss) == 0 {
		return empty
	}
	out := ss[0]
	for _, s := range ss[1:] {
		out += ", " + s
	}
	return out
}

func runSummarize(e *env, args []string) int {
	fs := newFlags("summarize", "summarize FILE...",
		`Merges the outputs of 'simulate sweep --format json' (one JSON object per seed; e.g. one
file per shard of --shard i/n) into the text summary that sweep prints; the shards of a sweep
merge into exactly the unsharded sweep's summary, in any order. "-" reads stdin. Seeds are
not deduplicated: give each shard once. Exit code: 0 when no seed failed (known-issue
findings allowed), 1 when some seed failed, 2 on a missing or malformed file.`)
	files, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		return e.failf("summarize", "want at least one FILE (the --format json output of 'simulate sweep')")
	}
	s := newSummary()
	for _, name := range files {
		if err := summarizeFile(e, name, s); err != nil {
			return e.failf("summarize", "%v", err)
		}
	}
	var out bytes.Buffer
	s.write(&out)
	if c := writeOut(e, "summarize", out.Bytes()); c != exitOK {
		return c
	}
	if s.failed > 0 {
		return exitViolation
	}
	return exitOK
}

func summarizeFile(e *env, name string, s *summary) error {
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rec, err := parseRecord(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		s.add(rec)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// parseRecord decodes and checks one seed record.
func parseRecord(line []byte) (*seedRecord, error) {
	var rec seedRecord
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&rec); err != nil {
		return nil, fmt.Errorf("not a seed record of 'simulate sweep --format json': %v", err)
	}
	if d.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if _, err := model.ParseFlinkVersion(rec.Flink); err != nil {
		return nil, fmt.Errorf("seed %d: flink: %v", rec.Seed, err)
	}
	if rec.Steps < 1 || rec.Steps > maxSteps {
		return nil, fmt.Errorf("seed %d: steps %d is out of range (1..%d)", rec.Seed, rec.Steps, maxSteps)
	}
	var known []string
	for _, v := range rec.Violations {
		known = append(known, v.Known)
	}
	want := resultOK
	for _, k := range known {
		if k == "" {
			want = resultFail
			break
		}
		want = resultKnown
	}
	if rec.Result != want {
		return nil, fmt.Errorf("seed %d: result %q does not match its violations (want %q)", rec.Seed, rec.Result, want)
	}
	return &rec, nil
}
