package autoscaler

import (
	"encoding/csv"
	"os"
	"strconv"
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
