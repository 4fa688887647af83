package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/objstore"
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
` + pathHelp + `

Without --job, every operator of the checkpoint becomes its own task (a one-operator chain, ID =
the state's operator ID) with parallelism P whose max parallelism is NOT configured, i.e.
Flink's default for P: a job that does not call setMaxParallelism. The restore then adopts each
state's own max parallelism, and refuses an operator whose state max parallelism is below P,
exactly as Flink would for such a job. A state of max parallelism 1 is a non-parallel
operator's (forceNonParallel, or a SQL singleton such as a global aggregate): its task runs at
parallelism 1 with max parallelism 1, as Flink builds it whatever -p ("non-parallel").
With --job FILE the new job is described by the file
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

Bytes: an operator's "state_bytes" are the sizes of the state handles the checkpoint holds for
it (keyed, operator, coordinator and channel state), as inspect prints them; "bytes_read" is
what the restore downloads and "received_bytes" what a new subtask receives. A key group's
bytes run from its offset to the next larger offset of the old handle (or the end of its
stream); offset 0 means an empty key group (Flink's restore skips it), as in inspect, locate
and diff. An incremental (RocksDB) or changelog handle counts whole: the subtask downloads
all of it.
Operator-state entries likewise run to the next offset of their handle. In-flight channel state
(unaligned checkpoints) is planned per new subtask over assumed edges, each gate and partition a
--channel-partitioner edge (HASH, a keyBy) to a task keeping its parallelism; a note says so.

Parallelism per task: --parallelism P is the default; --keep-parallelism keeps every task at
the old parallelism of the state it takes (with --job: every vertex whose parallelism the file
does not give); --vertex ID=P (repeatable; ID a 32-hex operator ID or uid:NAME) sets the task
holding that operator, and wins over both and over the job file. Each task's parallelism and its
source ("default", "job", "keep", "vertex" or "non-parallel") are in "vertices" and in each
operator's "parallelism_source"; the text marks an operator "(kept)", "(--vertex)" or
"(non-parallel)".

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

--out FILE.png|.svg draws one panel per task of the new job: a bar per new subtask of the bytes
its restore reads ("bytes_read"), stacked by the chain's operators, in B/KiB/MiB/GiB; refused
operators are listed below the panels and a refused plan is titled "REFUSED: <check>".
--embed-fonts embeds the fonts in an SVG.

` + planJobHelp

func runPlan(e *env, args []string) int {
	fset := cliflags.New("plan", "plan PATH [--latest] --parallelism P|--keep-parallelism [--vertex ID=P]... [--job FILE] [--flink V] [--allow-non-restored-state] [--channel-partitioner P] [--uid NAME]... [--uids FILE] [--format text|json] [--out FILE.png|.svg [--embed-fonts]]", planHelp)
	var par cliflags.Int
	fset.Var(&par, "parallelism", "the new parallelism `P` (1..32768); with --job the default for vertices that give none")
	latest := fset.Bool("latest", false, latestUsage)
	keep := fset.Bool("keep-parallelism", false, "keep every task at its old parallelism (with --job: the vertices that give none)")
	var vertexFlags stringList
	fset.Var(&vertexFlags, "vertex", "set the parallelism of the task holding operator `ID=P` (ID: 32 hex digits or uid:NAME; repeatable)")
	var uf uidFlags
	uf.register(fset)
	jobPath := fset.String("job", "", "describe the new job in `FILE` (YAML or JSON, format above; - reads stdin)")
	flinkFlag := fset.String("flink", savepointFlinkDefault.String(), "the Flink version `V` whose restore path runs: "+model.FlinkVersionNames()+"; the default is the newest modelled release")
	fset.Description += "\n\n" + savepointFlinkNote
	allow := fset.Bool("allow-non-restored-state", false, "skip checkpointed operators the new job does not have (--allowNonRestoredState)")
	partitioner := savepoint.DefaultChannelPartitioner
	fset.Var(&partitioner, "channel-partitioner", "the partitioner `P` (FORWARD, REBALANCE, RESCALE, SHUFFLE, HASH, GLOBAL, BROADCAST or CUSTOM) assumed on the edges of in-flight channel state that no job-file vertex input gives (inputs: [{from: V, partitioner: P}], docs/plan.md)")
	format := fset.String("format", "text", "output format: text or json")
	chart := addChartFlags(fset)
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
	vs, err := savepoint.ParseVertexSettings("--vertex", vertexFlags)
	if err != nil {
		return e.failf("plan", "%v", err)
	}
	if par.Given {
		if err := model.CheckParallelismPreconditions(par.V); err != nil {
			return e.failf("plan", "--parallelism %d is out of bounds (want 1..%d)", par.V, model.UpperBoundMaxParallelism)
		}
	}
	if err := chart.check(); err != nil {
		return e.failf("plan", "%v", err)
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
	_ = uids.Add(vs.UIDs...) // not empty: ParseVertexSetting checked them
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
	sp, err := openSavepoint(e, pos[0], *latest)
	if err != nil && !(sp != nil && errors.Is(err, metadata.ErrUnsupportedVersion)) {
		// A format version no Flink this tool models reads (format version 1 is Flink 1.2's,
		// which Flink 1.4 and later refuse) is a refusal, not bad input: it is planned.
		return e.failf("plan", "%v", err)
	}
	if sp.File != nil {
		uids.Label(sp.File)
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: version, Parallelism: par.V, Job: job, AllowNonRestoredState: *allow,
		KeepParallelism: *keep, VertexParallelism: vs.Parallelism, ChannelPartitioner: partitioner})
	var unknown *savepoint.UnknownOperatorError
	if errors.As(err, &unknown) {
		return e.failf("plan", "--vertex %s: %v", excerpt.Quote(vs.Given[unknown.OperatorID], 80), err)
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
		_ = pl.WriteText(&buf) // a bytes.Buffer does not fail
	}
	if err := chart.write(plots.NewPlanChart(pl).Chart); err != nil {
		return e.failf("plan", "%v", err)
	}
	if rc := writeOut(e, "plan", buf.Bytes()); rc != exitOK {
		return rc
	}
	if !pl.Restorable {
		return exitViolation
	}
	return exitOK
}

// openSavepoint opens the checkpoint at p (objstore.Open: a _metadata file or checkpoint
// directory, a local path or an s3://, gs://, azblob:// URL); with latest the newest chk-N of the
// checkpoint root p (objstore.OpenLatest); or the metadata on stdin for "-".
func openSavepoint(e *env, p string, latest bool) (*savepoint.Savepoint, error) {
	switch {
	case p == stdinName && latest:
		return nil, errors.New("--latest lists a checkpoint root: it cannot read stdin")
	case p == stdinName:
		return savepoint.Read(e.stdin, inputName(p))
	case latest:
		return objstore.OpenLatest(context.Background(), p)
	}
	return objstore.Open(context.Background(), p)
}
