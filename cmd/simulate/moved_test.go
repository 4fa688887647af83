package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
)

func TestMovedCSV(t *testing.T) {
	code, out, errs := runCLI(t, "", "moved", "--from", "80", "--to", "100", "--max-parallelism", "720,256,default")
	// default for p=80 is 128; rows are sorted by M.
	want := "max_parallelism,from,to,key_groups_moved,fraction_moved\n" +
		"128,80,100,124,0.968750\n" +
		"256,80,100,249,0.972656\n" +
		"720,80,100,700,0.972222\n"
	if code != 0 || out != want {
		t.Errorf("got (%d, %q)\n%s\nwant\n%s", code, errs, out, want)
	}
}

// TestMovedAgainstRanges recomputes every row from the model's key-group ranges: a key group
// stays when it lies in subtask i's range both before and after.
func TestMovedAgainstRanges(t *testing.T) {
	code, out, _ := runCLI(t, "", "moved", "--from", "6", "--to", "1..40", "--max-parallelism", "7,10,128,129")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var b strings.Builder
	b.WriteString("max_parallelism,from,to,key_groups_moved,fraction_moved\n")
	for _, m := range []int{7, 10, 128, 129} {
		for q := 1; q <= min(m, 40); q++ {
			stay := 0
			for i := range min(6, q) {
				a, _ := model.ComputeKeyGroupRangeForOperatorIndex(m, 6, i)
				c, _ := model.ComputeKeyGroupRangeForOperatorIndex(m, q, i)
				stay += a.Intersection(c).NumberOfKeyGroups()
			}
			fmt.Fprintf(&b, "%d,6,%d,%d,%s\n", m, q, m-stay, decimal6(int64(m-stay), int64(m)))
		}
	}
	if diff := cmp.Diff(b.String(), out); diff != "" {
		t.Errorf("moved CSV (-want +got):\n%s", diff)
	}
}

func TestMovedCharts(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, to string }{{"bars.png", "100"}, {"lines.svg", "1..64"}} {
		path := filepath.Join(dir, c.file)
		code, _, errs := runCLI(t, "", "moved", "--from", "8", "--to", c.to, "--max-parallelism", "128,720", "--out", path)
		if code != 0 {
			t.Fatalf("%s: %s", c.file, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil || !(bytes.HasPrefix(b, []byte("\x89PNG")) || bytes.HasPrefix(b, []byte("<?xml"))) {
			t.Errorf("%s: %v %.8q", c.file, err, b)
		}
	}
}

func TestMovedBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--from P is required", []string{"moved", "--to", "4", "--max-parallelism", "128"}},
		{"--from 0 is out of bounds", []string{"moved", "--from", "0", "--to", "4", "--max-parallelism", "128"}},
		{"--to is required", []string{"moved", "--from", "4", "--max-parallelism", "128"}},
		{`"3..2" is an empty range`, []string{"moved", "--from", "4", "--to", "3..2", "--max-parallelism", "128"}},
		{"--max-parallelism is required", []string{"moved", "--from", "4", "--to", "8"}},
		{`0 in "0" is out of bounds`, []string{"moved", "--from", "4", "--to", "8", "--max-parallelism", "0"}},
		{`32769 in "32769"`, []string{"moved", "--from", "4", "--to", "8", "--max-parallelism", "32769"}},
		{"no rescale left", []string{"moved", "--from", "200", "--to", "300", "--max-parallelism", "128"}},
		{"not an integer", []string{"moved", "--from", "x", "--to", "8", "--max-parallelism", "128"}},
		{"must end in .png or .svg", []string{"moved", "--from", "4", "--to", "8", "--max-parallelism", "128", "--out", filepath.Join(dir, "a.gif")}},
		{"does not exist", []string{"moved", "--from", "4", "--to", "8", "--max-parallelism", "128", "--out", filepath.Join(dir, "no", "a.svg")}},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		wantUsageError(t, c.want, code, out, errs)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("bad runs left files: %q", names)
	}
}

// TestMovedCapsItsWork: ranges that would take hours are refused at once (issue 16), by the
// number of rescales (as skew caps its pairs) and by the subtask ranges they compare.
func TestMovedCapsItsWork(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		want string
		args []string
	}{
		{"536887290 rescales (max parallelism, target parallelism pairs) is too many (at most 2097152)", []string{"--from", "4", "--to", "1..32768", "--max-parallelism", "1..32768"}},
		{"8001994 rescales", []string{"--from", "4", "--to", "1..4000", "--max-parallelism", "1..4000"}},
		{"compare 134225920 subtask ranges, too many (at most 33554432)", []string{"--from", "16384", "--to", "1..16384", "--max-parallelism", "32768"}},
		{"2097152 rescales is too many to draw (at most 65536 with --out)", []string{"--from", "1", "--to", "1..2048", "--max-parallelism", "2048..3071", "--out", filepath.Join(dir, "a.png")}},
		{"257 max parallelisms is too many to draw (at most 256 with --out)", []string{"--from", "1", "--to", "4", "--max-parallelism", "4..260", "--out", filepath.Join(dir, "a.svg")}},
		{"536887290 rescales", []string{"--from", "4", "--to", "1..32768", "--max-parallelism", "1..32768", "--out", filepath.Join(dir, "a.svg")}},
	} {
		code, out, errs := runCLI(t, "", append([]string{"moved"}, c.args...)...)
		wantUsageError(t, c.want, code, out, errs)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("refused runs left files: %q", names)
	}
	// Just under the caps it runs.
	var lines lineCounter
	var errb bytes.Buffer
	if code := run([]string{"moved", "--from", "1", "--to", "1..2048", "--max-parallelism", "2048..3071"}, strings.NewReader(""), &lines, &errb); code != 0 || lines != 1+2097152 {
		t.Errorf("at the row cap: exit %d, %d lines, %s", code, lines, errb.String())
	}
	if code := run([]string{"moved", "--from", "16384", "--to", "1..8191", "--max-parallelism", "32768"}, strings.NewReader(""), io.Discard, &errb); code != 0 {
		t.Errorf("at the work cap: exit %d, %s", code, errb.String())
	}
}

// TestMovedStreamsInBoundedMemory: without --out the rows are printed as they are computed, so
// what a run allocates does not grow with the number of rescales.
func TestMovedStreamsInBoundedMemory(t *testing.T) {
	alloc := func(maxPar string) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var errb bytes.Buffer
		code := run([]string{"moved", "--from", "3", "--to", "1..2048", "--max-parallelism", maxPar}, strings.NewReader(""), io.Discard, &errb)
		runtime.ReadMemStats(&after)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small := alloc("2048..2055") // 16384 rows
	large := alloc("2048..2303") // 524288 rows
	if large > small+64<<10 {
		t.Errorf("32 times the rows allocate %d bytes instead of %d: the output is not streamed", large, small)
	}
}

func BenchmarkMovedLargestRun(b *testing.B) {
	for b.Loop() {
		var errb bytes.Buffer
		if code := run([]string{"moved", "--from", "1", "--to", "1..2048", "--max-parallelism", "2048..3071"}, strings.NewReader(""), io.Discard, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}

// lineCounter counts the lines written to it.
type lineCounter int

func (c *lineCounter) Write(b []byte) (int, error) {
	*c += lineCounter(bytes.Count(b, []byte{'\n'}))
	return len(b), nil
}

// moved --from-savepoint prints the bytes each new subtask reads at each --to; the help says
// the default output counts ownership changes only.
func TestMovedFromSavepoint(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	code, out, errOut := runCLI(t, "", "moved", "--to", "2", "--from-savepoint", path)
	if want := "to,operator_id,subtask,bytes_read\n2,cb16aa5adb311e8ac72482def19accbe,0,661\n2,cb16aa5adb311e8ac72482def19accbe,1,661\n"; code != 0 || out != want {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	// A target Flink refuses is a refusal of a valid question, exit 1 as plan's (issue 28: it
	// was exit 2, bad input): one line on stderr, nothing on stdout.
	if code, out, errOut := runCLI(t, "", "moved", "--to", "2,3,200", "--from-savepoint", path); code != 1 || out != "" ||
		errOut != "simulate moved: at parallelism 200 the restore is refused: The state for task operator 7d246211b2be972287522fe7978b38c1 can not be restored. The maximum parallelism (128) of the restored state is lower than the configured parallelism (200). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism. (simulate plan says what would work)\n" {
		t.Errorf("P=200: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := runCLI(t, "", "plan", path, "--parallelism", "200"); code != 1 {
		t.Errorf("plan at P=200: exit %d, want 1 as moved", code)
	}
	for _, extra := range [][]string{{"--from", "3"}, {"--max-parallelism", "128"}, {"--out", filepath.Join(t.TempDir(), "m.png")}} {
		code, out, errOut := runCLI(t, "", append([]string{"moved", "--to", "2", "--from-savepoint", path}, extra...)...)
		wantUsageError(t, "--from, --max-parallelism and --out do not apply", code, out, errOut)
	}
	if _, out, _ := runCLI(t, "", "moved", "--help"); !strings.Contains(out, "counts ownership changes only") {
		t.Errorf("help lacks the ownership note:\n%s", out)
	}
}
