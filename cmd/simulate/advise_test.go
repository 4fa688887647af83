package main

import (
	"strings"
	"testing"
)

func TestAdviseReport(t *testing.T) {
	code, out, errs := runCLI(t, "", "advise", "--max-expected-parallelism", "80")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"max expected parallelism N=80: worst max/mean key groups per subtask over p=1..80, compared in steps of 0.05",
		"     1   1680  <=1.05  1.042857    73          26  1.010379   21.0             2",
		"    24    128   <=1.5  1.476562    63           7  1.135938    1.6             1",
		"overhead per key group",
		"recommendation: M=1680 because its worst max/mean key groups per subtask over p=1..80 is 1.042857 (at p=73), in the same 0.05 step as the lowest (M=27720: 1.002020)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "dropped") {
		t.Errorf("nothing is below N=80, yet:\n%s", out)
	}
}

func TestAdviseRecommendations(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		// Exact balance has no step of its own (issue 17): the tolerance decides.
		{[]string{"--max-expected-parallelism", "10"}, "recommendation: M=180 because its worst max/mean key groups per subtask over p=1..10 is 1.022222 (at p=8), in the same 0.05 step as the lowest (M=2520: 1.000000)"},
		{[]string{"--max-expected-parallelism", "12"}, "recommendation: M=180 because its worst max/mean key groups per subtask over p=1..12 is 1.038889 (at p=11), in the same 0.05 step as the lowest (M=27720: 1.000000)"},
		{[]string{"--max-expected-parallelism", "4"}, "recommendation: M=128 because its worst max/mean key groups per subtask over p=1..4 is 1.007812 (at p=3), in the same 0.05 step as the lowest (M=180: 1.000000)"},
		{[]string{"--max-expected-parallelism", "4", "--tolerance", "0"}, "recommendation: M=180 because every parallelism 1..4 divides it"},
		{[]string{"--max-expected-parallelism", "12", "--min-expected-parallelism", "10"}, "expected parallelism L=10..N=12: worst max/mean key groups per subtask over p=10..12, compared in steps of 0.05"},
		{[]string{"--max-expected-parallelism", "12", "--min-expected-parallelism", "10"}, "recommendation: M=128 because its worst max/mean key groups per subtask over p=10..12 is 1.031250 (at p=11)"},
		{[]string{"--max-expected-parallelism", "12", "--min-expected-parallelism", "12", "--tolerance", "0", "--candidates", "180,360"}, "recommendation: M=180 because every parallelism 12..12 divides it"},
		{[]string{"--max-expected-parallelism", "300", "--tolerance", "0"}, "recommendation: M=32768 because its worst max/mean key groups per subtask over p=1..300 is 1.008301 (at p=280), the lowest of all candidates"},
		{[]string{"--max-expected-parallelism", "200", "--candidates", "128,256,720"}, "recommendation: M=720"},
		{[]string{"--max-expected-parallelism", "200", "--candidates", "128,256,720"}, "dropped (below N=200): 128"},
	} {
		code, out, errs := runCLI(t, "", append([]string{"advise"}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("advise %q: exit %d %q; output lacks %q:\n%s", c.args, code, errs, c.want, out)
		}
	}
}

func TestAdviseCSVWithKeys(t *testing.T) {
	keys := "0,5\n1,1\n42,2\n-1,3\n"
	code, out, errs := runCLI(t, keys, "advise", "--max-expected-parallelism", "4", "--candidates", "128,8", "--tolerance", "0",
		"--keys", "-", "--key-type", "int", "--weights", "--csv")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("exit %d %q:\n%s", code, errs, out)
	}
	if lines[0] != "rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes,sample_worst_max_over_mean,sample_worst_parallelism" {
		t.Errorf("header %q", lines[0])
	}
	// M=128: key-group worst at p=3 (43·3/128). The sample (key groups 94, 86, 29, 80 with 5, 1,
	// 2, 3 records) is worst at p=4, where subtask 2 holds 0, 1 and -1: 9·4/11 = 3.272727.
	// M=8: key groups 6, 6, 5, 0; at p=4 subtask 3 holds 0 and 1: 6·4/11 = 2.181818.
	if lines[1] != "1,128,0,1.007812,3,3,1.001953,32.000000,1,3.272727,4" {
		t.Errorf("row 1 %q", lines[1])
	}
	if lines[2] != "2,8,0,1.125000,3,3,1.031250,2.000000,1,2.181818,4" {
		t.Errorf("row 2 %q", lines[2])
	}
}

func TestAdviseBadInput(t *testing.T) {
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--max-expected-parallelism N is required", nil},
		{"--max-expected-parallelism 0 is out of bounds", []string{"--max-expected-parallelism", "0"}},
		{"--max-expected-parallelism 40000 is out of bounds", []string{"--max-expected-parallelism", "40000"}},
		{"no candidate max parallelism is ≥ the max expected parallelism 500", []string{"--max-expected-parallelism", "500", "--candidates", "128,256"}},
		{`"9..1" is an empty range`, []string{"--max-expected-parallelism", "5", "--candidates", "9..1"}},
		{"--tolerance -1", []string{"--max-expected-parallelism", "5", "--tolerance", "-1"}},
		{"--min-expected-parallelism 6 is out of bounds (want 1..5", []string{"--max-expected-parallelism", "5", "--min-expected-parallelism", "6"}},
		{"--min-expected-parallelism 0 is out of bounds", []string{"--max-expected-parallelism", "5", "--min-expected-parallelism", "0"}},
		{`invalid value "x" for flag -min-expected-parallelism`, []string{"--max-expected-parallelism", "5", "--min-expected-parallelism", "x"}},
		{"need --keys", []string{"--max-expected-parallelism", "5", "--key-type", "int"}},
		{"no such file", []string{"--max-expected-parallelism", "5", "--keys", "/nonexistent/keys", "--key-type", "int"}},
		{`--autoscaler: unknown operator release "1.6" (want one of 1.7, 1.8`, []string{"--max-expected-parallelism", "5", "--autoscaler", "1.6"}},
		{"--current needs --autoscaler RELEASE", []string{"--max-expected-parallelism", "5", "--current", "2"}},
		{"--current 6 is out of bounds (want 1..5", []string{"--max-expected-parallelism", "5", "--autoscaler", "1.15", "--current", "6"}},
	} {
		code, out, errs := runCLI(t, "", append([]string{"advise"}, c.args...)...)
		wantUsageError(t, c.want, code, out, errs)
	}
}

// TestAdviseAutoscaler: under operator 1.15's alignment (divisors of M, else aligned down), M=128
// meets no skew above 1.04 for targets 1..24 and ranks first, where without the flag it is last;
// under 1.9 (which aligns only up to M/2) it stays last. The CSV adds the autoscaler columns.
func TestAdviseAutoscaler(t *testing.T) {
	base := []string{"advise", "--max-expected-parallelism", "24", "--candidates", "128,180,240,720", "--csv"}
	firstAndLast := func(args ...string) (string, string) {
		code, out, errs := runCLI(t, "", append(base, args...)...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != 5 {
			t.Fatalf("advise %q: exit %d %q:\n%s", args, code, errs, out)
		}
		return lines[1], lines[4]
	}
	if first, last := firstAndLast(); !strings.HasPrefix(first, "1,720,") || !strings.HasPrefix(last, "4,128,") {
		t.Errorf("without --autoscaler: %q … %q", first, last)
	}
	if first, _ := firstAndLast("--autoscaler", "1.15"); first != "1,128,1,1.039062,19,18,1.008789,5.333333,1,19,17,22" {
		t.Errorf("--autoscaler 1.15: first %q", first)
	}
	if first, last := firstAndLast("--autoscaler", "1.9"); !strings.HasPrefix(first, "1,240,") || !strings.HasPrefix(last, "4,128,") {
		t.Errorf("--autoscaler 1.9: %q … %q", first, last)
	}
	// Scaled down from 24, operator 1.15 searches only up to the current parallelism.
	if first, _ := firstAndLast("--autoscaler", "1.15", "--current", "24"); first == "1,128,1,1.039062,19,18,1.008789,5.333333,1,19,17,22" {
		t.Errorf("--current 24 changes nothing: %q", first)
	}
	code, out, _ := runCLI(t, "", "advise", "--max-expected-parallelism", "4", "--autoscaler", "1.15", "--csv")
	if head, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.HasSuffix(head, ",rocksdb_prefix_bytes,worst_target,moved_targets,highest_parallelism") {
		t.Errorf("CSV header (%d) %q", code, head)
	}
}
