package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/internal/atomicfile"
	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/internal/excerpt"
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

Parallelism per task: --parallelism P is the default; --keep-parallelism keeps every task at
the old parallelism of the state it takes (with --job: every vertex whose parallelism the file
does not give); --vertex ID=P (repeatable; ID a 32-hex operator ID or uid:NAME) sets the task
holding that operator, and wins over both and over the job file. Each task's parallelism and its
source ("default", "job", "keep" or "vertex") are in "vertices" and in each operator's
"parallelism_source"; the text marks an operator "(kept)" or "(--vertex)".

What would work: for a refused operator, "max_restorable_parallelism" is the highest parallelism
of its task that its checks accept (null when none does) and "fix" says what would restore it in
words; the top-level "max_restorable_parallelism" (text: "max restorable parallelism:") is the
largest --parallelism at which the whole restore succeeds, the other tasks as planned (null, or
"none", when no P does; absent from the text when no task follows --parallelism). Every answer
is checked by running the restore path again. With --allow-non-restored-state, the state of
operators the new job does not have is dropped: the "restore: OK" line says how many operators
and bytes ("dropped_operators", "dropped_state_bytes").

Names: operators print with the name and uid the file stores (format version 5+); --uid NAME
(repeatable) and --uids FILE (the uid,operator_id lines of 'simulate uid', or one uid per line)
name the operators whose ID is the hash of a uid. Uids that match no operator are ignored.

--out FILE.png|.svg draws the state bytes each new subtask receives, per operator.

` + planJobHelp

func runPlan(e *env, args []string) int {
	fset := cliflags.New("plan", "plan PATH --parallelism P|--keep-parallelism [--vertex ID=P]... [--job FILE] [--flink V] [--allow-non-restored-state] [--uid NAME]... [--uids FILE] [--format text|json] [--out FILE.png|.svg]", planHelp)
	var par cliflags.Int
	fset.Var(&par, "parallelism", "the new parallelism `P` (1..32768); with --job the default for vertices that give none")
	keep := fset.Bool("keep-parallelism", false, "keep every task at its old parallelism (with --job: the vertices that give none)")
	var vertexFlags stringList
	fset.Var(&vertexFlags, "vertex", "set the parallelism of the task holding operator `ID=P` (ID: 32 hex digits or uid:NAME; repeatable)")
	var uf uidFlags
	uf.register(fset)
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
	if !par.Given && *jobPath == "" && !*keep && len(vertexFlags) == 0 {
		return e.failf("plan", "--parallelism P is required (or --job FILE giving every vertex's parallelism)")
	}
	if par.Given && *keep && *jobPath == "" {
		return e.failf("plan", "--parallelism and --keep-parallelism: without --job every task keeps its parallelism, so --parallelism would apply to none (give one of them)")
	}
	vertexPar, vertexGiven, err := parseVertexFlags(vertexFlags)
	if err != nil {
		return e.failf("plan", "%v", err)
	}
	if par.Given {
		if err := model.CheckParallelismPreconditions(par.V); err != nil {
			return e.failf("plan", "--parallelism %d is out of bounds (want 1..%d)", par.V, model.UpperBoundMaxParallelism)
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
	if slices.Contains(uf.files, stdinName) && (pos[0] == stdinName || *jobPath == stdinName) {
		return e.failf("plan", "--uids - and another input both read stdin: give one of them as a file")
	}
	uids, err := uf.load(e)
	if err != nil {
		return e.failf("plan", "%v", err)
	}
	for _, g := range vertexFlags {
		if name, ok := strings.CutPrefix(g[:strings.LastIndex(g, "=")], "uid:"); ok {
			_ = uids.Add(name) // not empty: parseVertexFlags checked it
		}
	}
	var job []savepoint.Vertex
	if *jobPath != "" {
		b, err := readInput(e, *jobPath, maxJobFileBytes)
		if err != nil {
			return e.failf("plan", "--job: %v", err)
		}
		def := par.V
		if !par.Given && *keep {
			// A placeholder for the vertices that give no parallelism: --keep-parallelism
			// replaces it, and PlanRestore refuses a vertex it cannot keep (no state).
			def = 1
		}
		job, err = parseJobFile(*jobPath, b, def)
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
	if sp.File != nil {
		uids.Label(sp.File)
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: version, Parallelism: par.V, Job: job, AllowNonRestoredState: *allow,
		KeepParallelism: *keep, VertexParallelism: vertexPar})
	var unknown *savepoint.UnknownOperatorError
	if errors.As(err, &unknown) {
		return e.failf("plan", "--vertex %s: %v", excerpt.Quote(vertexGiven[unknown.OperatorID], 80), err)
	}
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
		return savepoint.Read(e.stdin, inputName(p))
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	return savepoint.Open(os.DirFS("/"), filepath.ToSlash(abs), p)
}

// parseVertexFlags reads the --vertex ID=P flags: the parallelism per operator ID, and each ID
// as given (for errors).
func parseVertexFlags(l []string) (map[model.OperatorID]int, map[model.OperatorID]string, error) {
	if len(l) == 0 {
		return nil, nil, nil
	}
	par, given := map[model.OperatorID]int{}, map[model.OperatorID]string{}
	for _, g := range l {
		i := strings.LastIndex(g, "=")
		if i < 0 {
			return nil, nil, fmt.Errorf("--vertex %s: want ID=P (ID: 32 hex digits or uid:NAME)", excerpt.Quote(g, 80))
		}
		idText, pText := g[:i], g[i+1:]
		var id model.OperatorID
		if name, ok := strings.CutPrefix(idText, "uid:"); ok {
			if name == "" {
				return nil, nil, fmt.Errorf("--vertex %s: empty uid", excerpt.Quote(g, 80))
			}
			id = model.OperatorIDFromUID(name)
		} else {
			var err error
			if id, err = model.ParseOperatorID(idText); err != nil || len(idText) != 32 {
				return nil, nil, fmt.Errorf("--vertex %s: %s is not an operator ID (want 32 hex digits or uid:NAME)", excerpt.Quote(g, 80), excerpt.Quote(idText, 40))
			}
		}
		p, err := strconv.Atoi(pText)
		if err != nil {
			return nil, nil, fmt.Errorf("--vertex %s: parallelism %s is not an integer", excerpt.Quote(g, 80), excerpt.Quote(pText, 20))
		}
		if err := model.CheckParallelismPreconditions(p); err != nil {
			return nil, nil, fmt.Errorf("--vertex %s: parallelism %d is out of bounds (want 1..%d)", excerpt.Quote(g, 80), p, model.UpperBoundMaxParallelism)
		}
		if prev, dup := given[id]; dup {
			return nil, nil, fmt.Errorf("--vertex %s: operator %v is also set by --vertex %s", excerpt.Quote(g, 80), id, excerpt.Quote(prev, 80))
		}
		par[id], given[id] = p, g
	}
	return par, given, nil
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
	switch {
	case pl.KeepParallelism && pl.Job:
		target += ", old parallelisms kept (--keep-parallelism)"
	case pl.KeepParallelism:
		target = "the old parallelisms (--keep-parallelism)"
	}
	set, follow := 0, false
	for _, v := range pl.Vertices {
		set += b2i(v.ParallelismSource == savepoint.SourceVertex)
		follow = follow || v.ParallelismSource == savepoint.SourceDefault
	}
	if set > 0 {
		target += fmt.Sprintf(", %d %s set by --vertex", set, planNoun(set, "task", "tasks"))
	}
	fmt.Fprintf(w, "%s: format version %d, checkpoint %d; Flink %s restore into %s\n", pl.Path, pl.FormatVersion, pl.CheckpointID, pl.Flink, target)
	if pl.Restorable {
		if pl.DroppedOperators > 0 {
			fmt.Fprintf(w, "restore: OK, DROPPING the state of %d %s (%d bytes) (--allow-non-restored-state)\n", pl.DroppedOperators, planNoun(pl.DroppedOperators, "operator", "operators"), pl.DroppedStateBytes)
		} else {
			fmt.Fprintln(w, "restore: OK")
		}
	} else {
		op := ""
		if pl.OperatorID != nil {
			op = ", operator " + *pl.OperatorID
		}
		fmt.Fprintf(w, "restore: REFUSED (check %s%s): %s\n", *pl.Check, op, *pl.Error)
		if pl.DroppedOperators > 0 {
			fmt.Fprintf(w, "restore also DROPS the state of %d %s (%d bytes) (--allow-non-restored-state)\n", pl.DroppedOperators, planNoun(pl.DroppedOperators, "operator", "operators"), pl.DroppedStateBytes)
		}
	}
	if follow {
		if m := pl.MaxRestorableParallelism; m != nil {
			fmt.Fprintf(w, "max restorable parallelism: %d (the largest --parallelism at which the whole restore succeeds)\n", *m)
		} else {
			fmt.Fprintln(w, "max restorable parallelism: none (no --parallelism makes the whole restore succeed)")
		}
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
			fmt.Fprintf(w, ": parallelism %d -> %d", o.OldParallelism, o.Parallelism)
			switch o.ParallelismSource {
			case savepoint.SourceKeep:
				fmt.Fprint(w, " (kept)")
			case savepoint.SourceVertex:
				fmt.Fprint(w, " (--vertex)")
			}
			fmt.Fprintf(w, ", max parallelism %d", o.MaxParallelism)
			if o.NewMaxParallelism != o.MaxParallelism {
				fmt.Fprintf(w, " (task runs with %d)", o.NewMaxParallelism)
			}
			fmt.Fprintf(w, ", task %q, %d state bytes\n", *o.Vertex, o.StateBytes)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if o.Status == "refused" {
			m := "none"
			if o.MaxRestorableParallelism != nil {
				m = strconv.Itoa(*o.MaxRestorableParallelism)
			}
			fmt.Fprintf(w, "  max restorable parallelism: %s; fix: %s\n", m, o.Fix)
		}
		if o.DroppedStateBytes > 0 {
			fmt.Fprintf(w, "  DROPPED: %d state bytes\n", o.DroppedStateBytes)
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
			kb := s.KeyedBytes()
			fmt.Fprintf(w, ", keyed state %d bytes, operator state %d entries, %d bytes\n", kb, s.OperatorStateEntries(), s.StateBytes-kb)
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func planNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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

// writePlanChart draws the state bytes each new subtask receives, stacked per operator
// (plots.RestorePlanBytes), and writes it atomically.
func writePlanChart(path string, pl *savepoint.RestorePlan) error {
	f, err := plots.FormatOf(path)
	if err != nil {
		return err
	}
	target := "the --job"
	if pl.NewParallelism != nil {
		target = fmt.Sprintf("p=%d", *pl.NewParallelism)
	}
	b, err := plots.RestoreBytesImage(fmt.Sprintf("State bytes per new subtask: %s, Flink %s, %s", filepath.Base(pl.Path), pl.Flink, target), plots.RestorePlanBytes(pl), f)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}
