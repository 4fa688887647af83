package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/internal/intlist"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "skew", summary: "key-group skew per (max parallelism, parallelism), or the load of a key sample", run: runSkew})
}

// parallelismList is the Spec of a list of (max) parallelisms: "1..512", "1,2,4" or
// "1..8,16,32", every value in 1..32768.
func parallelismList(flagName string) intlist.Spec {
	return intlist.Spec{Flag: flagName, Max: model.UpperBoundMaxParallelism, Want: "e.g. 1..512, 1,2,4 or 1..8,16,32", Range: "a..b"}
}

// parseIntList parses a list of parallelisms into a sorted list without duplicates.
func parseIntList(flagName, s string) ([]int, error) {
	ints, _, err := parallelismList(flagName).Parse(s) // "default" is not a number here
	return ints, err
}

// parseMaxList is parseIntList that also accepts the token "default" (Flink's default max
// parallelism, which depends on the parallelism).
func parseMaxList(flagName, s string) (ints []int, hasDefault bool, err error) {
	spec := parallelismList(flagName)
	spec.Keyword = "default"
	return spec.Parse(s)
}

// readKeySample reads the key file at path (or stdin for "-") with plots.ReadKeySample.
func readKeySample(e *env, path, keyType string, weights bool) (plots.KeySample, error) {
	if path == "" {
		return plots.KeySample{}, errors.New("--keys needs a file name (or - for stdin)")
	}
	kt, err := parseKeyType(keyType)
	if err != nil {
		return plots.KeySample{}, err
	}
	var r io.Reader = e.stdin
	name := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return plots.KeySample{}, fmt.Errorf("--keys: %v", err)
		}
		defer f.Close()
		r, name = f, path
	}
	ks, err := plots.ReadKeySample(r, kt, weights)
	var le *plots.KeyLineError
	switch {
	case err == nil:
		return ks, nil
	case errors.Is(err, plots.ErrNoWeight) && errors.As(err, &le):
		return ks, fmt.Errorf("--keys %s: line %d has no weight (with --weights every line is key,weight)", name, le.Line)
	case errors.Is(err, plots.ErrNoKeys):
		return ks, fmt.Errorf("--keys %s has no keys", name)
	case errors.As(err, &le) || errors.Is(err, plots.ErrNoRecords):
		return ks, fmt.Errorf("--keys %s: %v", name, err)
	}
	return ks, fmt.Errorf("--keys: reading %s: %v", name, err)
}

// chartFlags are the flags shared by commands that draw.
type chartFlags struct {
	out        *string
	embedFonts *bool
}

func addChartFlags(fs *cliflags.Set) chartFlags {
	return chartFlags{
		out:        fs.String("out", "", "draw the chart to `FILE` (.png or .svg by extension), written atomically"),
		embedFonts: fs.Bool("embed-fonts", false, "embed the fonts in an SVG (larger, renders the same everywhere)"),
	}
}

// check validates --out before any work: a known extension.
func (c chartFlags) check() error {
	if *c.out == "" {
		if *c.embedFonts {
			return errors.New("--embed-fonts needs --out FILE.svg")
		}
		return nil
	}
	f, err := plots.FormatOf(*c.out)
	if err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	if *c.embedFonts && f != plots.SVG {
		return errors.New("--embed-fonts applies to SVG only (--out FILE.svg)")
	}
	return nil
}

// write draws the chart to --out, if given.
func (c chartFlags) write(chart func() (*plots.Chart, error)) error {
	if *c.out == "" {
		return nil
	}
	ch, err := chart()
	if err != nil {
		return err
	}
	if err := ch.WriteFile(*c.out, plots.EncodeOptions{EmbedFonts: *c.embedFonts}); err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	return nil
}

const skewHelp = `Without --keys: the key-group skew of every (max parallelism M, parallelism p) pair with
p <= M (pairs with p > M are skipped: Flink cannot run them). Every subtask owns floor(M/p) or
ceil(M/p) key groups (Flink's ceiling range formula, KeyGroupRangeAssignment.
computeKeyGroupRangeForOperatorIndex); max_over_mean = max key groups per subtask / (M/p), 1 when
p divides M, always below 2. With --csv it prints, for every pair (M ascending, then p ascending):
  max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean
Without --csv it prints one summary line per M: the worst pair, how many p divide M, the mean.
--max-parallelism default uses Flink's default max parallelism for each p
(min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768)); the CSV then shows that M on every row.
Lists: 1..512, 1,2,4 or mixtures such as 1..8,16,32 (each value 1..32768; sorted, duplicates
dropped; at most 2097152 pairs per run). --out draws a line chart (--log-x: log-scale
parallelism axis) or, with --chart heatmap, an M x p heat map (blank where p > M).

With --keys FILE: the load of a key sample at one parallelism P (and max parallelism M,
default Flink's default for P). Keys are read one per line, split on \n only, verbatim (as in
'simulate keygroup'); - reads stdin. With --weights every line is key,weight: the weight, a
non-negative integer counting the records of that line, follows the last comma (the key is
everything before it, so keys may contain commas; no CSV quoting); a first line "key,weight"
is a header. Without --weights every line is one record. A key repeated on several lines is
one distinct key. It prints a table, then the key-group skew (layout), the record skew and the
distinct-key skew, and splits the busiest subtask's record skew into layout x key skew. With
--csv it prints only
  subtask,key_groups,records,distinct_keys,records_share
(records_share = records / all records). --out draws key groups, records and distinct keys
per subtask relative to the mean. For a SQL key (--key-type row<…>) each key is a JSON array,
as in 'simulate keygroup --help'.

Ratios and shares are printed with 6 decimals (printf %.6f). Bad input exits 2 with one line
on stderr and nothing on stdout; --out is written to a temporary file and renamed, so an
existing file is only replaced by a complete chart.`

func runSkew(e *env, args []string) int {
	fs := cliflags.New("skew", "skew --max-parallelism LIST --parallelism LIST [--csv] [--out FILE.png|.svg [--chart line|heatmap] [--log-x] [--embed-fonts]]\n"+
		"       simulate skew --keys FILE --key-type int|long|string|row<T1,…,Tn> [--weights] --parallelism P [--max-parallelism M] [--csv] [--out FILE.png|.svg [--embed-fonts]]",
		skewHelp)
	maxPar := fs.String("max-parallelism", "", "max parallelisms `LIST`, e.g. 128,256,720, 128..1024 or default (with --keys: one value M or default)")
	par := fs.String("parallelism", "", "parallelisms `LIST`, e.g. 1..512 or 1..8,16,32 (with --keys: one value P)")
	csvOut := fs.Bool("csv", false, "print CSV (every pair, or every subtask with --keys)")
	chartKind := fs.String("chart", "line", "`KIND` of chart for --out without --keys: line or heatmap")
	logX := fs.Bool("log-x", false, "line chart: log-scale parallelism axis")
	keysPath := fs.String("keys", "", "key sample `FILE`, one key per line (- for stdin)")
	keyType := fs.String("key-type", "", "with --keys: "+keyTypeUsage)
	weights := fs.Bool("weights", false, "with --keys: every line is key,weight (weight = records)")
	cf := addChartFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("skew", "unexpected argument %q (skew takes only flags)", pos[0])
	}
	if err := cf.check(); err != nil {
		return e.failf("skew", "%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *keysPath != "" || set["keys"] {
		if set["chart"] || *logX {
			return e.failf("skew", "--chart and --log-x apply to the skew chart, not to --keys")
		}
		return runSkewKeys(e, *keysPath, *keyType, *weights, *par, *maxPar, set["max-parallelism"], *csvOut, cf)
	}
	if set["key-type"] || *weights {
		return e.failf("skew", "--key-type and --weights need --keys FILE")
	}
	if *chartKind != "line" && *chartKind != "heatmap" {
		return e.failf("skew", "--chart %q: want line or heatmap", *chartKind)
	}
	if (set["chart"] || *logX) && *cf.out == "" {
		return e.failf("skew", "--chart and --log-x shape the chart: they need --out FILE.png|.svg")
	}
	if *chartKind == "heatmap" && *logX {
		return e.failf("skew", "--log-x applies to the line chart, not to --chart heatmap")
	}
	if *maxPar == "" {
		return e.failf("skew", "--max-parallelism is required (e.g. 128,256,720 or default)")
	}
	if *par == "" {
		return e.failf("skew", "--parallelism is required (e.g. 1..512)")
	}
	ms, hasDefault, err := parseMaxList("--max-parallelism", *maxPar)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	ps, err := parseIntList("--parallelism", *par)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	if n := plots.CountSkewPairs(ms, hasDefault, ps); n > maxSkewPairs {
		return e.failf("skew", "%d (max parallelism, parallelism) pairs is too many (at most %d): narrow --max-parallelism or --parallelism", n, maxSkewPairs)
	}
	series, err := plots.KeyGroupSkews(ms, hasDefault, ps)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	if len(series) == 0 {
		return e.failf("skew", "no pair with parallelism <= max parallelism (the smallest parallelism is %d, the largest max parallelism %d)", ps[0], ms[len(ms)-1])
	}
	var out bytes.Buffer
	if *csvOut {
		out.Grow(len(ps) * len(series) * 32)
		_ = plots.WriteSkewCSV(&out, series) // a bytes.Buffer does not fail
	} else {
		_ = plots.WriteSkewSummary(&out, series, len(ps))
	}
	err = cf.write(func() (*plots.Chart, error) {
		if *chartKind == "heatmap" {
			return plots.SkewHeatMap(series)
		}
		return plots.SkewLines(series, *logX)
	})
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	return writeOut(e, "skew", out.Bytes())
}

// maxSkewPairs bounds the pairs one run computes (the output is built in memory before it is
// written): 2^21, e.g. 64 max parallelisms × every parallelism 1..32768.
const maxSkewPairs = 1 << 21

func runSkewKeys(e *env, path, keyType string, weights bool, parList, maxList string, maxSet, csvOut bool, cf chartFlags) int {
	if parList == "" {
		return e.failf("skew", "--parallelism P is required with --keys")
	}
	p, err := strconv.Atoi(strings.TrimSpace(parList))
	if err != nil {
		return e.failf("skew", "--parallelism %q: with --keys give one parallelism P (1..%d)", parList, model.UpperBoundMaxParallelism)
	}
	m := cliflags.Int{}
	if maxSet && maxList != "default" {
		if err := m.Set(strings.TrimSpace(maxList)); err != nil {
			return e.failf("skew", "--max-parallelism %q: with --keys give one max parallelism M or default", maxList)
		}
	}
	p, maxPar, err := resolveParallelism(cliflags.Int{V: p, Given: true}, m)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	ks, err := readKeySample(e, path, keyType, weights)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	load, err := plots.LoadPerSubtask(ks.Keys, maxPar, p)
	if err != nil {
		return e.failf("skew", "%v", err)
	}
	var out bytes.Buffer
	if csvOut {
		_ = load.WriteCSV(&out) // a bytes.Buffer does not fail
	} else {
		_ = load.WriteReport(&out, ks)
	}
	if err := cf.write(func() (*plots.Chart, error) { return plots.LoadBars(load) }); err != nil {
		return e.failf("skew", "%v", err)
	}
	return writeOut(e, "skew", out.Bytes())
}
