package main

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChannelMappingGolden compares the command's output, for every mapper and (old, new) pair
// of model/testdata/flink/subtask_state_mappings.csv (Flink 1.18's own mappings, old, new ≤ 12),
// with the file's rows, in order.
func TestChannelMappingGolden(t *testing.T) {
	rows := readCSV(t, "../../model/testdata/flink/subtask_state_mappings.csv")
	if got := strings.Join(rows[0], ","); got != "mapper,old_parallelism,new_parallelism,new_subtask,old_subtasks,ambiguous" {
		t.Fatalf("golden header %q", got)
	}
	// want[mapper old new] = the command's expected stdout.
	type key struct{ mapper, old, new string }
	var order []key
	want := map[key]string{}
	for _, r := range rows[1:] {
		k := key{r[0], r[1], r[2]}
		if _, ok := want[k]; !ok {
			order = append(order, k)
			want[k] = "new_subtask,old_subtasks,ambiguous\n"
		}
		want[k] += strings.Join(r[3:], ",") + "\n"
	}
	if len(order) != 5*12*12 {
		t.Fatalf("%d (mapper, old, new) cases in the golden file, want %d", len(order), 5*12*12)
	}
	for _, k := range order {
		code, out, errs := runCLI(t, "", "channel-mapping", "--mapper", k.mapper, "--old", k.old, "--new", k.new)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", k, code, errs)
			continue
		}
		if d := cmp.Diff(want[k], out); d != "" {
			t.Errorf("channel-mapping --mapper %s --old %s --new %s differs from Flink (-flink +cli):\n%s", k.mapper, k.old, k.new, d)
		}
	}
}

func TestChannelMappingOutput(t *testing.T) {
	// Beyond the golden file: rows are new subtasks 0..Q−1, every old subtask appears.
	code, out, errs := runCLI(t, "", "channel-mapping", "--new=25", "--mapper=ROUND_ROBIN", "--old=100")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 26 || lines[1] != "0,0 25 50 75,false" || lines[25] != "24,24 49 74 99,false" {
		t.Errorf("ROUND_ROBIN 100→25: %d lines, %q … %q", len(lines), lines[1], lines[len(lines)-1])
	}
	// The largest parallelisms run (RANGE at 32768 both ways is the identity).
	code, out, errs = runCLI(t, "", "channel-mapping", "--mapper", "RANGE", "--old", "32768", "--new", "32768")
	if code != 0 || errs != "" || !strings.HasSuffix(out, "\n32767,32767,true\n") || strings.Count(out, "\n") != 32769 {
		t.Errorf("RANGE 32768→32768: exit %d, stderr %q, %d lines", code, errs, strings.Count(out, "\n"))
	}
}

func TestChannelMappingBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		want string
		args []string
	}{
		{"unknown mapper", `unknown mapper "ANY"`, []string{"--mapper", "ANY", "--old", "2", "--new", "3"}},
		{"lower case", `unknown mapper "range"`, []string{"--mapper", "range", "--old", "2", "--new", "3"}},
		{"missing mapper", "--mapper is required", []string{"--old", "2", "--new", "3"}},
		{"unsupported", "UNSUPPORTED: Cannot rescale the given pointwise partitioner", []string{"--mapper", "UNSUPPORTED", "--old", "2", "--new", "3"}},
		{"unsupported same parallelism", "Cannot rescale", []string{"--mapper", "UNSUPPORTED", "--old", "2", "--new", "2"}},
		{"old zero", "--old 0: Operator parallelism not within bounds", []string{"--mapper", "RANGE", "--old", "0", "--new", "3"}},
		{"new negative", "--new -1: Operator parallelism not within bounds", []string{"--mapper", "RANGE", "--old", "1", "--new", "-1"}},
		{"old too large", "--old 32769", []string{"--mapper", "RANGE", "--old", "32769", "--new", "3"}},
		{"new too large", "--new 1000000", []string{"--mapper", "FIRST", "--old", "3", "--new", "1000000"}},
		{"huge", "not an integer", []string{"--mapper", "FIRST", "--old", "99999999999999999999999", "--new", "1"}},
		{"not an integer", "not an integer", []string{"--mapper", "FULL", "--old", "2.5", "--new", "3"}},
		{"hex", "not an integer", []string{"--mapper", "FULL", "--old", "0x10", "--new", "3"}},
		{"missing old", "--old is required", []string{"--mapper", "FULL", "--new", "3"}},
		{"missing new", "--new is required", []string{"--mapper", "FULL", "--old", "3"}},
		{"flag without value", "flag needs an argument", []string{"--mapper", "FULL", "--old", "3", "--new"}},
		{"extra argument", `unexpected argument "4"`, []string{"--mapper", "FULL", "--old", "3", "--new", "3", "4"}},
		{"unknown flag", "flag provided but not defined", []string{"--mapper", "FULL", "--old", "3", "--new", "3", "--max-parallelism", "128"}},
		{"FULL too large", "FULL from 32768 to 1024 would print 33554432 old indexes, more than 16777216", []string{"--mapper", "FULL", "--old", "32768", "--new", "1024"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append([]string{"channel-mapping"}, c.args...)...)
			wantUsageError(t, c.want, code, out, errs)
		})
	}
}

func TestChannelMappingHelp(t *testing.T) {
	code, out, errs := runCLI(t, "", "channel-mapping", "--help")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: simulate channel-mapping --mapper ARBITRARY|FIRST|FULL|RANGE|ROUND_ROBIN --old P --new Q\n") {
		t.Errorf("--help: (%d, %q, %q)", code, out, errs)
	}
	for _, flag := range []string{"--mapper", "--old P", "--new Q"} {
		if !strings.Contains(out, "\n  "+flag) {
			t.Errorf("--help does not list %s:\n%s", flag, out)
		}
	}
	code, out, _ = runCLI(t, "", "help")
	if code != 0 || !strings.Contains(out, "\n  channel-mapping ") {
		t.Errorf("simulate help does not list channel-mapping:\n%s", out)
	}
}

// TestChannelMappingDocTranscripts runs every `$ simulate channel-mapping …` line of
// docs/channel-mapping.md and the README and compares its output (stderr when it exits 2) with
// what the doc shows under it, up to the end of the code block.
func TestChannelMappingDocTranscripts(t *testing.T) {
	checked := 0
	for _, path := range []string{"../../docs/channel-mapping.md", "../../README.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(doc), "\n") {
			cmdLine, ok := strings.CutPrefix(line, "$ simulate channel-mapping ")
			if !ok {
				continue
			}
			want := docExample(t, path, line+"\n")
			code, out, errs := runCLI(t, "", append([]string{"channel-mapping"}, strings.Fields(cmdLine)...)...)
			if code == exitUsage {
				out = errs
			} else if code != exitOK {
				t.Errorf("%s: `%s` exits %d", path, line, code)
			}
			if d := cmp.Diff(want, out); d != "" {
				t.Errorf("%s: `%s` prints something else than the doc shows (-doc +now):\n%s", path, line, d)
			}
			checked++
		}
	}
	if want := 6; checked != want {
		t.Errorf("%d channel-mapping transcripts checked, want %d (update the count when the docs change)", checked, want)
	}
}

// readCSV reads a golden CSV file of the model's testdata, header row included.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
