//go:build !linux

package savepoint_test

// peakRSSkB is 0 where the benchmarks do not read the peak memory (only Linux's is read).
func peakRSSkB() (int64, error) { return 0, nil }

// cpuSeconds is 0 where the benchmarks do not read the CPU time.
func cpuSeconds() float64 { return 0 }
