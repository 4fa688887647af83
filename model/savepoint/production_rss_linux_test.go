package savepoint_test

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// peakRSSkB gives this process's peak resident set size in kB: VmHWM of /proc/self/status,
// the high-water mark of its own address space since its exec (getrusage's ru_maxrss would
// also count the parent's, which the child shared until the exec).
func peakRSSkB() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			var kB int64
			if _, err := fmt.Sscanf(string(rest), "%d kB", &kB); err != nil {
				return 0, fmt.Errorf("VmHWM: %q: %w", rest, err)
			}
			return kB, nil
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no VmHWM line")
}

// cpuSeconds gives the CPU time this process has used (user and system, all threads): on a
// shared machine the benchmarks report it beside the wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
