package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/internal/atomicfile"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "plan", summary: "what Flink does when it restores a real savepoint at a new parallelism (or into a described job)", run: runPlan})
}

const planHelp = `Runs the model's restore path (Checkpoints.loadAndValidateCheckpoint, then
StateAssignmentOperation.assignStates: SPEC §F–§G) on a real checkpoint/savepoint and prints, per
checkpointed operator and new subtask, the key groups it owns, the keyed-state handles it receives
(as ranges of old subtasks' handles) and its operator-state entries (as pairs [old subtask, index
into that old handle's offsets], SPEC §L.1).

PATH is a _metadata file or a checkpoint directory holding one (SPEC §I).

Without --job, every operator of the checkpoint becomes its own task (a one-operator chain, ID =
the state's operator ID) with parallelism P whose max parallelism is NOT configured, i.e.
Flink's default for P: a job that does not call setMaxParallelism. The restore then adopts each
state's own max parallelism, and refuses an operator whose state max parallelism is below P,
exactly as Flink would for such a job. With --job FILE the new job is described by the file
(format below) and every check applies: operators without a home (refused, or dropped with
--allow-non-restored-state), max-parallelism mismatch or adoption, state max parallelism below
the new parallelism, chains mixing finished and unfinished operators. --parallelism is then the
job's default parallelism (like 'flink run -p') for vertices that give none.

Exit 0: Flink would restore. Exit 1: Flink would refuse; the first refusal in Flink's order is
printed with its check and operator (JSON: top-level "error", "check", "operator_id"). Exit 2:
bad usage or input.

Per operator (metadata order): "valid" is false for an operator a check refuses, with Flink's
message in "error". When the restore is refused, the plan goes on as if the refused operators'
state were gone, so every operator is judged (each refused one is named) and the valid ones show
what they would receive once the refused ones are fixed; such a plan is not a restore that can
happen as it stands (top-level "restorable": false). Operators the new job does not take are
"status": "dropped" with no subtasks. An operator whose state has no subtask entries is not
reassigned by Flink 1.18 (no restore object; "restore_object": false).

Bytes: a key group's bytes run from its offset to the next larger offset of the old handle (or
the end of its stream); offset 0 means an empty key group (Flink's restore skips it). An
incremental (RocksDB) or changelog handle counts whole: the subtask downloads all of it.
Operator-state entries likewise run to the next offset of their handle. In-flight channel state
at a changed parallelism is not planned (Flink redistributes it with the job's partitioners,
which the model does not have); the operator says so in "notes".

--out FILE.png|.svg draws the state bytes each new subtask receives, per operator.

` + planJobHelp

func runPlan(e *env, args []string) int {
	fset := newFlags("plan", "plan PATH --parallelism P [--job FILE] [--flink V] [--allow-non-restored-state] [--format text|json] [--out FILE.png|.svg]", planHelp)
	var par optInt
	fset.Var(&par, "parallelism", "the new parallelism `P` (1..32768); with --job the default for vertices that give none")
	jobPath := fset.String("job", "", "describe the new job in `FILE` (YAML or JSON, format above; - reads stdin)")
	flinkFlag := fset.String("flink", model.NewestFlinkRelease.String(), "the Flink version `V` whose restore path runs: "+model.FlinkVersionNames()+"; the default is the newest modelled release")
	allow := fset.Bool("allow-non-restored-state", false, "skip checkpointed operators the new job does not have (--allowNonRestoredState)")
	format := fset.String("format", "text", "output format: text or json")
	out := fset.String("out", "", "draw the state bytes per new subtask to `FILE` (.png or .svg), written atomically")
	pos, done, code := e.parseFlags(fset, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return e.failf("plan", "unknown --format %q (want text or json)", *format)
	}
	version, err := model.ParseFlinkVersion(*flinkFlag)
	if err != nil {
		return e.failf("plan", "unknown --flink %q (want %s)", *flinkFlag, model.FlinkVersionNames())
	}
	if len(pos) != 1 {
		return e.failf("plan", "want exactly one PATH (a _metadata file or a checkpoint directory), got %d arguments", len(pos))
	}
	if !par.set && *jobPath == "" {
		return e.failf("plan", "--parallelism P is required (or --job FILE giving every vertex's parallelism)")
	}
	if par.set {
		if err := model.CheckParallelismPreconditions(par.v); err != nil {
			return e.failf("plan", "--parallelism %d is out of bounds (want 1..%d)", par.v, model.UpperBoundMaxParallelism)
		}
	}
	if *out != "" {
		if _, err := plots.FormatOf(*out); err != nil {
			return e.failf("plan", "--out: %v", err)
		}
	}
	if *jobPath == stdinName && pos[0] == stdinName {
		return e.failf("plan", "--job - and PATH - both read stdin: give one of them as a file")
	}
	var job []savepoint.Vertex
	if *jobPath != "" {
		b, err := readInput(e, *jobPath, maxJobFileBytes)
		if err != nil {
			return e.failf("plan", "--job: %v", err)
		}
		job, err = parseJobFile(*jobPath, b, par.v)
		if err != nil {
			return e.failf("plan", "--job %s: %v", *jobPath, err)
		}
	}
	sp, err := openSavepoint(e, pos[0])
	if err != nil && !(sp != nil && errors.Is(err, metadata.ErrUnsupportedVersion)) {
		// A format version no Flink this tool models reads (format version 1 is Flink 1.2's,
		// which Flink 1.4 and later refuse) is a refusal, not bad input: it is planned.
		return e.failf("plan", "%v", err)
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: version, Parallelism: par.v, Job: job, AllowNonRestoredState: *allow})
	if err != nil {
		return e.failf("plan", "%s: %v", sp.Path, err)
	}
	var buf bytes.Buffer
	if *format == "json" {
		b, err := json.MarshalIndent(pl, "", "  ")
		if err != nil {
			return e.failf("plan", "encoding JSON: %v", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	} else {
		writePlanText(&buf, pl)
	}
	if *out != "" {
		if err := writePlanChart(*out, pl); err != nil {
			return e.failf("plan", "--out: %v", err)
		}
	}
	if rc := writeOut(e, "plan", buf.Bytes()); rc != exitOK {
		return rc
	}
	if !pl.Restorable {
		return exitViolation
	}
	return exitOK
}

// openSavepoint opens a _metadata file or checkpoint directory of the local file system,
// named in errors as given, or metadata read from stdin for "-".
func openSavepoint(e *env, p string) (*savepoint.Savepoint, error) {
	if p == stdinName {
		return savepoint.Read(e.stdin, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	return savepoint.Open(os.DirFS("/"), filepath.ToSlash(abs), p)
}

// Text form.

func writePlanText(w io.Writer, pl *savepoint.RestorePlan) {
	target := "the --job"
	if pl.NewParallelism != nil {
		target = fmt.Sprintf("parallelism %d", *pl.NewParallelism)
		if pl.Job {
			target = fmt.Sprintf("the --job (default parallelism %d)", *pl.NewParallelism)
		}
	}
	fmt.Fprintf(w, "%s: format version %d, checkpoint %d; Flink %s restore into %s\n", pl.Path, pl.FormatVersion, pl.CheckpointID, pl.Flink, target)
	if pl.Restorable {
		fmt.Fprintln(w, "restore: OK")
	} else {
		op := ""
		if pl.OperatorID != nil {
			op = ", operator " + *pl.OperatorID
		}
		fmt.Fprintf(w, "restore: REFUSED (check %s%s): %s\n", *pl.Check, op, *pl.Error)
	}
	for _, o := range pl.Operators {
		fmt.Fprintf(w, "operator %s", o.OperatorID)
		if o.Name != "" {
			fmt.Fprintf(w, " %q", o.Name)
		}
		if o.UID != "" {
			fmt.Fprintf(w, " uid %q", o.UID)
		}
		switch o.Status {
		case "refused":
			fmt.Fprintf(w, ": parallelism %d, max parallelism %d: REFUSED (check %s): %s\n", o.OldParallelism, o.MaxParallelism, *o.Check, *o.Error)
		case "dropped":
			fmt.Fprintf(w, ": parallelism %d, max parallelism %d: dropped\n", o.OldParallelism, o.MaxParallelism)
		default:
			fmt.Fprintf(w, ": parallelism %d -> %d, max parallelism %d", o.OldParallelism, o.Parallelism, o.MaxParallelism)
			if o.NewMaxParallelism != o.MaxParallelism {
				fmt.Fprintf(w, " (task runs with %d)", o.NewMaxParallelism)
			}
			fmt.Fprintf(w, ", task %q, %d state bytes\n", *o.Vertex, o.StateBytes)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, s := range o.Subtasks {
			fmt.Fprintf(w, "  subtask %d: key groups %d..%d", s.Index, s.KeyGroups[0], s.KeyGroups[1])
			switch {
			case s.Finished:
				fmt.Fprintln(w, ", finished on restore")
				continue
			case !s.RestoreObject:
				fmt.Fprintln(w, ", no restore object")
				continue
			}
			var kb int64
			for _, l := range [][]savepoint.KeyedPart{s.ManagedKeyedState, s.RawKeyedState} {
				for _, h := range l {
					kb += h.Bytes
				}
			}
			entries := 0
			for _, m := range []map[string]*savepoint.OperatorStatePart{s.ManagedOperatorState, s.RawOperatorState} {
				for _, st := range m {
					entries += len(st.Pairs)
				}
			}
			fmt.Fprintf(w, ", keyed state %d bytes, operator state %d entries, %d bytes\n", kb, entries, s.StateBytes-kb)
			for _, kind := range []struct {
				name string
				l    []savepoint.KeyedPart
			}{{"managed keyed", s.ManagedKeyedState}, {"raw keyed", s.RawKeyedState}} {
				for _, h := range kind.l {
					fmt.Fprintf(w, "    %s: old subtask %d key groups %d..%d (%s), %d bytes\n", kind.name, h.OldSubtask, h.Start, h.End, h.Handle, h.Bytes)
				}
			}
			for _, kind := range []struct {
				name string
				m    map[string]*savepoint.OperatorStatePart
			}{{"managed", s.ManagedOperatorState}, {"raw", s.RawOperatorState}} {
				names := make([]string, 0, len(kind.m))
				for n := range kind.m {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					st := kind.m[n]
					fmt.Fprintf(w, "    %s %q %s: %d entries %s, %d bytes\n", kind.name, n, st.Mode, len(st.Pairs), pairsText(st.Pairs), st.Bytes)
				}
			}
		}
	}
	for _, n := range pl.NewOps {
		fmt.Fprintf(w, "new operator %s", n.OperatorID)
		if n.Label != "" {
			fmt.Fprintf(w, " (%s)", n.Label)
		}
		fmt.Fprintf(w, " in task %q: no state, starts empty\n", n.Vertex)
	}
}

// pairsText prints pairs as [old:idx ...], eliding the middle of long lists.
func pairsText(pairs [][2]int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, p := range pairs {
		if len(pairs) > 12 && i == 6 {
			fmt.Fprintf(&b, " ... (%d more)", len(pairs)-12)
		}
		if len(pairs) > 12 && i >= 6 && i < len(pairs)-6 {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", p[0], p[1])
	}
	b.WriteByte(']')
	return b.String()
}

// Chart.

// writePlanChart draws the state bytes each new subtask receives, stacked per operator (the
// operators that receive any), and writes it atomically.
func writePlanChart(path string, pl *savepoint.RestorePlan) error {
	f, err := plots.FormatOf(path)
	if err != nil {
		return err
	}
	var ops []plots.OperatorBytes
	for _, o := range pl.Operators {
		if o.StateBytes == 0 {
			continue
		}
		ob := plots.OperatorBytes{Label: o.OperatorID[:8]}
		if o.UID != "" {
			ob.Label = o.UID
		} else if o.Name != "" {
			ob.Label = o.Name
		}
		for _, s := range o.Subtasks {
			ob.Subtasks = append(ob.Subtasks, s.StateBytes)
		}
		ops = append(ops, ob)
	}
	target := "the --job"
	if pl.NewParallelism != nil {
		target = fmt.Sprintf("p=%d", *pl.NewParallelism)
	}
	b, err := plots.RestoreBytesImage(fmt.Sprintf("State bytes per new subtask: %s, Flink %s, %s", filepath.Base(pl.Path), pl.Flink, target), ops, f)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}
