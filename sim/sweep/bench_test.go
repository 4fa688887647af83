package sweep

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// BenchmarkSweep runs the first 200 seeds of the default sweep on two workers, one sweep per op,
// and reports the largest live heap seen after a garbage collection (peak-live-MB; sampled
// after every outcome, under the default GOGC): what a sweep's memory limit must leave room for.
func BenchmarkSweep(b *testing.B) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	peak := uint64(0)
	for b.Loop() {
		runtime.GC()
		Run(Config{Seeds: 200, Workers: 2, Version: model.Flink118, Steps: sim.DefaultSteps}, func(*sim.Outcome) bool {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			return true
		})
	}
	b.ReportMetric(float64(peak)/1e6, "peak-live-MB")
}
