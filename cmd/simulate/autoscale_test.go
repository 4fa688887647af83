package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAutoscaleGolden runs the CLI once per combination of the golden file
// ../../model/autoscaler/testdata/autoscaler_alignment.csv (the operator's own output for M = 128,
// current 10) over all its targets and compares the parallelism column.
func TestAutoscaleGolden(t *testing.T) {
	rows := readCSV(t, "../../model/autoscaler/testdata/autoscaler_alignment.csv")
	type combo struct{ operator, mode, m, input, k, current, lower, upper string }
	want := map[combo]map[string]string{} // target → parallelism
	var order []combo
	for _, r := range rows[1:] {
		c := combo{r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]}
		if want[c] == nil {
			want[c] = map[string]string{}
			order = append(order, c)
		}
		want[c][r[8]] = r[9]
	}
	for _, c := range order {
		args := []string{"autoscale", "--operator", c.operator, "--max-parallelism", c.m, "--current", c.current,
			"--input", c.input, "--lower", c.lower, "--upper", c.upper, "--target", "1..200", "--csv"}
		if c.mode != "-" {
			args = append(args, "--mode", c.mode)
		}
		if c.input == "source" && c.k != "0" {
			args = append(args, "--source-partitions", c.k)
		}
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: exit %d, %s", args, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if lines[0] != "target,parallelism,aligned,limited,blocked,skew" {
			t.Fatalf("%v: header %q", args, lines[0])
		}
		checked := 0
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			if w, ok := want[c][f[0]]; ok {
				if f[1] != w {
					t.Errorf("%v: target %s → %s, the operator gives %s", args, f[0], f[1], w)
				}
				checked++
			}
		}
		if checked != len(want[c]) {
			t.Errorf("%v: compared %d targets, the golden file has %d", args, checked, len(want[c]))
		}
	}
	if len(order) < 100 {
		t.Errorf("only %d combinations in the golden file", len(order))
	}
}

func TestAutoscaleOutput(t *testing.T) {
	code, out, errs := runCLI(t, "", "autoscale", "--operator", "1.15", "--max-parallelism", "128", "--current", "65", "--upper", "100", "--target", "70,60", "--csv")
	want := "target,parallelism,aligned,limited,blocked,skew\n60,64,true,false,false,1.000000\n70,65,false,true,true,1.015625\n"
	if code != 0 || errs != "" || out != want {
		t.Errorf("got (%d, %q, %q), want (0, %q, \"\")", code, out, errs, want)
	}
	// A source with known partitions: the skew is over the partitions (12 over 20 subtasks).
	code, out, _ = runCLI(t, "", "autoscale", "--operator", "main", "--max-parallelism", "128", "--current", "4", "--input", "source", "--source-partitions", "12", "--target", "20", "--csv")
	if want := "target,parallelism,aligned,limited,blocked,skew\n20,20,false,false,false,1.666667\n"; code != 0 || out != want {
		t.Errorf("main source: got (%d, %q), want %q", code, out, want)
	}
	// --source-partitions 0 with a source is "unknown", as if omitted.
	_, a, _ := runCLI(t, "", "autoscale", "--operator", "1.8", "--max-parallelism", "128", "--current", "4", "--input", "source", "--source-partitions", "0", "--target", "1..40")
	_, b, _ := runCLI(t, "", "autoscale", "--operator", "1.8", "--max-parallelism", "128", "--current", "4", "--input", "source", "--target", "1..40")
	if a != b || a == "" {
		t.Errorf("--source-partitions 0 differs from no --source-partitions:\n%s\n%s", a, b)
	}
}

func TestAutoscaleBadInput(t *testing.T) {
	base := []string{"autoscale", "--operator", "1.15", "--max-parallelism", "128", "--current", "10", "--target", "1..20"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	without := func(flag string) []string {
		var out []string
		for i := 0; i < len(base); i++ {
			if base[i] == flag {
				i++
				continue
			}
			out = append(out, base[i])
		}
		return out
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown release", []string{"autoscale", "--operator", "1.16", "--max-parallelism", "128", "--current", "10", "--target", "5"}, "unknown operator release"},
		{"release 1.6", []string{"autoscale", "--operator", "1.6", "--max-parallelism", "128", "--current", "10", "--target", "5"}, "unknown operator release"},
		{"no operator", without("--operator"), "--operator is required"},
		{"no max parallelism", without("--max-parallelism"), "--max-parallelism M is required"},
		{"no current", without("--current"), "--current C is required"},
		{"no target", without("--target"), "--target is required"},
		{"M 0", with("--max-parallelism", "0"), "--max-parallelism: max parallelism 0 is out of bounds"},
		{"M above 32768", with("--max-parallelism", "32769"), "max parallelism 32769 is out of bounds"},
		{"M not a number", with("--max-parallelism", "x"), "not an integer"},
		{"C above M", with("--current", "129"), "--current: current parallelism 129 is out of bounds"},
		{"C 0", with("--current", "0"), "current parallelism 0"},
		{"C negative", with("--current", "-3"), "current parallelism -3"},
		{"bad range", with("--target", "20..10"), "empty range"},
		{"target 0", with("--target", "0..10"), "out of bounds"},
		{"target too big", with("--target", "2147483648"), "out of bounds"},
		{"target not a number", with("--target", "ten"), "not a number"},
		{"target empty item", with("--target", "1,,2"), "empty item"},
		{"too many targets", with("--target", "1..2000000"), "more than"},
		{"unknown input", with("--input", "broadcast"), "unknown input"},
		{"partitions without source", with("--source-partitions", "12"), "--source-partitions needs --input source"},
		{"partitions with hash", with("--input", "hash", "--source-partitions", "12"), "--source-partitions needs --input source"},
		{"negative partitions", with("--input", "source", "--source-partitions", "-1"), "source partitions -1"},
		{"lower 0", with("--lower", "0"), "--lower: lower limit 0"},
		{"upper 0", with("--upper", "0"), "--upper: upper limit 0"},
		{"lower above upper", with("--lower", "50", "--upper", "20"), "above the upper limit"},
		{"mode on 1.10", []string{"autoscale", "--operator", "1.10", "--max-parallelism", "128", "--current", "10", "--target", "5", "--mode", "EVENLY_SPREAD"}, "no alignment modes"},
		{"mode on 1.7", []string{"autoscale", "--operator", "1.7", "--max-parallelism", "128", "--current", "10", "--target", "5", "--mode", "MAXIMIZE_UTILISATION"}, "no alignment modes"},
		{"BALANCED on 1.15", with("--mode", "BALANCED"), "no alignment mode BALANCED"},
		{"unknown mode", with("--mode", "FASTEST"), "unknown alignment mode"},
		{"positional", with("extra"), "unexpected argument"},
		{"unknown flag", with("--parallelism", "3"), "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", c.args...)
			wantUsageError(t, c.want, code, out, errs)
		})
	}
}

func TestAutoscaleHelp(t *testing.T) {
	code, out, errs := runCLI(t, "", "autoscale", "--help")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: simulate autoscale --operator") ||
		!strings.Contains(out, "target,parallelism,aligned,limited,blocked,skew") {
		t.Errorf("autoscale --help: (%d, %q, %q)", code, out, errs)
	}
	if _, out, _ := runCLI(t, "", "help"); !strings.Contains(out, "autoscale") {
		t.Errorf("simulate help does not list autoscale:\n%s", out)
	}
}

// TestDocsAutoscaleMD re-runs every "$ simulate autoscale …" line of docs/autoscale.md and of the
// README and compares its output with what the doc shows under it.
func TestDocsAutoscaleMD(t *testing.T) {
	checked := 0
	for _, path := range []string{"../../docs/autoscale.md", "../../README.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(doc), "\n") {
			if !strings.HasPrefix(line, "$ simulate autoscale ") {
				continue
			}
			want := docExample(t, path, line+"\n")
			args := strings.Fields(strings.TrimPrefix(line, "$ simulate "))
			code, got, errs := runCLI(t, "", args...)
			if code == exitUsage {
				got = errs
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s is stale for %q (-doc +now):\n%s", path, line, d)
			}
			checked++
		}
	}
	if checked < 4 {
		t.Errorf("only %d autoscale transcripts checked", checked)
	}
}
