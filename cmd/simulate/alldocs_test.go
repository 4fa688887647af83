package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model/savepoint"
)

// docSkips are the transcripts TestEveryDocTranscript does not run itself, each with the test
// that checks it or the reason it cannot run in a test (keyed by "file: command").
var docSkips = map[string]string{
	`docs/reference.md: differential --flink 1.18 --cases 200 --seed 1`:                   "runs Flink's classes (Java and Flink's sources); TestDifferentialDocTranscript checks it",
	`docs/simulate.md: replay seed18.txt | diff - seed18.txt && echo "replay: identical"`: "a shell list; TestReplayEqualsRun checks that replay reproduces run",
	`docs/simulate.md: summarize shard-*.jsonl > merged.txt; echo "summarize exit $?"`:    "needs the sharded sweep of the line before it (a shell loop); TestSummarizeShardsEqualsUnsharded checks the merge",
}

// docPipes stand in for the python3 programs the docs pipe JSON into: each takes the output of
// the command before the pipe and prints what the program prints.
var docPipes = map[string]func(t *testing.T, out string) string{
	"docs/plan.md: plan kafka-enum1.metadata --parallelism 5 --format json | python3 -c '": func(t *testing.T, out string) string {
		var pl savepoint.RestorePlan
		if err := json.Unmarshal([]byte(out), &pl); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, o := range pl.Operators {
			if strings.HasPrefix(o.OperatorID, "cb16") {
				for _, s := range o.Subtasks {
					fmt.Fprintf(&b, "%d [%d, %d] %s\n", s.Index, s.KeyGroups[0], s.KeyGroups[1], pyPairs(s.ManagedOperatorState["SourceReaderState"].Pairs))
				}
			}
		}
		return b.String()
	},
	"docs/plan.md: plan kafka-enum1.metadata --parallelism 2 --format json | python3 -c '": func(t *testing.T, out string) string {
		var pl savepoint.RestorePlan
		if err := json.Unmarshal([]byte(out), &pl); err != nil {
			t.Fatal(err)
		}
		var src savepoint.OperatorPlan
		for _, o := range pl.Operators {
			if o.OperatorID == "cb16aa5adb311e8ac72482def19accbe" {
				src = o
			}
		}
		src.Subtasks = src.Subtasks[:1]
		pl.Operators = []savepoint.OperatorPlan{src}
		b, err := json.MarshalIndent(&pl, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	},
}

// pyPairs prints pairs as Python prints a list of lists.
func pyPairs(pairs [][2]int) string {
	var parts []string
	for _, p := range pairs {
		parts = append(parts, fmt.Sprintf("[%d, %d]", p[0], p[1]))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TestEveryDocTranscript finds every `$ simulate …` line of README.md and docs/*.md and runs it
// in-process, comparing its output (stderr when it prints nothing on stdout) with the lines the
// doc shows under it, so no transcript can go stale. A file argument ending in .metadata is
// taken from ../shared/flink-metadata (real, then recent); `| head -N`, `| tail -N` and
// `> /dev/null` are applied; --out writes into a temporary directory. A line it cannot run
// must be in docSkips with the test that checks it or the reason; a JSON piped into a python3
// program is checked through its Go stand-in in docPipes. Files the docs show with `$ cat` are
// written before the lines below them run. The mutant is chosen once per process, at start-up,
// so the lines of a block that starts with mutantBuild run in a shell instead (see
// runMutantLine).
func TestEveryDocTranscript(t *testing.T) {
	real := realmeta.Sub(t, "real")
	recent, _ := realmeta.Find("recent")
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append([]string{"../../README.md"}, docs...)
	sort.Strings(docs[1:])
	for i, d := range docs {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = abs
	}
	root, _ := filepath.Abs("../..")
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	setUpDocFixtures(t, tmp, real)
	t.Chdir(work)
	checked, seen := 0, map[string]bool{}
	mutantBin, inMutantBlock, skipMutantBlock := "", false, false
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(path, root+string(os.PathSeparator))
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			switch {
			case skipMutantBlock:
				skipMutantBlock = !strings.HasPrefix(line, "```")
				continue
			case line == mutantBuild && testing.Short():
				// -short leaves the mutant blocks out, as it does the sweep lines (they build a
				// second binary and sweep 200 seeds).
				skipMutantBlock = true
				continue
			case line == mutantBuild:
				if mutantBin == "" {
					mutantBin = buildMutant(t, root, work)
				}
				inMutantBlock = true
				continue
			case strings.HasPrefix(line, "```"):
				inMutantBlock = false
			case inMutantBlock && strings.HasPrefix(line, "$ "):
				runMutantLine(t, fmt.Sprintf("%s:%d", name, i+1), line[2:], lines[i+1:], work)
				checked++
				continue
			case strings.HasPrefix(line, "$ ") && strings.Contains(line, "simulate-mutant"):
				t.Errorf("%s:%d: `%s` is not in a block that starts with `%s`, so it is not checked", name, i+1, line[2:], mutantBuild[2:])
			}
			if f, ok := strings.CutPrefix(line, "$ cat "); ok && !strings.ContainsAny(f, " |<>") {
				// A file the doc shows: the commands below it read it.
				var content []string
				for _, l := range lines[i+1:] {
					if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
						break
					}
					content = append(content, l)
				}
				if err := os.WriteFile(f, []byte(strings.Join(content, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			cmdLine, ok := strings.CutPrefix(line, "$ simulate ")
			if !ok {
				continue
			}
			key := name + ": " + cmdLine
			seen[key] = true
			if _, skip := docSkips[key]; skip {
				continue
			}
			if testing.Short() && strings.HasPrefix(cmdLine, "sweep") {
				continue
			}
			pipe := docPipes[key]
			below := lines[i+1:]
			runLine := cmdLine
			if pipe != nil {
				// Skip the program's lines, up to the one that closes its quote.
				for len(below) > 0 && !strings.HasSuffix(below[0], "'") {
					below = below[1:]
				}
				below = below[1:]
				runLine, _, _ = strings.Cut(cmdLine, " | python3")
			}
			var want []string
			for _, l := range below {
				if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
					break
				}
				want = append(want, l)
			}
			args, head, tail, discard, stdin, stdout, ok := docCommand(runLine, real, recent, tmp)
			if !ok {
				t.Errorf("%s:%d: cannot run `simulate %s`: add it to docSkips with the test that checks it", name, i+1, cmdLine)
				continue
			}
			wantCode := -1
			if n := len(want); n > 0 {
				if c, found := strings.CutPrefix(want[n-1], "(exit "); found {
					wantCode, _ = strconv.Atoi(strings.TrimSuffix(c, ")"))
					want = want[:n-1]
				}
			}
			code, out, errs := runCLI(t, stdin, args...)
			if wantCode >= 0 && code != wantCode {
				t.Errorf("%s:%d: `simulate %s` exits %d, the doc shows %d", name, i+1, cmdLine, code, wantCode)
			}
			if stdout != "" {
				if err := os.WriteFile(stdout, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if discard || stdout != "" {
				out = ""
			}
			if pipe != nil {
				out = pipe(t, out)
			}
			// The doc ran in /tmp/tmp.vJ1vak8J5z (plan names the checkpoint directory).
			out = strings.ReplaceAll(out, work, "/tmp/tmp.vJ1vak8J5z")
			if out == "" {
				out = errs
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				got = nil
			}
			if head > 0 && len(got) > head {
				got = got[:head]
			}
			if tail > 0 && len(got) > tail {
				got = got[len(got)-tail:]
			}
			if len(want) > 0 && want[len(want)-1] == "" && (len(got) == 0 || got[len(got)-1] != "") {
				want = want[:len(want)-1]
			}
			if elidedMatch(want, got) {
				got = want
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s:%d: `simulate %s` prints something else than the doc shows (-doc +now):\n%s", name, i+1, cmdLine, d)
			}
			checked++
		}
	}
	for k := range docSkips {
		if !seen[k] {
			t.Errorf("docSkips names %q, which no doc shows", k)
		}
	}
	if checked < 60 {
		t.Errorf("only %d transcripts checked", checked)
	}
}

// mutantBuild is the doc line that builds the mutants build of the simulator.
const mutantBuild = "$ go build -tags mutants -o simulate-mutant ./cmd/simulate"

// buildMutant runs mutantBuild from the module root, writing simulate-mutant into work (a
// temporary directory), once per test run.
func buildMutant(t *testing.T, root, work string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the mutant-build transcripts of docs/simulate.md need `go` on PATH to build simulate-mutant: %v", err)
	}
	bin := filepath.Join(work, "simulate-mutant")
	cmd := exec.Command("go", "build", "-tags", "mutants", "-o", bin, "./cmd/simulate")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mutantBuild, err, out)
	}
	return bin
}

// runMutantLine runs a line of a mutant-build block (`RESTORESIM_MUTANT=NAME ./simulate-mutant
// …`, and the grep, head, tail, cut and ls that read what it wrote) with sh in work, without a
// RESTORESIM_MUTANT of the test's own, and compares its output (stderr when it prints nothing
// on stdout) with the lines the doc shows under it; the shell does the pipes, redirections,
// `; echo $?` and `# comment`.
func runMutantLine(t *testing.T, at, line string, below []string, work string) {
	t.Helper()
	var want []string
	for _, l := range below {
		if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
			break
		}
		want = append(want, l)
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = work
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "RESTORESIM_MUTANT=") })
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // the exit code shows only where the doc echoes it
	out := stdout.String()
	if out == "" {
		out = stderr.String()
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		got = nil
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: `%s` prints something else than the doc shows (-doc +now):\n%s", at, line, d)
	}
}

// elidedMatch reports whether got matches want where want elides lines with "..." lines:
// the parts between them appear in got in order, the first at its start and the last at its
// end.
func elidedMatch(want, got []string) bool {
	if !slices.ContainsFunc(want, func(l string) bool { return strings.TrimSpace(l) == "..." }) {
		return false
	}
	var parts [][]string
	part := []string{}
	for _, l := range want {
		if strings.TrimSpace(l) == "..." {
			parts, part = append(parts, part), []string{}
			continue
		}
		part = append(part, l)
	}
	parts = append(parts, part)
	pos := 0
	for i, p := range parts {
		switch {
		case i == 0:
			if len(got) < len(p) || !slices.Equal(got[:len(p)], p) {
				return false
			}
			pos = len(p)
		case i == len(parts)-1:
			return len(got)-len(p) >= pos && slices.Equal(got[len(got)-len(p):], p)
		default:
			k := pos
			for k+len(p) <= len(got) && !slices.Equal(got[k:k+len(p)], p) {
				k++
			}
			if k+len(p) > len(got) {
				return false
			}
			pos = k + len(p)
		}
	}
	return true
}

// docCommand turns a doc's command line into arguments: quotes are removed, a trailing
// "# comment" dropped, .metadata files resolved, --out redirected into tmp; ok is false for
// unquoted is line without its '…' and "…" parts (an unterminated quote runs to the end).
func unquoted(line string) string {
	var b strings.Builder
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
		case r == '"' || r == '\'':
			quote = r
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// what it cannot run (stdin redirection, other pipes, shell lists, python).
func docCommand(line, real, recent, tmp string) (args []string, head, tail int, discard bool, stdin, stdout string, ok bool) {
	if c, _, found := strings.Cut(line, "  #"); found {
		line = strings.TrimSpace(c)
	}
	if c, found := strings.CutSuffix(line, " > /dev/null"); found {
		line, discard = c, true
	}
	if c, n, found := strings.Cut(line, " | head -"); found {
		line = c
		if head, _ = strconv.Atoi(n); head == 0 {
			return nil, 0, 0, false, "", "", false
		}
	} else if c, n, found := strings.Cut(line, " | tail -"); found {
		line = c
		if tail, _ = strconv.Atoi(n); tail == 0 {
			return nil, 0, 0, false, "", "", false
		}
	}
	if c, f, found := strings.Cut(line, " < "); found && !strings.ContainsAny(f, " <>|") {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, 0, false, "", "", false
		}
		line, stdin = c, string(b)
	}
	if c, f, found := strings.Cut(line, " > "); found && !strings.ContainsAny(f, " <>|") {
		line, stdout = c, f
	}
	if strings.ContainsAny(unquoted(line), "<>|;&$") { // quoted, as in 'row<INT,STRING>', they are plain text
		return nil, 0, 0, false, "", "", false
	}
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, 0, 0, false, "", "", false
	}
	if inWord {
		args = append(args, cur.String())
	}
	for i, a := range args {
		switch {
		case strings.HasSuffix(a, ".metadata") && !strings.Contains(a, "/"):
			if _, err := os.Stat(a); err == nil {
				continue
			}
			p := filepath.Join(real, a)
			if _, err := os.Stat(p); err != nil && recent != "" {
				p = filepath.Join(recent, a)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, 0, 0, false, "", "", false
			}
			if err := os.WriteFile(a, b, 0o644); err != nil {
				return nil, 0, 0, false, "", "", false
			}
		case i > 0 && args[i-1] == "--out":
			args[i] = filepath.Join(tmp, filepath.Base(a))
		}
	}
	return args, head, tail, discard, stdin, stdout, true
}

// setUpDocFixtures makes tmp/work, the directory the docs' commands run in, with the files
// they name that no `$ cat` shows: checkpoint directories holding real files, a truncated
// file, the key and weight samples of docs/skew.md and the damaged scenario of
// docs/simulate.md; tmp/shared is the shared directory (README names ../shared/…).
func setUpDocFixtures(t *testing.T, tmp, real string) {
	t.Helper()
	work := filepath.Join(tmp, "work")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(real, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	keys := &strings.Builder{}
	for i := 1; i <= 10000; i++ {
		keys.WriteString(strconv.Itoa(i) + "\n")
	}
	keys.WriteString(strings.Repeat("42\n", 3000))
	files := map[string][]byte{
		"chk-1/_metadata":    read("kafka-enum1.metadata"),
		"sp/_metadata":       read("type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-savepoint-native.metadata"),
		"truncated.metadata": read("kafka-enum1.metadata")[:500],
		"keys.txt":           []byte(keys.String()),
		"weights.csv":        []byte("key,weight\nalice,120\nbob,80\ncarol,75\ndave,60\nerin,10\n"),
		"bad.txt":            []byte("seed 1\nprocess n=3\n"),
		// A checkpoint root for --latest (docs/inspect.md): chk-12 is in progress.
		"checkpoints/chk-2/_metadata":      read("stateful-scala-udf-migration-itcase-flink1.15-rocksdb-savepoint.metadata"),
		"checkpoints/chk-9/_metadata":      read("target.test-classes.new-stateful-udf-migration-itcase-flink1.4-savepoint.metadata"),
		"checkpoints/chk-11/_metadata":     read("target.test-classes.new-stateful-udf-migration-itcase-flink1.6-rocksdb-savepoint.metadata"),
		"checkpoints/chk-12/4f1a-op-state": []byte("state of a checkpoint in progress"),
		"checkpoints/shared/0d1f-sst":      []byte("shared state"),
	}
	for name, b := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(work, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(real), filepath.Join(tmp, "shared", "flink-metadata")); err != nil {
		if err := os.MkdirAll(filepath.Join(tmp, "shared"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(real), filepath.Join(tmp, "shared", "flink-metadata")); err != nil {
			t.Fatal(err)
		}
	}
}
