package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain stops the progress lines of in-process sweeps from depending on the clock: the
// tests' ticker never ticks unless a test ticks it (TestSweepProgressLines).
func TestMain(m *testing.M) {
	progressTicker = func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }
	os.Exit(m.Run())
}

// TestSweepProgressLines: when stderr is not a terminal, a sweep prints a progress line on
// stderr at every tick and a last one at the end, and stdout is the same bytes as without
// them (issue 28: a 50-second sweep in CI printed nothing until the end); --progress 0 turns
// them off.
func TestSweepProgressLines(t *testing.T) {
	var every []time.Duration
	progressTicker = func(d time.Duration) (<-chan time.Time, func()) {
		every = append(every, d)
		ticks := make(chan time.Time, 1)
		ticks <- time.Time{} // one tick, at once
		return ticks, func() {}
	}
	defer func() { progressTicker = func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} } }()
	args := []string{"sweep", "--seeds", "6", "--steps", "5", "--workers", "2"}
	code, out, errs := runCLI(t, "", append(args, "--progress", "3s")...)
	line := `sweep: [0-6] of 6 seeds \(\d+%\), 0 failed; \d+s elapsed(, about \d+(m\d+)?s left)?\n`
	if !regexp.MustCompile(`^` + line + `sweep: 6 of 6 seeds \(100%\), 0 failed; \d+s elapsed\n$`).MatchString(errs) {
		t.Errorf("stderr %q, want a progress line and a last one", errs)
	}
	if len(every) != 1 || every[0] != 3*time.Second {
		t.Errorf("ticker intervals %v, want [3s]", every)
	}
	code2, out2, errs2 := runCLI(t, "", append(args, "--progress", "0")...)
	if code != 0 || code2 != 0 || out != out2 || errs2 != "" {
		t.Errorf("--progress 0: exit %d/%d, stderr %q; stdout the same: %t", code, code2, errs2, out == out2)
	}
	code, out, errs = runCLI(t, "", "sweep", "--flink", "2.3,master", "--seeds", "3", "--steps", "4")
	if code != 0 || !strings.HasPrefix(errs, "sweep: ") || !strings.Contains(errs, "sweep: 3 of 3 seeds (100%), 0 failed;") || !strings.HasPrefix(out, "# flink 2.3\n") {
		t.Errorf("cross-version sweep: exit %d, stderr %q", code, errs)
	}
	if len(every) != 2 || every[1] != defaultProgressEvery {
		t.Errorf("ticker intervals %v, want the default %v second", every, defaultProgressEvery)
	}
	code, out, errs = runCLI(t, "", "sweep", "--seeds", "1", "--progress", "-1s")
	wantUsageError(t, "--progress -1s is negative (want an interval such as 10s, or 0 for none)", code, out, errs)
}
