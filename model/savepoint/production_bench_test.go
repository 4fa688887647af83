package savepoint_test

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

// The production-size benchmarks of issue #17 (item 10): a file of 50 operators × N subtasks,
// each with an incremental handle of 200 shared files (productionSizes), read, inspected and
// planned at P = 2,000. Each sub-benchmark reports, besides the time and allocations of the
// operation, the file's size (file-MB) and the peak memory of doing it once from scratch
// (peak-MB: the maximum resident set size of a child process that reads the file from disk
// and runs the operation, so the bytes read, the decoded File and everything the operation
// builds count; peak/file is their ratio), and the CPU seconds per operation (cpu-s/op, which a
// shared machine disturbs less than the wall time). The files are generated on first use into a
// temporary directory (removed when the test binary exits); nothing here runs without -bench.
// By default the sizes are small (100 and 200 subtasks: 125 and 250 MB), so that `make bench`
// stays quick; `make production` runs issue #17's sizes:
//
//	GOGC=25 go test ./model/savepoint -run '^$' -bench Production -benchtime 1x -benchmem -production.subtasks 500,1000,2000
//
// (GOGC=25 holds the benchmark process, which generates the file and keeps it decoded, to
// about 12 GB at 2,000 subtasks; the child, whose peak is reported, runs with Go's defaults.)

var productionSubtasks = flag.String("production.subtasks", "100,200", "the subtask counts of the Production benchmarks, comma-separated (make production: 500,1000,2000)")

// productionP is the parallelism the benchmarks plan at.
const productionP = 2000

// The child process: TestMain runs runProductionChild when productionChildEnv is set.
const (
	productionChildEnv = "RESTORESIM_PRODUCTION_CHILD" // read, inspect or plan
	productionFileEnv  = "RESTORESIM_PRODUCTION_FILE"
)

var production struct {
	mu    sync.Mutex
	dir   string
	files map[int]string     // subtasks → generated file
	peaks map[string]float64 // op/subtasks → peak MB
}

// productionCleanup removes the generated files (TestMain calls it).
func productionCleanup() {
	if production.dir != "" {
		os.RemoveAll(production.dir)
	}
}

// productionFileOf gives the path and size of the generated file with n subtasks, writing it
// with the project's writer on first use.
func productionFileOf(b *testing.B, n int) (string, int64) {
	b.Helper()
	production.mu.Lock()
	defer production.mu.Unlock()
	if p, ok := production.files[n]; ok {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		return p, fi.Size()
	}
	if production.dir == "" {
		d, err := os.MkdirTemp("", "restoresim-production-")
		if err != nil {
			b.Fatal(err)
		}
		production.dir, production.files, production.peaks = d, map[int]string{}, map[string]float64{}
	}
	data, err := metadata.Marshal(productionFile(productionSizes(n)))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(production.dir, fmt.Sprintf("subtasks-%d.metadata", n))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	production.files[n] = p
	size := int64(len(data))
	data = nil
	debug.FreeOSMemory() // the generator's gigabytes, before the child runs beside this process
	return p, size
}

// forProductionSizes runs fn as one sub-benchmark per -production.subtasks count, with the
// file's bytes, and reports file-MB, peak-MB and peak/file for op (measured in a child).
func forProductionSizes(b *testing.B, op string, fn func(b *testing.B, data []byte)) {
	var sizes []int
	for _, s := range strings.Split(*productionSubtasks, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			b.Fatalf("-production.subtasks: %q is not a subtask count", s)
		}
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("subtasks=%d", n), func(b *testing.B) {
			path, size := productionFileOf(b, n)
			peak := productionPeak(b, op, n, path)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			fn(b, data)
			fileMB := float64(size) / 1e6
			b.ReportMetric(fileMB, "file-MB")
			if peak > 0 { // 0: not measured on this platform
				b.ReportMetric(peak, "peak-MB")
				b.ReportMetric(peak/fileMB, "peak/file")
			}
		})
	}
}

// productionPeak runs op once on the file in a child process and gives its maximum resident
// set size in MB (0 where the platform does not report it); once per op and size. The child
// reports its own high-water mark (peakRSSkB): the rusage of a child started by os/exec also
// counts the parent's resident set, which the child shared until its exec.
func productionPeak(b *testing.B, op string, n int, path string) float64 {
	b.Helper()
	key := fmt.Sprintf("%s/%d", op, n)
	production.mu.Lock()
	peak, ok := production.peaks[key]
	production.mu.Unlock()
	if ok {
		return peak
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		// The child runs with Go's default collector settings, as `simulate` would, whatever
		// the benchmark's own (GOGC=25 keeps the 2,000-subtask benchmark within 24 GB).
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, productionChildEnv+"="+op, productionFileEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child %s on %s: %v", op, path, err)
	}
	if _, err := fmt.Sscanf(string(out), "peak-kB %g", &peak); err != nil {
		b.Fatalf("child %s on %s printed %q: %v", op, path, out, err)
	}
	peak *= 1024 / 1e6
	production.mu.Lock()
	production.peaks[key] = peak
	production.mu.Unlock()
	return peak
}

// runProductionChild is the child process: it reads the file, runs op once and prints its peak
// resident set size as "peak-kB N" (0 where the platform does not report it).
func runProductionChild(op, path string) error {
	if err := productionOp(op, path); err != nil {
		return err
	}
	kB, err := peakRSSkB()
	if err != nil {
		return err
	}
	fmt.Printf("peak-kB %d\n", kB)
	return nil
}

func productionOp(op, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sp, err := productionSavepoint(data) // data is dead from here on, as in savepoint.Open
	if err != nil {
		return err
	}
	switch op {
	case "read":
	case "inspect":
		return sp.WriteText(io.Discard)
	case "plan":
		_, err = savepoint.PlanRestore(sp, productionOptions)
	default:
		err = fmt.Errorf("unknown operation %q", op)
	}
	return err
}

var productionOptions = savepoint.Options{Flink: model.Flink118, Parallelism: productionP}

func productionSavepoint(data []byte) (*savepoint.Savepoint, error) {
	f, err := metadata.Read(data)
	if err != nil {
		return nil, err
	}
	return &savepoint.Savepoint{Path: "production/_metadata", FormatVersion: f.Version, File: f}, nil
}

// planProduction reads data and plans its restore at parallelism p.
func planProduction(t testing.TB, data []byte, p int) *savepoint.RestorePlan {
	t.Helper()
	sp, err := productionSavepoint(data)
	if err != nil {
		t.Fatal(err)
	}
	opts := productionOptions
	opts.Parallelism = p
	pl, err := savepoint.PlanRestore(sp, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// productionLoop runs op b.N times (b.Loop) and reports its CPU seconds per run.
func productionLoop(b *testing.B, op func() error) {
	cpu0 := cpuSeconds()
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuSeconds() - cpu0; cpu > 0 { // 0: not measured on this platform
		b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	}
}

// BenchmarkProductionRead decodes the file (metadata.Read).
func BenchmarkProductionRead(b *testing.B) {
	forProductionSizes(b, "read", func(b *testing.B, data []byte) {
		b.SetBytes(int64(len(data)))
		productionLoop(b, func() error {
			_, err := metadata.Read(data)
			return err
		})
	})
}

// BenchmarkProductionInspect renders the inspection tree of the decoded file (what `simulate
// inspect` prints: Savepoint.WriteText, which summarizes it first).
func BenchmarkProductionInspect(b *testing.B) {
	forProductionSizes(b, "inspect", func(b *testing.B, data []byte) {
		sp, err := productionSavepoint(data)
		if err != nil {
			b.Fatal(err)
		}
		productionLoop(b, func() error { return sp.WriteText(io.Discard) })
	})
}

// BenchmarkProductionPlan plans the restore of the decoded file at P = 2,000 (PlanRestore).
func BenchmarkProductionPlan(b *testing.B) {
	forProductionSizes(b, "plan", func(b *testing.B, data []byte) {
		sp, err := productionSavepoint(data)
		if err != nil {
			b.Fatal(err)
		}
		productionLoop(b, func() error {
			pl, err := savepoint.PlanRestore(sp, productionOptions)
			if err == nil && !pl.Restorable {
				err = fmt.Errorf("refused: %v", pl.Refusal)
			}
			return err
		})
	})
}
