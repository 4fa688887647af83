package oracle

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
)

// TestAutoscaleGolden replays the operator's own outputs, read from the model's golden files
// (files only: no model package is imported): autoscaler_alignment.csv (M = 128, current 10,
// every release, mode and input) and scale_java_sample.csv (4,000 random calls of
// JobVertexScaler.scale, run in the operator's release branches).
func TestAutoscaleGolden(t *testing.T) {
	for _, name := range []string{"autoscaler_alignment.csv", "scale_java_sample.csv"} {
		f, err := os.Open("../../model/autoscaler/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		failed := 0
		for line, row := range rows[1:] {
			num := func(h string) int {
				n, err := strconv.Atoi(row[col[h]])
				if err != nil {
					t.Fatalf("%s line %d: %s: %v", name, line+2, h, err)
				}
				return n
			}
			a := Autoscale{Release: row[col["operator"]], Mode: row[col["mode"]], MaxParallelism: num("max_parallelism"),
				Current: num("current"), Input: row[col["input"]], Partitions: num("source_partitions"),
				Lower: num("lower"), Upper: num("upper"), Target: num("target")}
			if a.Mode == "-" {
				a.Mode = ""
			}
			if got, want := AutoscaleParallelism(a), num("parallelism"); got != want {
				if failed++; failed <= 10 {
					t.Errorf("%s line %d: %+v: parallelism %d, want %d", name, line+2, a, got, want)
				}
			}
		}
		if failed > 10 {
			t.Errorf("%s: %d rows differ in all", name, failed)
		}
	}
}
