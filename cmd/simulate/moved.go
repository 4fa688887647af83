package main

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "moved", summary: "the share of keyed state (key groups) that changes subtask in a rescale", run: runMoved})
}

const movedHelp = `For each max parallelism M, counts the key groups whose subtask changes when a job is rescaled
from parallelism P to Q: key group kg runs on subtask kg*P/M before and kg*Q/M after
(KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup). A key group that keeps its subtask
index needs no transfer; every other one is restored by a different subtask. If state is spread
evenly over key groups, fraction_moved is the share of keyed state that moves. Prints CSV
  max_parallelism,from,to,key_groups_moved,fraction_moved
one row per (M, Q), M ascending then Q ascending, fraction with 6 decimals.
--to takes a list (e.g. 2..16 or 3,4,6); --max-parallelism a list, where default is Flink's
default max parallelism for P (the M a job started at P without an explicit max parallelism
keeps on restore). Rescales with P or Q above M are skipped (Flink refuses them); if none is
left it is an error. --out draws one bar per M (a single Q) or one line per M against Q.`

func runMoved(e *env, args []string) int {
	fs := newFlags("moved", "moved --from P --to LIST --max-parallelism LIST [--out FILE.png|.svg [--embed-fonts]]", movedHelp)
	var from optInt
	fs.Var(&from, "from", "the parallelism `P` before the rescale (1..32768)")
	to := fs.String("to", "", "the parallelism(s) after the rescale: `LIST`, e.g. 12 or 2..16")
	maxPar := fs.String("max-parallelism", "", "max parallelisms `LIST`, e.g. 128,256,720 or default")
	cf := addChartFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("moved", "unexpected argument %q (moved takes only flags)", pos[0])
	}
	if err := cf.check(); err != nil {
		return e.failf("moved", "%v", err)
	}
	if !from.set {
		return e.failf("moved", "--from P is required")
	}
	if err := model.CheckParallelismPreconditions(from.v); err != nil {
		return e.failf("moved", "--from %d is out of bounds (want 1..%d)", from.v, model.UpperBoundMaxParallelism)
	}
	if *to == "" {
		return e.failf("moved", "--to is required (e.g. --to 12 or --to 2..16)")
	}
	qs, err := parseIntList("--to", *to)
	if err != nil {
		return e.failf("moved", "%v", err)
	}
	if *maxPar == "" {
		return e.failf("moved", "--max-parallelism is required (e.g. 128,256,720 or default)")
	}
	ms, hasDefault, err := parseMaxList("--max-parallelism", *maxPar)
	if err != nil {
		return e.failf("moved", "%v", err)
	}
	if hasDefault {
		d, err := model.ComputeDefaultMaxParallelism(from.v)
		if err != nil {
			return e.failf("moved", "%v", err)
		}
		if !slices.Contains(ms, d) {
			ms = append(ms, d)
			slices.Sort(ms)
		}
	}
	var rows []plots.Moved
	for _, m := range ms {
		for _, q := range qs {
			if from.v > m || q > m {
				continue
			}
			r, err := plots.MovedFraction(m, from.v, q)
			if err != nil {
				return e.failf("moved", "%v", err)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return e.failf("moved", "no rescale left: --from %d or every --to exceeds every max parallelism (Flink needs P, Q <= M)", from.v)
	}
	var out bytes.Buffer
	out.WriteString("max_parallelism,from,to,key_groups_moved,fraction_moved\n")
	for _, r := range rows {
		out.WriteString(strconv.Itoa(r.MaxParallelism) + "," + strconv.Itoa(r.From) + "," + strconv.Itoa(r.To) + "," +
			strconv.Itoa(r.KeyGroupsMoved) + "," + ffmt(r.Fraction) + "\n")
	}
	if err := cf.write(func() (*plots.Chart, error) { return plots.MovedChart(rows) }); err != nil {
		return e.failf("moved", "%v", err)
	}
	return writeOut(e, "moved", out.Bytes())
}
