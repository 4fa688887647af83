package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
)

// decimal6 formats num/den exactly, rounded to 6 decimals with ties to even (what printf's
// %.6f does on an exact value), without floating point.
func decimal6(num, den int64) string {
	q, r := num*1_000_000/den, num*1_000_000%den
	if 2*r > den || 2*r == den && q%2 == 1 {
		q++
	}
	return fmt.Sprintf("%d.%06d", q/1_000_000, q%1_000_000)
}

func TestDecimal6(t *testing.T) {
	for _, c := range []struct {
		num, den int64
		want     string
	}{{5, 4, "1.250000"}, {129, 128, "1.007812"}, {131, 128, "1.023438"}, {1, 3, "0.333333"}, {2, 3, "0.666667"}, {65535, 32768, "1.999969"}} {
		if got := decimal6(c.num, c.den); got != c.want {
			t.Errorf("decimal6(%d, %d) = %s, want %s", c.num, c.den, got, c.want)
		}
	}
}

// independentSkewCSV builds the expected CSV from the model's ranges, one subtask at a time.
func independentSkewCSV(t *testing.T, ms []int, maxP int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean\n")
	for _, m := range ms {
		for p := 1; p <= min(m, maxP); p++ {
			lo, hi := m+1, 0
			for i := range p {
				r, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
				if err != nil {
					t.Fatal(err)
				}
				lo, hi = min(lo, r.NumberOfKeyGroups()), max(hi, r.NumberOfKeyGroups())
			}
			fmt.Fprintf(&b, "%d,%d,%d,%d,%s\n", m, p, lo, hi, decimal6(int64(hi*p), int64(m)))
		}
	}
	return b.String()
}

// TestSkewCSVExact is the acceptance check: the CSV equals an independent computation for
// several max parallelisms and every parallelism up to 300.
func TestSkewCSVExact(t *testing.T) {
	ms := []int{1, 2, 3, 7, 10, 100, 128, 129, 180, 256, 300, 360, 720, 1000, 1024, 2520, 32768}
	list := make([]string, len(ms))
	for i, m := range ms {
		list[i] = strconv.Itoa(m)
	}
	// Given out of order and with a duplicate: the output is sorted by M, then p.
	arg := strings.Join(list[len(list)/2:], ",") + "," + strings.Join(list[:len(list)/2], ",") + ",128"
	code, out, errs := runCLI(t, "", "skew", "--max-parallelism", arg, "--parallelism", "1..300", "--csv")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if diff := cmp.Diff(independentSkewCSV(t, ms, 300), out); diff != "" {
		t.Errorf("skew CSV (-want +got):\n%s", diff)
	}
}

func TestSkewCSVListSyntaxAndDefault(t *testing.T) {
	code, out, _ := runCLI(t, "", "skew", "--max-parallelism", "default", "--parallelism", "84..86,171,172,1..1", "--csv")
	want := "max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean\n" +
		"128,1,128,128,1.000000\n" +
		"128,84,1,2,1.312500\n" +
		"128,85,1,2,1.328125\n" +
		"256,86,2,3,1.007812\n" + // 3·86/256 = 1.0078125: a tie, rounded to even
		"256,171,1,2,1.335938\n" +
		"512,172,2,3,1.007812\n"
	if code != 0 || out != want {
		t.Errorf("got (%d)\n%s\nwant\n%s", code, out, want)
	}
}

func TestSkewLargeRange(t *testing.T) {
	code, out, _ := runCLI(t, "", "skew", "--max-parallelism", "32768", "--parallelism", "1..32768", "--csv")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 32769 || lines[32767] != "32768,32767,1,2,1.999939" || lines[32768] != "32768,32768,1,1,1.000000" {
		t.Errorf("%d lines, last two %q", len(lines), lines[len(lines)-2:])
	}
}

func TestSkewSummary(t *testing.T) {
	code, out, _ := runCLI(t, "", "skew", "--max-parallelism", "128,720", "--parallelism", "1..200")
	want := "max_parallelism  parallelisms  balanced  worst_max_over_mean  at_parallelism  mean_max_over_mean\n" +
		"128              128           8         1.984375             127             1.314453\n" +
		"720              200           27        1.243056             179             1.062514\n" + // 27 divisors of 720 are <= 200; ceil(720/179)·179/720
		"(72 pairs with parallelism > max parallelism skipped)\n"
	if code != 0 || out != want {
		t.Errorf("got (%d)\n%s\nwant\n%s", code, out, want)
	}
}

func TestSkewKeysCSV(t *testing.T) {
	// int keys 0 → key group 94, 1 → 86, 42 → 29, -1 → 80 at M=128 (SPEC §C); p=3 owns
	// [0,42] [43,85] [86,127]. "00" is the int 0, the same key as "0".
	keys := "key,weight\n0,5\n1,1\n42,2\n-1,3\n00,1\n"
	code, out, errs := runCLI(t, keys, "skew", "--keys", "-", "--weights", "--key-type", "int", "--parallelism", "3", "--csv")
	want := "subtask,key_groups,records,distinct_keys,records_share\n" +
		"0,43,2,1,0.166667\n" +
		"1,43,3,1,0.250000\n" +
		"2,42,7,2,0.583333\n"
	if code != 0 || out != want {
		t.Errorf("got (%d, %q)\n%s\nwant\n%s", code, errs, out, want)
	}
	// Without --weights every line is one record; a key may contain commas.
	code, out, _ = runCLI(t, "a,b\na,b\nc\n", "skew", "--keys", "-", "--key-type", "string", "--parallelism", "1", "--max-parallelism", "1", "--csv")
	if code != 0 || out != "subtask,key_groups,records,distinct_keys,records_share\n0,1,3,2,1.000000\n" {
		t.Errorf("unweighted: got (%d) %q", code, out)
	}
}

func TestSkewKeysReport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.txt")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "%d\n", i)
	}
	b.WriteString(strings.Repeat("7\n", 3000)) // one hot key
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "skew", "--keys", path, "--key-type", "long", "--parallelism", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"max parallelism 128, parallelism 10: 4000 records, 1000 distinct keys, 4000 lines",
		"key-group skew (layout):  max/mean 1.015625",
		`heaviest key: "7" with 3001 records (0.750250 of all records, 7.502500 x a subtask's mean)`,
		"verdict: mostly key skew",
		"note: the heaviest key alone exceeds a subtask's fair share",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestSkewCharts(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file, magic string
		args        []string
	}{
		{"skew.png", "\x89PNG\r\n\x1a\n", nil},
		{"skew.svg", "<?xml", nil},
		{"log.svg", "<?xml", []string{"--log-x"}},
		{"heat.png", "\x89PNG", []string{"--chart", "heatmap"}},
		{"fonts.svg", "<?xml", []string{"--embed-fonts"}},
	} {
		path := filepath.Join(dir, c.file)
		args := append([]string{"skew", "--max-parallelism", "128,256,default", "--parallelism", "1..300", "--out", path}, c.args...)
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "max_parallelism  parallelisms") {
			t.Fatalf("%s: exit %d, stderr %q, stdout %q", c.file, code, errs, out)
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(b, []byte(c.magic)) {
			t.Errorf("%s: %v, starts %.8q", c.file, err, b)
		}
		if strings.HasPrefix(c.file, "fonts") != bytes.Contains(b, []byte("@font-face")) {
			t.Errorf("%s: embedded fonts = %v", c.file, bytes.Contains(b, []byte("@font-face")))
		}
	}
	// Key-sample chart.
	path := filepath.Join(dir, "load.svg")
	if code, _, errs := runCLI(t, "a\nb\nc\n", "skew", "--keys", "-", "--key-type", "string", "--parallelism", "4", "--out", path); code != 0 {
		t.Fatalf("load chart: %s", errs)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("load.svg: %v", err)
	}
}

func TestSkewBadInput(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "keep.png")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "noread.txt")
	if err := os.WriteFile(unreadable, []byte("1\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	base := []string{"skew", "--max-parallelism", "128"}
	for _, c := range []struct {
		name, stdin, want string
		args              []string
	}{
		{"empty range", "", `"1..0" is an empty range`, append(base, "--parallelism", "1..0")},
		{"zero", "", `0 in "0" is out of bounds`, append(base, "--parallelism", "0")},
		{"too big", "", `32769 in "32769" is out of bounds`, append(base, "--parallelism", "5,32769")},
		{"garbage", "", `"x7" is not a number`, append(base, "--parallelism", "1..8,x7")},
		{"empty item", "", "empty item", append(base, "--parallelism", "1,,2")},
		{"max zero", "", `--max-parallelism: 0 in "0"`, []string{"skew", "--max-parallelism", "0", "--parallelism", "1"}},
		{"max too big", "", `--max-parallelism: 40000`, []string{"skew", "--max-parallelism", "40000", "--parallelism", "1"}},
		{"no pair", "", "no pair with parallelism <= max parallelism", []string{"skew", "--max-parallelism", "8", "--parallelism", "9..10"}},
		{"missing parallelism", "", "--parallelism is required", base},
		{"missing max", "", "--max-parallelism is required", []string{"skew", "--parallelism", "4"}},
		{"unknown extension", "", "must end in .png or .svg", append(base, "--parallelism", "4", "--out", filepath.Join(dir, "a.pdf"))},
		{"unwritable out", "", "does not exist", append(base, "--parallelism", "4", "--out", filepath.Join(dir, "missing", "a.png"))},
		{"out is a directory", "", "busy.png", append(base, "--parallelism", "4", "--out", mkdirFull(t, dir, "busy.png"))},
		{"embed fonts png", "", "--embed-fonts applies to SVG only", append(base, "--parallelism", "4", "--out", existing, "--embed-fonts")},
		{"bad chart", "", `--chart "pie"`, append(base, "--parallelism", "4", "--chart", "pie")},
		{"heatmap without out", "", "--chart and --log-x shape the chart: they need --out", append(base, "--parallelism", "4", "--chart", "heatmap")},
		{"line without out", "", "they need --out", append(base, "--parallelism", "4", "--chart", "line")},
		{"log-x without out", "", "they need --out", append(base, "--parallelism", "4", "--log-x")},
		{"unknown flag", "", "flag provided but not defined", append(base, "--parallelism", "4", "--colour")},
		{"positional", "", `unexpected argument "x"`, append(base, "--parallelism", "4", "x")},
		{"missing key file", "", "no such file or directory", []string{"skew", "--keys", filepath.Join(dir, "none.txt"), "--key-type", "int", "--parallelism", "4"}},
		{"unreadable key file", "", "permission denied", []string{"skew", "--keys", unreadable, "--key-type", "int", "--parallelism", "4"}},
		{"key file is a directory", "", "is a directory", []string{"skew", "--keys", dir, "--key-type", "int", "--parallelism", "4"}},
		{"no key type", "1\n", "--key-type is required", []string{"skew", "--keys", "-", "--parallelism", "4"}},
		{"bad int key", "1\nx\n", `line 2: key "x" is not an int`, []string{"skew", "--keys", "-", "--key-type", "int", "--parallelism", "4"}},
		{"bad weight", "a,1\nb,-2\n", `line 2: weight "-2"`, []string{"skew", "--keys", "-", "--key-type", "string", "--weights", "--parallelism", "4"}},
		{"no weight", "a,1\nb\n", "line 2 has no weight", []string{"skew", "--keys", "-", "--key-type", "string", "--weights", "--parallelism", "4"}},
		{"all weights zero", "a,0\n", "every weight is 0", []string{"skew", "--keys", "-", "--key-type", "string", "--weights", "--parallelism", "4"}},
		{"empty key file", "", "has no keys", []string{"skew", "--keys", "-", "--key-type", "string", "--parallelism", "4"}},
		{"keys with list", "a\n", "give one parallelism P", []string{"skew", "--keys", "-", "--key-type", "string", "--parallelism", "1..4"}},
		{"keys p above M", "a\n", "below --parallelism", []string{"skew", "--keys", "-", "--key-type", "string", "--parallelism", "8", "--max-parallelism", "4"}},
		{"key type without keys", "", "need --keys", append(base, "--parallelism", "4", "--key-type", "int")},
	} {
		t.Run(c.name, func(t *testing.T) {
			args, want := c.args, c.want
			if c.name == "unreadable key file" && os.Geteuid() == 0 {
				// root reads a mode-000 file; nobody can read /proc/self/mem at offset 0 (EIO).
				if _, err := os.Stat("/proc/self/mem"); err != nil {
					t.Fatalf("running as root without /proc/self/mem: no unreadable file to test with: %v", err)
				}
				args = append([]string{"skew", "--keys", "/proc/self/mem"}, args[3:]...)
				want = "input/output error"
			}
			code, out, errs := runCLI(t, c.stdin, args...)
			wantUsageError(t, want, code, out, errs)
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "old" {
		t.Errorf("a failed run changed an existing --out file: %q", b)
	}
	if names := dirNames(t, dir); !cmp.Equal(names, []string{"busy.png", "keep.png", "noread.txt"}) {
		t.Errorf("files after the bad runs: %q (a half-written or temporary file?)", names)
	}
}

// mkdirFull makes dir/name a non-empty directory, so that renaming a file over it fails.
func mkdirFull(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestSkewHelp(t *testing.T) {
	code, out, _ := runCLI(t, "", "skew", "--help")
	if code != 0 || !strings.Contains(out, "max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean") || !strings.Contains(out, "6 decimals") {
		t.Errorf("help (%d):\n%s", code, out)
	}
}

// TestDocsSkewMD re-runs every simple command shown in docs/skew.md (one "$ simulate …" line,
// no pipe, redirection, --out or --keys file) and checks that the output pasted there is still what the
// tool prints.
func TestDocsSkewMD(t *testing.T) {
	b, err := os.ReadFile("../../docs/skew.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	blocks := strings.Split(string(b), "```")
	for i := 1; i < len(blocks); i += 2 {
		block := strings.TrimPrefix(blocks[i], "\n")
		cmdLine, want, _ := strings.Cut(block, "\n")
		if !strings.HasPrefix(cmdLine, "$ simulate ") || strings.Contains(want, "$ ") ||
			strings.ContainsAny(cmdLine, "|<>'\"") || strings.Contains(cmdLine, "--out") || strings.Contains(cmdLine, "--keys") {
			continue
		}
		args := strings.Fields(cmdLine)[2:]
		code, got, errs := runCLI(t, "", args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", cmdLine, code, errs)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("docs/skew.md is stale for %s (-docs +now):\n%s", cmdLine, diff)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d commands checked in docs/skew.md", checked)
	}
}

// TestEmptyOutRefused: --out "" is bad input on every command that writes a file (issue 28: it
// exited 0 and wrote nothing, silently).
func TestEmptyOutRefused(t *testing.T) {
	meta := filepath.Join(realmeta.Sub(t, "real"), "kafka-enum1.metadata")
	for _, args := range [][]string{
		{"skew", "--max-parallelism", "128", "--parallelism", "1..4", "--out", ""},
		{"moved", "--from", "4", "--to", "6", "--max-parallelism", "128", "--out", ""},
		{"plan", meta, "--parallelism", "2", "--out", ""},
		{"sweep", "--seeds", "1", "--out", ""},
	} {
		code, out, errs := runCLI(t, "", args...)
		wantUsageError(t, "--out: an empty value", code, out, errs)
	}
}

// TestOutPathErrors: an --out that is a directory, or in a directory that does not exist, is
// refused naming the user's path, never the temporary file (issue 28), and nothing is written.
func TestOutPathErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("chart.png", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{"chart.png", "simulate skew: --out: writing chart.png: it is a directory\n"},
		{"missing/chart.png", "simulate skew: --out: writing missing/chart.png: directory missing does not exist\n"},
	} {
		code, out, errs := runCLI(t, "", "skew", "--max-parallelism", "128", "--parallelism", "1..4", "--out", c.out)
		wantUsageError(t, c.want, code, out, errs)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the directory holds %d entries, want chart.png only", len(es))
	}
}
