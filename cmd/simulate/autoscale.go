package main

import (
	"bytes"
	"errors"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/internal/intlist"
	"github.com/restoresim/restoresim/model/autoscaler"
)

func init() {
	register(&command{name: "autoscale", summary: "the parallelism the Kubernetes operator's autoscaler picks for a target, per operator release", run: runAutoscale})
}

const autoscaleHelp = `Prints, for each computed target parallelism (ceil(scale factor × current), before limits), the
parallelism the Flink Kubernetes operator's autoscaler applies to the vertex after its limits and
its key-group / partition alignment, exactly as JobVertexScaler.scale of that operator release
does (SPEC-VERSIONS.md §8.2; docs/autoscale.md). The limits are the configured
job.autoscaler.vertex.min-parallelism (--lower) and …vertex.max-parallelism (--upper); like the
operator, it uses min(current, lower) and max(current, upper), and never more than the max
parallelism. --mode is job.autoscaler.scaling.key-group.partitions.adjust.mode (1.11–1.15:
EVENLY_SPREAD, MAXIMIZE_UTILISATION) or, on main, …scaling.parallelism-alignment.mode (BALANCED,
EVENLY_SPREAD, OFF; MAXIMIZE_UTILISATION means the deprecated key); 1.7–1.10 have no modes.
--target takes T, A..B or a list such as 10,20..30 (ascending, duplicates dropped).
With --csv, one row per target:
  target,parallelism,aligned,limited,blocked,skew
  aligned  true if the alignment search found the parallelism (a divisor of the key groups or
           partitions; with MAXIMIZE_UTILISATION or BALANCED also one with fewer per subtask)
  limited  true if the release emits its SCALING_LIMITED event
  blocked  true if the release keeps the current parallelism because the alignment could not
           keep the scaling direction (1.15; main's MAXIMIZE_UTILISATION)
  skew     the most key groups a subtask owns at that parallelism over the mean (Flink's
           ranges; 1 = even); for a source with --source-partitions, partitions instead
           (the most a subtask reads over the mean), 6 decimals
Without --csv, a table with the same columns and the clamped target.`

// maxTargets bounds how many targets one run prints.
const maxTargets = 1 << 20

func runAutoscale(e *env, args []string) int {
	fs := cliflags.New("autoscale", "autoscale --operator RELEASE --max-parallelism M --current C --target T|A..B [--input hash|rebalance|forward|source] [--source-partitions K] [--lower L] [--upper U] [--mode MODE] [--csv]", autoscaleHelp)
	operator := fs.String("operator", "", "the operator `RELEASE`: 1.7 … 1.15 or main")
	var maxPar, current, partitions cliflags.Int
	fs.Var(&maxPar, "max-parallelism", "the vertex's max parallelism `M` as the job runs it (1..32768)")
	fs.Var(&current, "current", "the vertex's current parallelism `C` (1..M)")
	target := fs.String("target", "", "computed target(s): `T`, A..B or a list")
	input := fs.String("input", "hash", "what feeds the vertex, `KIND`: hash (a keyBy), rebalance, forward or source")
	fs.Var(&partitions, "source-partitions", "the partitions `K` of a Kafka/Pulsar source (with --input source; 0 = unknown)")
	lower := fs.Int("lower", autoscaler.DefaultLower, "job.autoscaler.vertex.min-parallelism `L`")
	upper := fs.Int("upper", autoscaler.DefaultUpper, "job.autoscaler.vertex.max-parallelism `U`")
	mode := fs.String("mode", "", "the alignment `MODE` (default: EVENLY_SPREAD on 1.11–1.15, BALANCED on main)")
	csv := fs.Bool("csv", false, "print CSV")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("autoscale", "unexpected argument %q (autoscale takes only flags)", pos[0])
	}
	if *operator == "" {
		return e.failf("autoscale", "--operator is required (1.7 … 1.15 or main)")
	}
	release, err := autoscaler.ParseRelease(*operator)
	if err != nil {
		return e.failf("autoscale", "--operator: %v", err)
	}
	if !maxPar.Given {
		return e.failf("autoscale", "--max-parallelism M is required")
	}
	if !current.Given {
		return e.failf("autoscale", "--current C is required")
	}
	if *target == "" {
		return e.failf("autoscale", "--target is required (e.g. --target 25 or --target 1..200)")
	}
	targets, err := parseTargets(*target)
	if err != nil {
		return e.failf("autoscale", "%v", err)
	}
	in, err := autoscaler.ParseInput(*input)
	if err != nil {
		return e.failf("autoscale", "--input: %v", err)
	}
	if partitions.Given && in != autoscaler.Source {
		return e.failf("autoscale", "--source-partitions needs --input source (the vertex is %s)", in)
	}
	m := autoscaler.ModeUnset
	if *mode != "" {
		if m, err = autoscaler.ParseMode(*mode); err != nil {
			return e.failf("autoscale", "--mode: %v", err)
		}
		if err := release.CheckMode(m); err != nil {
			return e.failf("autoscale", "--mode: %v", err)
		}
	}
	p := autoscaler.Params{Release: release, Mode: m, MaxParallelism: maxPar.V, Current: current.V, Input: in,
		SourcePartitions: partitions.V, Lower: *lower, Upper: *upper}
	var pe *autoscaler.ParamError
	if err := p.Validate(); errors.As(err, &pe) {
		return e.failf("autoscale", "%s: %v", autoscaleFlags[pe.Param], err)
	} else if err != nil {
		return e.failf("autoscale", "%v", err)
	}
	ds := make([]autoscaler.Decision, len(targets))
	for i, t := range targets {
		if ds[i], err = autoscaler.Scale(p, t); err != nil {
			return e.failf("autoscale", "%v", err)
		}
	}
	var out bytes.Buffer
	if *csv {
		_ = autoscaler.WriteCSV(&out, ds) // a bytes.Buffer does not fail
	} else {
		_ = autoscaler.WriteTable(&out, p, ds)
	}
	return writeOut(e, "autoscale", out.Bytes())
}

// autoscaleFlags names the flag of each numeric parameter, for its validation errors.
var autoscaleFlags = map[autoscaler.Param]string{
	autoscaler.ParamMaxParallelism: "--max-parallelism", autoscaler.ParamCurrent: "--current",
	autoscaler.ParamSourcePartitions: "--source-partitions", autoscaler.ParamLower: "--lower", autoscaler.ParamUpper: "--upper",
}

// parseTargets parses --target: a comma list of T or A..B, each 1..autoscaler.MaxTarget, into an
// ascending list without duplicates of at most maxTargets values.
func parseTargets(s string) ([]int, error) {
	targets, _, err := intlist.Spec{Flag: "--target", Max: autoscaler.MaxTarget, Want: "T, A..B or a list such as 10,20..30", Range: "A..B",
		Limit: maxTargets, Units: "targets", BlankIsItem: true, BoundsFirst: true}.Parse(s)
	return targets, err
}
