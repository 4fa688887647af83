package main

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "moved", summary: "the key groups that change owner (subtask) in a rescale; --from-savepoint: bytes each subtask reads", run: runMoved})
}

var movedHelp = `For each max parallelism M, counts the key groups whose subtask changes when a job is rescaled
from parallelism P to Q: key group kg runs on subtask kg*P/M before and kg*Q/M after
(KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup). A key group that keeps its subtask
index needs no transfer; every other one is restored by a different subtask. If state is spread
evenly over key groups, fraction_moved is the share of keyed state that moves. Prints CSV
  max_parallelism,from,to,key_groups_moved,fraction_moved
one row per (M, Q), M ascending then Q ascending, fraction with 6 decimals.
--to takes a list (e.g. 2..16 or 3,4,6); --max-parallelism a list, where default is Flink's
default max parallelism for P (the M a job started at P without an explicit max parallelism
keeps on restore). Rescales with P or Q above M are skipped (Flink refuses them); if none is
left it is an error, and so are more than 2097152 rescales or more than 33554432 subtask
ranges compared (the sum of min(P, Q)) in one run; with --out at most 65536 rescales and 256
max parallelisms. Without --out, rows are printed as they are computed.
--out draws one bar per M (a single Q) or one line per M against Q.
This counts ownership changes only: on a rescale every new subtask restores from checkpoint
storage. --from-savepoint PATH instead prints, for each Q of --to, the bytes each new subtask
reads (plan's bytes_read) as CSV to,operator_id,subtask,bytes_read (--from, --max-parallelism
and --out are then errors). When Flink refuses the restore at some --to (e.g. above the state's
max parallelism), it prints the refusal on one line on stderr and nothing on stdout, and exits 1,
as 'simulate plan' does: a refusal answers a valid question. Exit code: 0 ok, 1 refused, 2 bad
usage or input. --from-savepoint runs Flink ` + savepointFlinkDefault.String() + `, ` + savepointFlinkReason + `.`

func runMoved(e *env, args []string) int {
	fs := cliflags.New("moved", "moved --from P --to LIST --max-parallelism LIST [--out FILE.png|.svg [--embed-fonts]]", movedHelp)
	var from cliflags.Int
	fs.Var(&from, "from", "the parallelism `P` before the rescale (1..32768)")
	to := fs.String("to", "", "the parallelism(s) after the rescale: `LIST`, e.g. 12 or 2..16")
	maxPar := fs.String("max-parallelism", "", "max parallelisms `LIST`, e.g. 128,256,720 or default")
	fromSP := fs.String("from-savepoint", "", "print the bytes each new subtask of this savepoint `PATH` reads at each --to")
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
	if *fromSP != "" {
		if from.Given || *maxPar != "" || *cf.out != "" {
			return e.failf("moved", "--from-savepoint takes the parallelisms and max parallelisms from the savepoint: --from, --max-parallelism and --out do not apply")
		}
		qs, err := parseIntList("--to", *to)
		if err != nil {
			return e.failf("moved", "%v", err)
		}
		sp, err := openSavepoint(e, *fromSP, false)
		if err != nil {
			return e.failf("moved", "%v", err)
		}
		rows, err := savepoint.ReadsAt(sp, savepointFlinkDefault, qs)
		if refused := (*savepoint.RefusedError)(nil); errors.As(err, &refused) {
			e.failf("moved", "%v", err)
			return exitViolation // as plan's: Flink refuses a valid question
		}
		if err == nil {
			err = savepoint.WriteReadsCSV(e.stdout, rows)
		}
		if err != nil {
			return e.failf("moved", "%v", err)
		}
		return exitOK
	}
	if !from.Given {
		return e.failf("moved", "--from P is required")
	}
	if err := model.CheckParallelismPreconditions(from.V); err != nil {
		return e.failf("moved", "--from %d is out of bounds (want 1..%d)", from.V, model.UpperBoundMaxParallelism)
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
		d, err := model.ComputeDefaultMaxParallelism(from.V)
		if err != nil {
			return e.failf("moved", "%v", err)
		}
		if !slices.Contains(ms, d) {
			ms = append(ms, d)
			slices.Sort(ms)
		}
	}
	rows, work, series := plots.CountRescales(ms, from.V, qs)
	if rows == 0 {
		return e.failf("moved", "no rescale left: --from %d or every --to exceeds every max parallelism (Flink needs P, Q <= M)", from.V)
	}
	if rows > maxMovedRows {
		return e.failf("moved", "%d rescales (max parallelism, target parallelism pairs) is too many (at most %d): narrow --max-parallelism or --to", rows, maxMovedRows)
	}
	if work > maxMovedWork {
		return e.failf("moved", "%d rescales from %d compare %d subtask ranges, too many (at most %d): lower --from or narrow --to or --max-parallelism", rows, from.V, work, maxMovedWork)
	}
	if *cf.out != "" {
		if rows > maxMovedChartRows {
			return e.failf("moved", "%d rescales is too many to draw (at most %d with --out): narrow --max-parallelism or --to, or leave out --out", rows, maxMovedChartRows)
		}
		if series > maxMovedChartSeries {
			return e.failf("moved", "%d max parallelisms is too many to draw (at most %d with --out): narrow --max-parallelism, or leave out --out", series, maxMovedChartSeries)
		}
	}
	each := func(yield func(plots.Moved)) {
		if err := plots.MovedFractions(ms, from.V, qs, yield); err != nil {
			panic("simulate: internal error: " + err.Error()) // every value was validated
		}
	}
	if *cf.out != "" {
		// The chart needs every row; draw it before printing, so a failed chart prints nothing.
		all := make([]plots.Moved, 0, rows)
		each(func(r plots.Moved) { all = append(all, r) })
		if err := cf.write(func() (*plots.Chart, error) { return plots.MovedChart(all) }); err != nil {
			return e.failf("moved", "%v", err)
		}
		each = func(yield func(plots.Moved)) {
			for _, r := range all {
				yield(r)
			}
		}
	}
	// Every row is valid now: stream them, in memory bounded by the buffer whatever the range.
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	w.WriteString("max_parallelism,from,to,key_groups_moved,fraction_moved\n")
	var line []byte
	each(func(r plots.Moved) {
		line = strconv.AppendInt(line[:0], int64(r.MaxParallelism), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.From), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.To), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.KeyGroupsMoved), 10)
		line = append(line, ',')
		line = strconv.AppendFloat(line, r.Fraction, 'f', 6, 64)
		line = append(line, '\n')
		w.Write(line) // a write error sticks in w and is reported by Flush
	})
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "simulate moved: writing output: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// maxMovedRows bounds the rescales one run prints, as maxSkewPairs bounds skew's pairs.
const maxMovedRows = maxSkewPairs

// maxMovedWork bounds the subtask ranges one run compares (plots.MovedFraction takes
// min(from, to) steps per rescale), so that any run under the caps ends within about a second.
const maxMovedWork = 1 << 25

// maxMovedChartRows and maxMovedChartSeries bound what --out draws: every row is kept in
// memory for the chart, and more lines or bars would not be readable anyway.
const (
	maxMovedChartRows   = 1 << 16
	maxMovedChartSeries = 256
)
