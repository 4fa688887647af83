package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/sim/sweep"
)

func init() {
	register(&command{name: "summarize", summary: "merge the --format json outputs of sweep shards into one summary", run: runSummarize})
}

func runSummarize(e *env, args []string) int {
	fs := cliflags.New("summarize", "summarize FILE...",
		`Merges the outputs of 'simulate sweep --format json' (one JSON object per seed; e.g. one
file per shard of --shard i/n) into the text summary that sweep prints; the shards of a sweep
merge into exactly the unsharded sweep's summary, in any order. The shards of a cross-version
sweep (--flink A,B,…) merge into its summary of each version and their differences. "-" reads
stdin. The files must be the shards of one sweep: a seed in two records (overlapping shards),
records of another --flink or --steps than the first (a single-version record among
cross-version ones included), or no seed record at all (an empty or crashed shard) is an
error. Exit code: 0 when no seed failed (known-issue findings allowed), 1 when some seed
failed (under some version), 2 on a missing, malformed or mismatched file.`)
	files, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		return e.failf("summarize", "want at least one FILE (the --format json output of 'simulate sweep')")
	}
	m := sweep.NewMerger()
	for _, name := range files {
		if err := readShard(e, m, name); err != nil {
			return e.failf("summarize", "%v", err)
		}
	}
	if m.CrossVersion() {
		vs, steps, err := m.VersionsSummary()
		if err != nil {
			return e.failf("summarize", "%v", err)
		}
		var out bytes.Buffer
		vs.WriteText(&out, steps)
		if c := writeOut(e, "summarize", out.Bytes()); c != exitOK {
			return c
		}
		if vs.Failed() > 0 {
			return exitViolation
		}
		return exitOK
	}
	s, err := m.Summary()
	if errors.Is(err, sweep.ErrNoSeeds) {
		return e.failf("summarize", "no seed records in %s (an empty or crashed shard? want the --format json output of 'simulate sweep')", fileList(files))
	}
	if err != nil {
		return e.failf("summarize", "%v", err)
	}
	var out bytes.Buffer
	s.WriteText(&out)
	if c := writeOut(e, "summarize", out.Bytes()); c != exitOK {
		return c
	}
	if s.Failed() > 0 {
		return exitViolation
	}
	return exitOK
}

// readShard reads the shard file name ("-": stdin) into m.
func readShard(e *env, m *sweep.Merger, name string) error {
	r, err := openInput(e, name)
	if err != nil {
		return err
	}
	defer r.Close()
	return m.ReadShard(inputName(name), r)
}

// fileList names the files for an error line: all of them when there are few.
func fileList(files []string) string {
	if len(files) > 3 {
		return fmt.Sprintf("%d files", len(files))
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f
		if f == "-" {
			names[i] = "stdin"
		}
	}
	return strings.Join(names, ", ")
}
