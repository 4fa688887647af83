package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/sim/sweep"
)

// parseRecord decodes one line of 'sweep --format json'.
func parseRecord(line []byte) (*sweep.Record, error) { return sweep.ParseRecord(line) }

// TestSummarizeRejectsWhatIsNotOneSweep: zero seeds, shards of another --flink or --steps and
// overlapping shards are errors (issue 16, items 3 and 4): exit 2, one line on stderr naming
// the field or the seed, nothing on stdout.
func TestSummarizeRejectsWhatIsNotOneSweep(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	shard := func(name string, args ...string) string {
		_, out := sweepOut(t, append([]string{"--seeds", "6", "--steps", "4", "--format", "json"}, args...)...)
		return write(name, out)
	}
	empty := write("empty.jsonl", "")
	blank := write("blank.jsonl", "\n  \n")
	s0 := shard("s0.jsonl", "--shard", "0/2")
	s1 := shard("s1.jsonl", "--shard", "1/2")
	s1old := shard("s1-1.10.1.jsonl", "--shard", "1/2", "--flink", "1.10.1")
	s1long := shard("s1-steps5.jsonl", "--shard", "1/2", "--steps", "5")
	all := shard("all.jsonl")
	for _, tc := range []struct {
		name, stdin, want string
		files             []string
	}{
		{"/dev/null", "", "no seed records in /dev/null (an empty or crashed shard?", []string{os.DevNull}},
		{"empty file", "", "no seed records in " + empty + " (", []string{empty}},
		{"blank lines", "", "no seed records in " + blank + ", " + empty + " (", []string{blank, empty}},
		{"empty stdin", "", "no seed records in stdin (", []string{"-"}},
		{"another --flink", "", "s1-1.10.1.jsonl:1: seed 1 has flink 1.10.1, but seed 0 (" + s0 + ":1) has flink 1.18: the shards of one sweep share --flink", []string{s0, s1old}},
		{"another --steps", "", "s1-steps5.jsonl:1: seed 1 has steps 5, but seed 0 (" + s0 + ":1) has steps 4: the shards of one sweep share --steps", []string{s0, s1long}},
		{"overlapping shards", "", "seed 0 is in both " + s0 + " and " + all + ": overlapping shards", []string{s0, s1, all}},
		{"a shard twice", "", "seed 0 is in both " + s0 + " and stdin: overlapping shards", []string{s0, "-"}},
	} {
		stdin := tc.stdin
		if tc.name == "a shard twice" {
			data, _ := os.ReadFile(s0)
			stdin = string(data)
		}
		code, stdout, stderr := runCLI(t, stdin, append([]string{"summarize"}, tc.files...)...)
		t.Run(tc.name, func(t *testing.T) { wantUsageError(t, tc.want, code, stdout, stderr) })
	}
	// The two halves of the same sweep are fine.
	if code, out, errs := runCLI(t, "", "summarize", s1, s0); code != 0 || errs != "" || !strings.HasPrefix(out, "seeds    6 (0..5)\n") {
		t.Errorf("summarize of both halves: exit %d, stderr %q:\n%s", code, errs, out)
	}
}

// FuzzSummarizeStdin runs 'simulate summarize -' on arbitrary input: it never panics, and it
// either summarizes (exit 0 or 1, nothing on stderr) or fails with the bad-input contract
// (exit 2, one line on stderr, nothing on stdout).
//
//	go test -run '^$' -fuzz FuzzSummarizeStdin -fuzztime 60s ./cmd/simulate
func FuzzSummarizeStdin(f *testing.F) {
	rec := func(seed uint64, result, violations string) string {
		return fmt.Sprintf(`{"seed":%d,"flink":"1.18","steps":40,"result":%q,"violations":[%s],"labels":["checkpoint"]}`+"\n", seed, result, violations)
	}
	f.Add("")
	f.Add("\n")
	f.Add(rec(0, "ok", "") + rec(1, "ok", ""))
	f.Add(rec(0, "ok", "") + rec(0, "ok", ""))
	f.Add(rec(3, "fail", `{"step":1,"invariant":"splits","detail":"x"}`) + rec(5, "known", `{"step":2,"invariant":"keyed-state","detail":"y","known":"FLINK-16638"}`))
	f.Add(rec(0, "ok", "") + strings.Replace(rec(1, "ok", ""), "1.18", "1.10.1", 1))
	f.Add(`{"seed":1}` + "\n")
	f.Add("{}{}\n[1]\n\x00")
	f.Fuzz(func(t *testing.T, in string) {
		code, stdout, stderr := runCLI(t, in, "summarize", "-")
		switch code {
		case 0, 1:
			if stderr != "" || !strings.HasPrefix(stdout, "seeds    ") {
				t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
			}
		case 2:
			if stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "simulate summarize: ") {
				t.Fatalf("exit 2, stdout %q, stderr %q; want one line on stderr only", stdout, stderr)
			}
		default:
			t.Fatalf("exit %d", code)
		}
	})
}

// TestShardFlowEndToEnd runs the shard → summarize flow of docs/kubernetes.md ("The same thing
// without Kubernetes") with real processes: the documented sweep command, fewer seeds, as one
// process per shard running at the same time, then 'simulate summarize' of their files, whose
// output and exit code must be the unsharded sweep's.
func TestShardFlowEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs sweeps as processes")
	}
	doc, err := os.ReadFile("../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^for i in ([0-9 ]+); do\n\s+simulate (sweep .*) > shard-\$i\.jsonl &\ndone\nwait\nsimulate summarize shard-\*\.jsonl\n`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/kubernetes.md has no local shard loop ('for i in …; do simulate sweep … > shard-$i.jsonl & done; wait; simulate summarize shard-*.jsonl')")
	}
	shards := strings.Fields(string(m[1]))
	args := strings.Fields(string(m[2]))
	const seeds = 12 // instead of the documented number
	seedsAt := -1
	for i, a := range args {
		if a == "--seeds" && i+1 < len(args) {
			seedsAt = i + 1
		}
	}
	if seedsAt < 0 || !strings.Contains(string(m[2]), fmt.Sprintf("--shard $i/%d ", len(shards))) {
		t.Fatalf("documented shard command %q: want --seeds N and --shard $i/%d", m[2], len(shards))
	}
	args[seedsAt] = fmt.Sprint(seeds)

	dir := t.TempDir()
	bin := filepath.Join(dir, "simulate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	type proc struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
	}
	var procs []*proc
	for _, i := range shards {
		a := make([]string, len(args))
		for k, s := range args {
			a[k] = strings.ReplaceAll(s, "$i", i)
		}
		out, err := os.Create(filepath.Join(dir, "shard-"+i+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: exec.Command(bin, a...)}
		p.cmd.Stdout, p.cmd.Stderr, p.cmd.Dir = out, &p.stderr, dir
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out.Close() // the child holds its own descriptor
		procs = append(procs, p)
	}
	for _, p := range procs {
		if err := p.cmd.Wait(); err != nil && p.cmd.ProcessState.ExitCode() != 1 || !onlyProgress(p.stderr.String()) {
			t.Fatalf("%s: %v, stderr %q", p.cmd, err, p.stderr.String())
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "shard-*.jsonl"))
	merged, mergedCode := runBin(t, bin, dir, append([]string{"summarize"}, files...)...)
	var unsharded []string
	for k := 0; k < len(args); k++ {
		switch args[k] {
		case "--shard", "--format":
			k++
		default:
			unsharded = append(unsharded, args[k])
		}
	}
	want, wantCode := runBin(t, bin, dir, unsharded...)
	if diff := cmp.Diff(want, merged); diff != "" || mergedCode != wantCode {
		t.Errorf("summarize of %d shard processes: exit %d, unsharded sweep: exit %d (-unsharded +merged):\n%s", len(files), mergedCode, wantCode, diff)
	}
	if !strings.HasPrefix(merged, fmt.Sprintf("seeds    %d (0..%d)\n", seeds, seeds-1)) {
		t.Errorf("merged summary:\n%s", merged)
	}
}

// runBin runs the built binary and returns its stdout and exit code (0 or 1; anything else, or
// a word on stderr but progress lines, fails the test).
func runBin(t *testing.T, bin, dir string, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr, c.Dir = &stdout, &stderr, dir
	err := c.Run()
	if code := c.ProcessState.ExitCode(); err != nil && code != 1 || !onlyProgress(stderr.String()) {
		t.Fatalf("simulate %q: %v, stderr %q", args, err, stderr.String())
	}
	return stdout.String(), c.ProcessState.ExitCode()
}

// onlyProgress reports whether stderr holds nothing but a sweep's progress lines (a slow
// machine may take more than their interval).
func onlyProgress(stderr string) bool {
	return regexp.MustCompile(`^(sweep: \d+ of \d+ seeds [^\n]*\n)*$`).MatchString(stderr)
}

// TestSummarizeBinaryQuoted: a file that is not JSON is refused quoting the start of the line,
// escaped and cut (issue 28: encoding/json showed the byte 0xab as the character «).
func TestSummarizeBinaryQuoted(t *testing.T) {
	code, out, errs := runCLI(t, "\xab\x99garbage\x1b[31m"+strings.Repeat("x", 500)+"\n", "summarize", "-")
	wantUsageError(t, `stdin:1: not a seed record of 'simulate sweep --format json': not JSON at byte 1 of the line: "\xab\x99garbage\x1b[31mxxxxxxxxxxxxxxxxxx"… (514 bytes)`, code, out, errs)
	code, out, errs = runCLI(t, `{"seed": 1, "flink": "1.18", "steps": 40, "result": "ok", "violations": [], "labels": [], ü}`+"\n", "summarize", "-")
	wantUsageError(t, `stdin:1: not a seed record of 'simulate sweep --format json': not JSON at byte 91 of the line: "{\"seed\": 1, \"flink\": \"1.18\", \"st"… (93 bytes)`, code, out, errs)
}

// TestKeygroupBinaryStdinQuoted: a key that is not an int is quoted escaped and cut (issue 28
// saw raw bytes; plots.KeyType.Hash quotes the key with excerpt.Quote since d954ad9).
func TestKeygroupBinaryStdinQuoted(t *testing.T) {
	code, out, errs := runCLI(t, "\x00\x01\xff\xfeabc\x1b[31m"+strings.Repeat("7", 100)+"\n", "keygroup", "--parallelism", "2", "--key-type", "int")
	wantUsageError(t, `simulate keygroup: key 1: key "\x00\x01\xff\xfeabc\x1b[31m7777777777777777777777777777"… (112 bytes) is not an int (a 32-bit integer)`, code, out, errs)
}

// TestSummarizeCrossVersionShards: the shards of 'sweep --flink 2.3,master --format json' merge
// into the unsharded cross-version sweep's text and exit code (issue 28: summarize refused them
// with `json: unknown field "records"`).
func TestSummarizeCrossVersionShards(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sweep", "--flink", "2.3,master", "--start", "10", "--seeds", "9", "--steps", "26", "--workers", "1"} // seeds 10 and 18 differ
	wantCode, want, _ := runCLI(t, "", base...)
	var files []string
	for i := range 3 {
		code, out, errs := runCLI(t, "", append(base, "--shard", fmt.Sprintf("%d/3", i), "--format", "json")...)
		if code > 1 || errs != "" {
			t.Fatalf("shard %d: exit %d, %s", i, code, errs)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	code, got, errs := runCLI(t, "", append([]string{"summarize"}, files[2], files[0], files[1])...)
	if code != wantCode || errs != "" || got != want {
		t.Errorf("summarize: exit %d (want %d), stderr %q, output:\n%s\nwant:\n%s", code, wantCode, errs, got, want)
	}
}
