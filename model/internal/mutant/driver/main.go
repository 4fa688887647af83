// Command driver (`make mutants`) runs the test suites against every mutant of the model's
// catalogue (package mutant) and prints a kill matrix: mutant × test, with the number of checks rapid
// needed to kill each. The suites are the property suite (./properties) and the restore
// planner's own tests (./model/savepoint) and the scenario files (./scenarios; their columns are
// prefixed savepoint. and scenarios.). It first runs the suites with no mutant (they must be
// green), and exits 1 when a suite is red without a mutant or when some mutant survives the
// default budget. -run and the flags after -- apply to the property suite.
//
//	go run ./model/internal/mutant/driver [-run REGEXP] [-only NAME,…] [-sweep-seeds N] [-v] [-- -short -rapid.checks=N]
//
// It lives under model/ because the catalogue is internal to the model; run it from the module
// root. It also checks that the mutants build refuses an unknown RESTORESIM_MUTANT.
//
// Next to the suites, every mutant runs the default sweep (`simulate sweep`, its default
// 1,500 seeds, built with -tags mutants; -sweep-seeds N changes the count, 0 leaves the sweep
// out): the sweep column is the number of failing seeds. The sweep runs with --no-shrink, since
// shrinking changes no seed's verdict, only what is printed about it. A mutant counts as
// killed only when some suite and the sweep both kill it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

type testEvent struct {
	Action string
	Test   string
	Output string
}

// outcome is one suite run: per top-level test, whether it failed and after how many checks.
type outcome struct {
	failed   map[string]bool
	checks   map[string]string
	passed   map[string]bool
	elapsed  time.Duration
	buildErr string
}

var failedAfter = regexp.MustCompile(`\[rapid\] (?:failed|panic) after (\d+) tests`)

// suite is one test package the driver runs against every mutant.
type suite struct {
	pkg    string   // import path relative to the module root, e.g. ./properties
	prefix string   // prefix of its tests' names in the matrix ("" for the property suite)
	bin    string   // the compiled test binary
	dir    string   // the directory it runs in
	args   []string // test binary flags
}

// runSuites runs every suite once with RESTORESIM_MUTANT=name and merges their outcomes, each
// test named with its suite's prefix.
func runSuites(suites []suite, name string) (outcome, error) {
	all := outcome{failed: map[string]bool{}, checks: map[string]string{}, passed: map[string]bool{}}
	for _, su := range suites {
		o, err := runSuite(su, name)
		if err != nil {
			return outcome{}, err
		}
		for k := range o.failed {
			all.failed[su.prefix+k] = true
		}
		for k, v := range o.checks {
			all.checks[su.prefix+k] = v
		}
		for k := range o.passed {
			all.passed[su.prefix+k] = true
		}
		all.elapsed += o.elapsed
		if o.buildErr != "" {
			all.buildErr = strings.TrimSpace(all.buildErr + " " + su.pkg + ": " + o.buildErr)
		}
	}
	return all, nil
}

// runSuite runs one compiled suite once with RESTORESIM_MUTANT=name. The property suite runs in
// an empty directory: rapid replays every fail file it finds under testdata/rapid/ before its own
// checks, so running there keeps one mutant's (or the user's) saved failures out of another's
// result, and -rapid.nofailfile keeps the runs from saving any. The planner's suites run in their
// package directories (they read testdata and ../shared by relative paths) and use no rapid.
func runSuite(su suite, name string) (outcome, error) {
	args := append([]string{"tool", "test2json", "-t", "-p", su.pkg, su.bin, "-test.v=test2json", "-test.count=1"}, su.args...)
	cmd := exec.Command("go", args...)
	cmd.Dir = su.dir
	cmd.Env = append(os.Environ(), mutant.EnvVar+"="+name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return outcome{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return outcome{}, err
	}
	o := outcome{failed: map[string]bool{}, checks: map[string]string{}, passed: map[string]bool{}}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		switch e.Action {
		case "fail":
			o.failed[top] = true
		case "pass":
			o.passed[top] = true
		case "output":
			if m := failedAfter.FindStringSubmatch(e.Output); m != nil {
				if _, seen := o.checks[top]; !seen {
					n, _ := strconv.Atoi(m[1])
					o.checks[top] = strconv.Itoa(n + 1) // the failing check is the (n+1)-th
				}
			}
		}
	}
	waitErr := cmd.Wait()
	o.elapsed = time.Since(start)
	if waitErr != nil && len(o.failed) == 0 {
		o.buildErr = strings.TrimSpace(stderr.String())
		if o.buildErr == "" {
			o.buildErr = waitErr.Error()
		}
	}
	return o, nil
}

// testBinaryFlags turns the go test flags a user is likely to pass (-short, -run is ours) into
// the test binary's (-test.short); rapid's flags (-rapid.checks=N) pass unchanged.
func testBinaryFlags(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a == "-short" || strings.HasPrefix(a, "-short="):
			a = "-test." + a[1:]
		case strings.HasPrefix(a, "-timeout"):
			a = "-test." + a[1:]
		}
		out = append(out, a)
	}
	return out
}

func main() {
	run := flag.String("run", ".", "the -run pattern of the property tests to run")
	only := flag.String("only", "", "run only these mutants (comma-separated names)")
	sweepSeeds := flag.Int("sweep-seeds", 1500, "seeds of the default sweep each mutant runs (0: no sweep column)")
	verbose := flag.Bool("v", false, "print each run's failing tests as it finishes")
	flag.Parse()
	extra := testBinaryFlags(flag.Args()) // passed to the test binary, e.g. -short or -rapid.checks=1000

	mutants := mutant.All()
	if *only != "" {
		var picked []mutant.Mutant
		for _, name := range strings.Split(*only, ",") {
			i := slices.IndexFunc(mutants, func(m mutant.Mutant) bool { return m.Name == name })
			if i < 0 {
				fmt.Fprintf(os.Stderr, "mutants: unknown mutant %q\n", name)
				os.Exit(2)
			}
			picked = append(picked, mutants[i])
		}
		mutants = picked
	}

	dir, err := os.MkdirTemp("", "restoresim-mutants-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	code := drive(dir, mutants, *run, extra, *verbose, *sweepSeeds)
	os.RemoveAll(dir)
	os.Exit(code)
}

// drive builds the suite with -tags mutants, runs it without and with each mutant, prints the
// matrix and returns the exit code.
func drive(dir string, mutants []mutant.Mutant, run string, extra []string, verbose bool, sweepSeeds int) int {
	began := time.Now()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	suites := []suite{
		{pkg: "./properties", dir: work, args: append([]string{"-test.run", run, "-rapid.nofailfile"}, extra...)},
		{pkg: "./model/savepoint", prefix: "savepoint.", dir: filepath.Join(root, "model", "savepoint")},
		{pkg: "./scenarios", prefix: "scenarios.", dir: filepath.Join(root, "scenarios")},
	}
	for i := range suites {
		su := &suites[i]
		su.bin = filepath.Join(dir, fmt.Sprintf("suite%d.test", i))
		build := exec.Command("go", "test", "-c", "-tags", "mutants", "-o", su.bin, su.pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: building %s with -tags mutants: %v\n", su.pkg, err)
			return 2
		}
	}
	simulate := filepath.Join(dir, "simulate")
	if sweepSeeds > 0 {
		build := exec.Command("go", "build", "-tags", "mutants", "-o", simulate, "./cmd/simulate")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: building ./cmd/simulate with -tags mutants: %v\n", err)
			return 2
		}
	}
	if err := refusesUnknown(suites[0].bin, work); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 1
	}
	fmt.Printf("mutants: the property suite (go test -tags mutants ./properties -run %q%s), the planner's tests (./model/savepoint) and the scenario files (./scenarios), once without a mutant, then once per mutant (RESTORESIM_MUTANT)\n", run, strings.TrimRight(" "+strings.Join(extra, " "), " "))
	base, err := runSuites(suites, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	if base.buildErr != "" || len(base.failed) > 0 {
		fmt.Printf("the suite is red without a mutant (%v): %s\n", sortedKeys(base.failed), base.buildErr)
		return 1
	}
	fmt.Printf("no mutant: green (%d tests, %.1fs)\n", len(base.passed), base.elapsed.Seconds())
	if sweepSeeds > 0 {
		sw, err := runSweep(simulate, work, "", sweepSeeds)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 2
		}
		if sw.failed > 0 {
			fmt.Printf("the sweep fails %d of %d seeds without a mutant\n", sw.failed, sw.seeds)
			return 1
		}
		fmt.Printf("no mutant: the sweep (simulate sweep --seeds %d --no-shrink) fails 0 of %d seeds (%.1fs)\n", sweepSeeds, sw.seeds, sw.elapsed.Seconds())
	}

	results := make([]outcome, len(mutants))
	sweeps := make([]sweepOutcome, len(mutants))
	killedBy := map[string]bool{}
	for i, m := range mutants {
		o, err := runSuites(suites, m.Name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 2
		}
		results[i] = o
		for tname := range o.failed {
			killedBy[tname] = true
		}
		if sweepSeeds > 0 {
			if sweeps[i], err = runSweep(simulate, work, m.Name, sweepSeeds); err != nil {
				fmt.Fprintln(os.Stderr, "mutants:", err)
				return 2
			}
		}
		if verbose {
			fmt.Fprintf(os.Stderr, "%-32s %5.1fs killed by %v %s; sweep: %d of %d seeds failed (%.1fs)\n", m.Name, o.elapsed.Seconds(), sortedKeys(o.failed), o.buildErr,
				sweeps[i].failed, sweeps[i].seeds, sweeps[i].elapsed.Seconds())
		}
	}

	// The matrix: one column per property that killed some mutant, in sorted order.
	cols := sortedKeys(killedBy)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Println()
	fmt.Println("kill matrix: a cell is the number of checks rapid ran until the property failed (x: failed, not a rapid check; .: survived)")
	for k, c := range cols {
		fmt.Printf("  P%-2d %s\n", k+1, c)
	}
	header := "mutant\t"
	for k := range cols {
		header += fmt.Sprintf("P%d\t", k+1)
	}
	if sweepSeeds > 0 {
		header += "sweep\t"
	}
	fmt.Fprintln(tw, header+"verdict\t")
	survivors := 0
	for i, m := range mutants {
		o := results[i]
		row := m.Name + "\t"
		for _, c := range cols {
			switch {
			case o.checks[c] != "":
				row += o.checks[c] + "\t"
			case o.failed[c]:
				row += "x\t"
			default:
				row += ".\t"
			}
		}
		if sweepSeeds > 0 {
			if sweeps[i].failed > 0 {
				row += strconv.Itoa(sweeps[i].failed) + "\t"
			} else {
				row += ".\t"
			}
		}
		verdict := fmt.Sprintf("killed by %d", len(o.failed))
		switch {
		case len(o.failed) == 0 && o.buildErr != "":
			verdict = "BUILD ERROR"
			survivors++
		case len(o.failed) == 0:
			verdict = "SURVIVED"
			survivors++
		case sweepSeeds > 0 && sweeps[i].failed == 0:
			verdict = "SURVIVED the sweep"
			survivors++
		case sweepSeeds > 0:
			verdict += " + sweep"
		}
		fmt.Fprintln(tw, row+verdict+"\t")
	}
	_ = tw.Flush()
	fmt.Println()
	for _, m := range mutants {
		fmt.Printf("  %-32s %s\n", m.Name, m.Bug)
	}
	fmt.Println()
	if sweepSeeds > 0 {
		// The per-mutant summary of docs/properties.md: the property suite alone, and the sweep.
		fmt.Printf("| mutant | go test ./properties: properties failed (of %d) | simulate sweep: failing seeds (of %d) |\n| --- | --- | --- |\n", propertyCount(base), sweepSeeds)
		for i, m := range mutants {
			fmt.Printf("| %s | %d | %d |\n", m.Name, propertiesFailed(results[i]), sweeps[i].failed)
		}
		fmt.Println()
	}
	fmt.Printf("the matrix took %s\n", time.Since(began).Round(time.Second))
	if survivors > 0 {
		fmt.Printf("%d of %d mutants survived\n", survivors, len(mutants))
		for i, m := range mutants {
			if len(results[i].failed) == 0 || sweepSeeds > 0 && sweeps[i].failed == 0 {
				fmt.Printf("  %s: %s %s\n", m.Name, m.Bug, results[i].buildErr)
			}
		}
		return 1
	}
	fmt.Printf("all %d mutants killed\n", len(mutants))
	return 0
}

// propertyCount is the number of the property suite's tests (those without a suite prefix).
func propertyCount(o outcome) int {
	n := 0
	for t := range o.passed {
		if !strings.Contains(t, ".") {
			n++
		}
	}
	return n
}

// propertiesFailed is the number of the property suite's tests a mutant failed.
func propertiesFailed(o outcome) int {
	n := 0
	for t := range o.failed {
		if !strings.Contains(t, ".") {
			n++
		}
	}
	return n
}

// sweepOutcome is one run of the default sweep.
type sweepOutcome struct {
	seeds, failed int
	elapsed       time.Duration
}

// runSweep runs `simulate sweep --seeds n --no-shrink --format json` of the mutants build with
// RESTORESIM_MUTANT=name and counts the seeds whose record's result is "fail". Its exit status
// is 0 or 1 (some seed failed); anything else, or a record count other than n, is an error.
func runSweep(bin, dir, name string, n int) (sweepOutcome, error) {
	cmd := exec.Command(bin, "sweep", "--seeds", strconv.Itoa(n), "--no-shrink", "--format", "json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mutant.EnvVar+"="+name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sweepOutcome{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sweepOutcome{}, err
	}
	var o sweepOutcome
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec struct {
			Result string `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return o, fmt.Errorf("sweep with %s=%q: not a seed record: %v", mutant.EnvVar, name, err)
		}
		o.seeds++
		if rec.Result == "fail" {
			o.failed++
		}
	}
	err = cmd.Wait()
	o.elapsed = time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return o, fmt.Errorf("sweep with %s=%q: %v: %s", mutant.EnvVar, name, err, strings.TrimSpace(stderr.String()))
	}
	if o.seeds != n {
		return o, fmt.Errorf("sweep with %s=%q: %d records, want %d", mutant.EnvVar, name, o.seeds, n)
	}
	return o, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// refusesUnknown checks that the suite built with -tags mutants stops with exit status 2 and a
// one-line message when RESTORESIM_MUTANT names no mutant, instead of running the real model.
func refusesUnknown(bin, dir string) error {
	const bogus = "no-such-mutant"
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mutant.EnvVar+"="+bogus)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	msg := stderr.String()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, bogus) {
		return fmt.Errorf("the mutants build does not refuse %s=%s (exit %v, stderr %q)", mutant.EnvVar, bogus, err, msg)
	}
	return nil
}
