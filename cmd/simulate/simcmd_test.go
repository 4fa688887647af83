package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
)

func TestRunSameSeedSameBytes(t *testing.T) {
	for _, flink := range []string{"1.18", "1.10.1"} {
		for _, format := range []string{"text", "json"} {
			args := []string{"run", "--seed", "9", "--flink", flink, "--format", format}
			code1, out1, err1 := runCLI(t, "", args...)
			code2, out2, err2 := runCLI(t, "", args...)
			if diff := cmp.Diff(out1, out2); diff != "" || code1 != code2 || err1 != err2 {
				t.Errorf("%v: two runs differ (codes %d, %d; stderr %q, %q) (-first +second):\n%s", args, code1, code2, err1, err2, diff)
			}
			if err1 != "" {
				t.Errorf("%v: stderr %q, want nothing", args, err1)
			}
		}
	}
}

func TestRunTextShape(t *testing.T) {
	code, out, _ := runCLI(t, "", "run", "--seed", "12", "--steps", "7")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "seed 12 flink 1.18" {
		t.Errorf("first line %q, want %q", lines[0], "seed 12 flink 1.18")
	}
	if !strings.HasPrefix(lines[1], "job ") || !strings.Contains(lines[1], " -> started") {
		t.Errorf("second line %q, want the job line", lines[1])
	}
	p := sim.Generate(12, model.Flink118, 7)
	for i, s := range p.Steps {
		if !strings.HasPrefix(lines[2+i], s.String()+" -> ") {
			t.Errorf("line %d %q, want step %d %q with its outcome", 2+i, lines[2+i], i, s)
		}
	}
	checkVerdict(t, code, out, "simulate run --seed 12 --flink 1.18 --steps 7")
}

// checkVerdict checks that the exit code agrees with the verdict line and that a failing or
// known outcome prints exactly one replay command.
func checkVerdict(t *testing.T, code int, out, replay string) {
	t.Helper()
	fail := strings.Contains(out, "\n# FAIL: ")
	ok := strings.HasSuffix(out, "\n# ok: every invariant held\n")
	known := strings.Contains(out, "\n# known: ")
	switch {
	case fail && code != 1, !fail && code != 0, !fail && !ok && !known:
		t.Errorf("exit code %d does not agree with the verdict (fail %t, ok %t, known %t):\n%s", code, fail, ok, known, out)
	}
	n := strings.Count(out, "# To reproduce: ")
	if ok && n != 0 || !ok && (n != 1 || !strings.HasSuffix(out, "# To reproduce: "+replay+"\n")) {
		t.Errorf("%d replay commands, want %s once at the end:\n%s", n, replay, out)
	}
}

func TestRunDifferentSeedsDiffer(t *testing.T) {
	_, a, _ := runCLI(t, "", "run", "--seed", "3", "--steps", "10")
	_, b, _ := runCLI(t, "", "run", "--seed", "4", "--steps", "10")
	if a == b {
		t.Errorf("seeds 3 and 4 print the same output:\n%s", a)
	}
}

// TestRunVerdicts runs seeds of both versions and checks every output's verdict and exit code,
// and that json and text agree.
func TestRunVerdicts(t *testing.T) {
	seen := map[int]int{}
	for _, flink := range []string{"1.18", "1.10.1"} {
		for seed := range 10 {
			s := fmt.Sprint(seed)
			code, out, _ := runCLI(t, "", "run", "--seed", s, "--flink", flink, "--steps", "30")
			seen[code]++
			checkVerdict(t, code, out, "simulate run --seed "+s+" --flink "+flink+" --steps 30")
			jcode, jout, _ := runCLI(t, "", "run", "--seed", s, "--flink", flink, "--steps", "30", "--format", "json")
			if jcode != code {
				t.Errorf("seed %s flink %s: json exit %d, text exit %d", s, flink, jcode, code)
			}
			lines := strings.Split(strings.TrimSuffix(jout, "\n"), "\n")
			var last sweep.ResultLine
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatalf("last json line %q: %v", lines[len(lines)-1], err)
			}
			want := map[int]string{0: "ok|known", 1: "fail"}[code]
			if !strings.Contains(want, last.Result) || last.Seed != uint64(seed) {
				t.Errorf("seed %s flink %s: final json %+v, want result %s", s, flink, last, want)
			}
		}
	}
	t.Logf("exit codes over 20 runs: %v", seen)
}

func TestRunJSONLines(t *testing.T) {
	_, out, _ := runCLI(t, "", "run", "--seed", "3", "--steps", "5", "--format", "json")
	_, text, _ := runCLI(t, "", "run", "--seed", "3", "--steps", "5")
	textLines := strings.Split(text, "\n")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines[:len(lines)-1] {
		var tl sweep.TraceLine
		if err := json.Unmarshal([]byte(l), &tl); err != nil {
			t.Fatal(err)
		}
		if want := (sweep.TraceLine{Seed: 3, Step: i - 1, Line: textLines[1+i]}); tl != want {
			t.Errorf("json line %d (-want +got):\n%s", i, cmp.Diff(want, tl))
		}
	}
}

func TestReplayEqualsRun(t *testing.T) {
	dir := t.TempDir()
	for _, flink := range []string{"1.18", "1.10.1"} {
		for _, seed := range []uint64{0, 4, 9} {
			v, _ := model.ParseFlinkVersion(flink)
			rendered := filepath.Join(dir, fmt.Sprintf("plan-%d-%s.txt", seed, flink))
			if err := os.WriteFile(rendered, []byte(sim.Generate(seed, v, 25).Render()), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json"} {
				wantCode, want, _ := runCLI(t, "", "run", "--seed", fmt.Sprint(seed), "--flink", flink, "--steps", "25", "--format", format)
				code, got, errs := runCLI(t, "", "replay", "--format", format, rendered)
				if diff := cmp.Diff(want, got); diff != "" || code != wantCode || errs != "" {
					t.Errorf("seed %d %s %s: replay of the rendered plan: exit %d (want %d), stderr %q, (-run +replay):\n%s", seed, flink, format, code, wantCode, errs, diff)
				}
				if format != "text" {
					continue
				}
				// A saved run output replays to itself.
				saved := filepath.Join(dir, "saved.txt")
				if err := os.WriteFile(saved, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				code, got, _ = runCLI(t, "", "replay", saved)
				if diff := cmp.Diff(want, got); diff != "" || code != wantCode {
					t.Errorf("seed %d %s: replay of the saved output: exit %d (want %d) (-run +replay):\n%s", seed, flink, code, wantCode, diff)
				}
			}
		}
	}
}

func TestReplayEditedPlanNamesTheFile(t *testing.T) {
	text := sim.Generate(4, model.Flink118, 6).Render() + "process n=3\n"
	path := filepath.Join(t.TempDir(), "my plan.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "replay", path)
	if !strings.HasPrefix(out, "seed 4 flink 1.18\n") {
		t.Errorf("output starts %q, want the seed first", out[:min(len(out), 40)])
	}
	checkVerdict(t, code, out, "simulate replay '"+path+"'")
}

// sweepOut runs a sweep in-process and fails the test on a usage error or stderr output.
func sweepOut(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"sweep"}, args...)...)
	if code == 2 || errs != "" {
		t.Fatalf("sweep %v: exit %d, stderr %q", args, code, errs)
	}
	return code, out
}

func TestSweepSameForAnyWorkers(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		args := []string{"--seeds", "40", "--flink", "1.10.1", "--steps", "12", "--format", format}
		code1, one := sweepOut(t, append(args, "--workers", "1")...)
		code2, two := sweepOut(t, append(args, "--workers", "2")...)
		if diff := cmp.Diff(one, two); diff != "" || code1 != code2 {
			t.Errorf("%s: --workers 1 exit %d, 2 exit %d (-1 +2):\n%s", format, code1, code2, diff)
		}
		if format == "json" {
			continue
		}
		code7, seven := sweepOut(t, append(args, "--workers", "7")...)
		if diff := cmp.Diff(one, seven); diff != "" || code1 != code7 {
			t.Errorf("%s: --workers 1 exit %d, 7 exit %d (-1 +7):\n%s", format, code1, code7, diff)
		}
	}
}

// TestSweepMatchesRun checks each json record against 'simulate run' of its seed.
func TestSweepMatchesRun(t *testing.T) {
	code, out := sweepOut(t, "--seeds", "6", "--start", "7", "--flink", "1.10.1", "--steps", "30", "--format", "json")
	anyFail := false
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rec, err := sweep.ParseRecord([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if rec.Seed != uint64(7+i) {
			t.Errorf("line %d: seed %d, want %d (seed order)", i, rec.Seed, 7+i)
		}
		_, jout, _ := runCLI(t, "", "run", "--seed", fmt.Sprint(rec.Seed), "--flink", "1.10.1", "--steps", "30", "--format", "json")
		lines := strings.Split(strings.TrimSuffix(jout, "\n"), "\n")
		var last sweep.ResultLine
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
		if last.Result != rec.Result || last.Violations+last.Known != len(rec.Violations) {
			t.Errorf("seed %d: sweep says %s with %d violations, run says %+v", rec.Seed, rec.Result, len(rec.Violations), last)
		}
		want := sim.Labels(sim.Generate(rec.Seed, model.Flink1101, 30))
		if diff := cmp.Diff(want, rec.Labels); diff != "" {
			t.Errorf("seed %d labels (-want +got):\n%s", rec.Seed, diff)
		}
		anyFail = anyFail || rec.Failed()
	}
	if (code == 1) != anyFail {
		t.Errorf("exit %d, but a seed failed: %t", code, anyFail)
	}
}

func TestSummarizeShardsEqualsUnsharded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := []string{"--seeds", "40", "--start", "100", "--flink", "1.10.1", "--steps", "12"}
	wantCode, want := sweepOut(t, base...)
	var files []string
	for _, i := range []int{2, 0, 1} { // any order
		_, out := sweepOut(t, append(base, "--shard", fmt.Sprintf("%d/3", i), "--format", "json")...)
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	code, got, errs := runCLI(t, "", append([]string{"summarize"}, files...)...)
	if diff := cmp.Diff(want, got); diff != "" || code != wantCode || errs != "" {
		t.Errorf("summarize of 3 shards: exit %d (want %d), stderr %q (-unsharded +merged):\n%s", code, wantCode, errs, diff)
	}
	if !strings.HasPrefix(got, "seeds    40 (100..139)\nflink    1.10.1\nsteps    12\n") {
		t.Errorf("summary header:\n%s", got)
	}
	// The unsharded json output summarizes to the same text too, read from stdin.
	_, all := sweepOut(t, append(base, "--format", "json")...)
	code, got, _ = runCLI(t, all, "summarize", "-")
	if diff := cmp.Diff(want, got); diff != "" || code != wantCode {
		t.Errorf("summarize of the unsharded json: exit %d (want %d) (-sweep +summarize):\n%s", code, wantCode, diff)
	}
}

func TestSweepOutSavesFailures(t *testing.T) {
	// No seed of the unmodified model fails, so make seed 70 fail: a violation added to its
	// outcome, as a model bug would.
	defer func(f func(uint64, model.FlinkVersion, int) sim.Outcome) { sweepRunSeed = f }(sweepRunSeed)
	sweepRunSeed = func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
		o := sim.RunSeed(seed, v, steps)
		if seed == 70 {
			o.Violations = append(o.Violations, sim.Violation{Step: 1, Invariant: "splits", Detail: "injected by the test"})
		}
		return o
	}
	dir := filepath.Join(t.TempDir(), "new", "failures")
	code, summary := sweepOut(t, "--seeds", "12", "--start", "66", "--flink", "1.18", "--steps", "40", "--out", dir)
	listed := regexp.MustCompile(`(?m)^  simulate run --seed (\d+) --flink 1.18 --steps 40$`).FindAllStringSubmatch(summary, -1)
	if len(listed) != 1 || listed[0][1] != "70" || code != 1 {
		t.Fatalf("exit %d, failing seeds listed %v; want exit 1 and seed 70 only\n%s", code, listed, summary)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"seed-70-flink-1.18-steps-40.txt"}, names); diff != "" {
		t.Errorf("files in --out (-want +got):\n%s", diff)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "seed-70-flink-1.18-steps-40.txt"))
	if err != nil || !strings.Contains(string(saved), "injected by the test") {
		t.Errorf("the saved file does not record the violation (err %v):\n%s", err, saved)
	}
	// The file replays to the run of its seed (the real model: the injected violation is gone).
	rcRun, wantOut, _ := runCLI(t, "", "run", "--seed", "70", "--flink", "1.18")
	rc, got, _ := runCLI(t, "", "replay", filepath.Join(dir, "seed-70-flink-1.18-steps-40.txt"))
	if diff := cmp.Diff(wantOut, got); diff != "" || rc != rcRun {
		t.Errorf("replay: exit %d, run: exit %d (-run +replay):\n%s", rc, rcRun, diff)
	}
}

func TestSaveFailure(t *testing.T) {
	p := sim.Generate(21, model.Flink118, 5)
	o := sweep.Report{Outcome: sim.RunSafe(p), Replay: sweep.RunCommand(21, model.Flink118, 5)}
	o.Violations = append(o.Violations, sim.Violation{Step: 2, Invariant: "splits", Detail: "made up"})
	dir := t.TempDir()
	if err := saveFailure(dir, o); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "seed-21-flink-1.18-steps-5.txt" {
		t.Fatalf("files %v, want only seed-21-flink-1.18-steps-5.txt (no temporary left)", entries)
	}
	data, _ := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	text := string(data)
	for _, want := range []string{
		"# To reproduce: simulate run --seed 21 --flink 1.18 --steps 5",
		"\n# # violation at step 2 (" + p.Steps[2].String() + "): splits: made up\n",
		"\n# " + o.Trace[0] + "\n",
		"\n\n" + p.Render(),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("saved file lacks %q:\n%s", want, text)
		}
	}
	got, err := readScenario(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p.Render(), got.Render()); diff != "" {
		t.Errorf("saved file parses to another plan (-want +got):\n%s", diff)
	}
}

func TestSweepProgressOnlyOnTerminal(t *testing.T) {
	args := []string{"--seeds", "8", "--workers", "2"}
	want, _ := sweepOutEnv(t, false, args)
	got, errs := sweepOutEnv(t, true, args)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout with a progress bar (-without +with):\n%s", diff)
	}
	if !strings.Contains(errs, "sweep") {
		t.Errorf("stderr on a terminal %q, want a progress bar", errs)
	}
	// A shard with no seeds draws an empty bar and prints an empty summary.
	got, _ = sweepOutEnv(t, true, []string{"--seeds", "1", "--shard", "1/2"})
	if !strings.HasPrefix(got, "seeds    0\nflink    -\nsteps    -\n") || !strings.HasSuffix(got, "ok: no seed failed (0 with known-issue findings only)\n") {
		t.Errorf("summary of an empty shard:\n%s", got)
	}
}

func sweepOutEnv(t *testing.T, terminal bool, args []string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, stderrIsTerminal: terminal}
	if code := commands["sweep"].run(e, args); code == 2 {
		t.Fatalf("exit 2: %s", errb.String())
	}
	if !terminal && errb.Len() > 0 {
		t.Errorf("stderr %q, want nothing when it is not a terminal", errb.String())
	}
	return out.String(), errb.String()
}

func TestSimBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	_ = os.WriteFile(bad, []byte("seed 1\nprocess n=3\n"), 0o644)
	badJSON := filepath.Join(dir, "bad.jsonl")
	_ = os.WriteFile(badJSON, []byte(`{"seed":1,"flink":"1.18","steps":40,"result":"ok","violations":[],"labels":[]}`+"\n{oops\n"), 0o644)
	lying := filepath.Join(dir, "lying.jsonl")
	_ = os.WriteFile(lying, []byte(`{"seed":1,"flink":"1.18","steps":40,"result":"ok","violations":[{"step":1,"invariant":"splits","detail":"x"}],"labels":[]}`+"\n"), 0o644)
	file := filepath.Join(dir, "file")
	_ = os.WriteFile(file, nil, 0o644)
	// A step the job cannot take: a rule update in a job without broadcast state.
	noBroadcast := filepath.Join(dir, "no-broadcast.txt")
	_ = os.WriteFile(noBroadcast, []byte("job keys=int/uniform/10 splits=1 broadcast=false source=p1/uid:s keyed=p2/uid:k\nprocess n=3\nbroadcast n=1\n"), 0o644)
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"--seed is required", []string{"run"}},
		{`not an unsigned 64-bit integer: "x"`, []string{"run", "--seed", "x"}},
		{`not an unsigned 64-bit integer: "-1"`, []string{"run", "--seed=-1"}},
		{"unexpected argument", []string{"run", "--seed", "1", "extra"}},
		{"unknown Flink version", []string{"run", "--seed", "1", "--flink", "1.17"}},
		{"--steps 0 is out of range", []string{"run", "--seed", "1", "--steps", "0"}},
		{"--steps -3 is out of range", []string{"run", "--seed", "1", "--steps=-3"}},
		{"--steps 5001 is out of range (want 1..5000)", []string{"run", "--seed", "1", "--steps", "5001"}},
		{"--steps 100000 is out of range (want 1..5000)", []string{"sweep", "--seeds", "1", "--steps", "100000"}},
		{`not an integer: "many"`, []string{"run", "--seed", "1", "--steps", "many"}},
		{`unknown --format "yaml"`, []string{"run", "--seed", "1", "--format", "yaml"}},
		{"flag provided but not defined", []string{"run", "--seed", "1", "--bogus"}},
		{"want exactly one scenario FILE", []string{"replay"}},
		{"no such file", []string{"replay", filepath.Join(dir, "missing.txt")}},
		{"a 'job' line must come before the steps", []string{"replay", bad}},
		{"no 'job' line", []string{"replay", file}},
		{"line 3: broadcast: the job has no broadcast state (broadcast=false): no rule update reaches it", []string{"replay", noBroadcast}},
		{"is a directory", []string{"replay", dir}},
		{`unknown --format "xml"`, []string{"replay", "--format", "xml", bad}},
		{"--seeds -5 is out of range", []string{"sweep", "--seeds=-5"}},
		{"--seeds 0 is out of range", []string{"sweep", "--seeds", "0"}},
		{"--workers 0 is out of range", []string{"sweep", "--workers", "0"}},
		{"--workers -2 is out of range", []string{"sweep", "--workers=-2"}},
		{`--shard "3/2": i must be in 0..1`, []string{"sweep", "--shard", "3/2"}},
		{`--shard "x" is not i/n`, []string{"sweep", "--shard", "x"}},
		{`--shard "1/0": n must be`, []string{"sweep", "--shard", "1/0"}},
		{`--shard "-1/2": i must be`, []string{"sweep", "--shard=-1/2"}},
		{"unknown Flink version", []string{"sweep", "--flink", "2.4"}},
		{`unknown --format "csv"`, []string{"sweep", "--format", "csv"}},
		{"runs past the largest seed", []string{"sweep", "--start", "18446744073709551615", "--seeds", "2"}},
		{`not an unsigned 64-bit integer: "s"`, []string{"sweep", "--start", "s"}},
		{"--out", []string{"sweep", "--seeds", "1", "--out", filepath.Join(file, "sub")}},
		{"unexpected argument", []string{"sweep", "10"}},
		{"want at least one FILE", []string{"summarize"}},
		{"no such file", []string{"summarize", filepath.Join(dir, "missing.jsonl")}},
		{"bad.jsonl:2: not a seed record", []string{"summarize", badJSON}},
		{`result "ok" does not match its violations (want "fail")`, []string{"summarize", lying}},
	} {
		code, out, errs := runCLI(t, "", tc.args...)
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { wantUsageError(t, tc.want, code, out, errs) })
	}
}

func TestSeedFlagAcceptsFullRange(t *testing.T) {
	code, out, errs := runCLI(t, "", "run", "--seed", "18446744073709551615", "--steps", "3")
	if code == 2 || !strings.HasPrefix(out, "seed 18446744073709551615 flink 1.18\n") {
		t.Errorf("exit %d, stderr %q, output:\n%s", code, errs, out)
	}
}

// BenchmarkSweep measures scenarios per second of a 40-seed sweep on 1 and 2 workers.
func BenchmarkSweep(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			const seeds = 40
			for range b.N {
				var out, errb bytes.Buffer
				e := &env{stdout: &out, stderr: &errb}
				if code := commands["sweep"].run(e, []string{"--seeds", fmt.Sprint(seeds), "--workers", fmt.Sprint(workers)}); code == 2 {
					b.Fatal(errb.String())
				}
			}
			b.ReportMetric(float64(seeds*b.N)/b.Elapsed().Seconds(), "scenarios/s")
		})
	}
}
