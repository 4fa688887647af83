package autoscaler

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestGoldenAlignment replays testdata/autoscaler_alignment.csv (a copy of
// ../shared/golden/autoscaler_alignment.csv: the operator's own output for M = 128, current 10)
// row by row.
func TestGoldenAlignment(t *testing.T) {
	f, err := os.Open("testdata/autoscaler_alignment.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"operator", "mode", "max_parallelism", "input", "source_partitions", "current", "lower", "upper", "target", "parallelism"}
	if len(rows) < 2 || len(rows[0]) != len(want) {
		t.Fatalf("header %v, want %v", rows[0], want)
	}
	for i, h := range want {
		if rows[0][i] != h {
			t.Fatalf("header %v, want %v", rows[0], want)
		}
	}
	atoi := func(line int, s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		return n
	}
	failed := 0
	for i, row := range rows[1:] {
		line := i + 2
		r, err := ParseRelease(row[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		m := ModeUnset
		if row[1] != "-" {
			if m, err = ParseMode(row[1]); err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
		}
		in, err := ParseInput(row[3])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		p := Params{Release: r, Mode: m, MaxParallelism: atoi(line, row[2]), Input: in, SourcePartitions: atoi(line, row[4]),
			Current: atoi(line, row[5]), Lower: atoi(line, row[6]), Upper: atoi(line, row[7])}
		d, err := Scale(p, atoi(line, row[8]))
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if got, want := d.Parallelism, atoi(line, row[9]); got != want {
			if failed++; failed <= 20 {
				t.Errorf("line %d %v: parallelism %d, want %d (%+v)", line, row, got, want, d)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d rows differ", failed, len(rows)-1)
	}
}

// TestJavaSample replays testdata/scale_java_sample.csv: 4,000 random vertices (max parallelism
// 1..32768, any current parallelism, every input kind, limits and partitions) and targets, with
// what the operator's own scale methods return for them. They were produced by compiling the
// scale(…) methods of JobVertexScaler from each release branch verbatim (1.7, 1.8 = 1.9, 1.10,
// 1.11 = … = 1.14, 1.15; main's JobVertexScaler.scale and ParallelismAligner helpers) with Java 17,
// against stubs for logging, events and configuration, with the limits min(C, lower) and
// max(C, upper) and, for 1.7–1.9, a source's max parallelism min(M, partitions) as the operator's
// callers compute them (main's mode dispatch, 15 lines, written after ParallelismAligner.align).
// limited is "the scale emitted an event", blocked "emitted one and returned the current
// parallelism" (1.15, main's deprecated MAXIMIZE_UTILISATION). The harness is not part of this
// repository; a run of 3.5 million such rows agreed as well. JDIFF=file replays another such file.
func TestJavaSample(t *testing.T) {
	path := os.Getenv("JDIFF")
	if path == "" {
		path = "testdata/scale_java_sample.csv"
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "operator,mode,max_parallelism,input,source_partitions,current,lower,upper,target,parallelism,limited,blocked" {
		t.Fatalf("header %s", got)
	}
	bad := 0
	for i, row := range rows[1:] {
		atoi := func(s string) int {
			v, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("line %d: %v", i+2, err)
			}
			return v
		}
		r, err := ParseRelease(row[0])
		if err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		m := ModeUnset
		if row[1] != "-" {
			if m, err = ParseMode(row[1]); err != nil {
				t.Fatalf("line %d: %v", i+2, err)
			}
		}
		in, err := ParseInput(row[3])
		if err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		p := Params{Release: r, Mode: m, MaxParallelism: atoi(row[2]), Input: in, SourcePartitions: atoi(row[4]),
			Current: atoi(row[5]), Lower: atoi(row[6]), Upper: atoi(row[7])}
		d, err := Scale(p, atoi(row[8]))
		if err != nil {
			t.Fatalf("line %d %v: %v", i+2, row, err)
		}
		if strconv.Itoa(d.Parallelism) != row[9] || strconv.FormatBool(d.Limited) != row[10] || strconv.FormatBool(d.Blocked) != row[11] {
			if bad++; bad <= 20 {
				t.Errorf("line %d %v: got %d, limited %v, blocked %v", i+2, row, d.Parallelism, d.Limited, d.Blocked)
			}
		}
	}
	if bad > 0 || len(rows) < 1000 {
		t.Errorf("%d of %d rows differ", bad, len(rows)-1)
	}
}
