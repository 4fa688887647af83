package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
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
	fset := newFlags("plan", "plan PATH --parallelism P [--job FILE] [--flink 1.18|1.10.1] [--allow-non-restored-state] [--format text|json] [--out FILE.png|.svg]", planHelp)
	var par optInt
	fset.Var(&par, "parallelism", "the new parallelism `P` (1..32768); with --job the default for vertices that give none")
	jobPath := fset.String("job", "", "describe the new job in `FILE` (YAML or JSON, format above; - reads stdin)")
	flinkFlag := fset.String("flink", "1.18", "the Flink version whose restore path runs: 1.18 or 1.10.1")
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
		return e.failf("plan", "unknown --flink %q (want 1.18 or 1.10.1)", *flinkFlag)
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
	var job []planVertex
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
	path, fh, err := openMetadata(e, pos[0])
	if err != nil {
		return e.failf("plan", "%v", err)
	}
	f, err := metadata.ReadFrom(fh, metadata.DefaultMaxFileSize)
	fh.Close()
	var pl *planJSON
	switch {
	case errors.Is(err, metadata.ErrUnsupportedVersion):
		// A savepoint no Flink this tool models reads (format version 1 is Flink 1.2's, which
		// Flink 1.4 and later refuse): a refusal, not bad input. There is nothing to plan.
		pl = unreadablePlan(path, version, par, job != nil, err)
		if v, ok := stdinFormatVersion(fh); ok {
			pl.FormatVersion = v // stdin cannot be read again
		}
	case err != nil:
		return e.failf("plan", "%s: %v", path, err)
	default:
		pl, err = buildPlan(planInput{
			Path: path, Pointer: externalPointer(path), File: f, Version: version,
			Parallelism: par.v, Job: job, AllowNonRestoredState: *allow,
		})
		if err != nil {
			return e.failf("plan", "%s: %v", path, err)
		}
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

// unreadablePlan is the plan of a metadata file whose format version Flink refuses to read.
func unreadablePlan(path string, v model.FlinkVersion, par optInt, job bool, err error) *planJSON {
	msg, check := err.Error(), "metadata-version"
	pl := &planJSON{Path: path, Flink: v.String(), Job: job, Error: &msg, Check: &check,
		Operators: []planOperator{}, NewOps: []planNewOperator{}}
	if b, rerr := os.ReadFile(path); rerr == nil && len(b) >= 8 {
		pl.FormatVersion = int32(uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
	}
	if par.set {
		p := par.v
		pl.NewParallelism = &p
	}
	return pl
}

// externalPointer is the checkpoint directory Flink names in its messages (SPEC §I): the
// directory of the metadata file, qualified with the file scheme.
func externalPointer(metadataPath string) string {
	abs, err := filepath.Abs(metadataPath)
	if err != nil {
		return ""
	}
	loc, err := model.ResolveCheckpointPointer(planOSFS{}, filepath.ToSlash(abs))
	if err != nil {
		return ""
	}
	return loc.ExternalPointer
}

// planOSFS is model.CheckpointFS over the local file system (scheme file only).
type planOSFS struct{}

func (planOSFS) Stat(p string) (model.FileInfo, error) {
	rest, ok := strings.CutPrefix(p, "file:")
	if !ok {
		return model.FileInfo{}, model.ErrUnsupportedFileSystemScheme
	}
	fi, err := os.Stat(filepath.FromSlash(rest))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return model.FileInfo{}, fs.ErrNotExist
		}
		return model.FileInfo{}, err
	}
	return model.FileInfo{IsDir: fi.IsDir(), Len: fi.Size()}, nil
}

// The plan, as printed in JSON. Lists are never null.

type planJSON struct {
	Path           string `json:"path"`
	Flink          string `json:"flink"`
	FormatVersion  int32  `json:"format_version"`
	CheckpointID   int64  `json:"checkpoint_id"`
	NewParallelism *int   `json:"new_parallelism"`
	Job            bool   `json:"job"`
	Restorable     bool   `json:"restorable"`
	// Error, Check and OperatorID describe the first refusal in Flink's order (null when none).
	Error      *string           `json:"error"`
	Check      *string           `json:"check"`
	OperatorID *string           `json:"operator_id"`
	Operators  []planOperator    `json:"operators"`
	NewOps     []planNewOperator `json:"new_operators"`
}

type planOperator struct {
	OperatorID     string `json:"operator_id"`
	Name           string `json:"name,omitempty"`
	UID            string `json:"uid,omitempty"`
	OldParallelism int    `json:"old_parallelism"`
	// MaxParallelism is the state's max parallelism, as in the checkpoint.
	MaxParallelism int     `json:"max_parallelism"`
	Valid          bool    `json:"valid"`
	Error          *string `json:"error"`
	Check          *string `json:"check"`
	// Status: "restored", "dropped" (the new job does not take the state) or "refused".
	Status string `json:"status"`
	// Vertex, Parallelism and NewMaxParallelism describe the new task that takes the state
	// (null/0 when none); NewMaxParallelism (possibly adopted) decides the key groups.
	Vertex            *string       `json:"vertex"`
	ChainPosition     *int          `json:"chain_position"`
	Parallelism       int           `json:"new_parallelism"`
	NewMaxParallelism int           `json:"new_max_parallelism"`
	StateBytes        int64         `json:"state_bytes"`
	Notes             []string      `json:"notes"`
	Subtasks          []planSubtask `json:"subtasks"`
}

type planSubtask struct {
	Index     int    `json:"index"`
	KeyGroups [2]int `json:"key_groups"`
	// RestoreObject is false when the subtask starts without restore information.
	RestoreObject        bool                    `json:"restore_object"`
	Finished             bool                    `json:"finished,omitempty"`
	StateBytes           int64                   `json:"state_bytes"`
	ManagedKeyedState    []planKeyed             `json:"managed_keyed_state"`
	RawKeyedState        []planKeyed             `json:"raw_keyed_state"`
	ManagedOperatorState map[string]*planOpState `json:"managed_operator_state"`
	RawOperatorState     map[string]*planOpState `json:"raw_operator_state"`
}

type planKeyed struct {
	OldSubtask int    `json:"old_subtask"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Handle     string `json:"handle"`
	Bytes      int64  `json:"bytes"`
}

type planOpState struct {
	Mode  string   `json:"mode"`
	Pairs [][2]int `json:"pairs"`
	Bytes int64    `json:"bytes"`
}

// planNewOperator is an operator of the --job that finds no state (it starts empty).
type planNewOperator struct {
	OperatorID string `json:"operator_id"`
	Label      string `json:"label,omitempty"`
	Vertex     string `json:"vertex"`
}

type planInput struct {
	Path, Pointer         string
	File                  *metadata.File
	Version               model.FlinkVersion
	Parallelism           int // 0: not given
	Job                   []planVertex
	AllowNonRestoredState bool
}

// planRefusal is a refusal: Flink's error and the name of the check.
type planRefusal struct {
	err   error
	check string
}

// buildPlan runs the model's restore path and assembles the plan. An error means bad input.
func buildPlan(in planInput) (*planJSON, error) {
	v := in.Version
	md := in.File.ModelFor(v)
	vertices := in.Job
	if vertices == nil {
		vertices = defaultPlanVertices(in.File, in.Parallelism)
	}
	jobVertices := make([]model.JobVertex, len(vertices))
	for i := range vertices {
		jobVertices[i] = vertices[i].JobVertex
	}
	out := &planJSON{Path: in.Path, Flink: v.String(), FormatVersion: in.File.Version, CheckpointID: md.CheckpointID,
		Job: in.Job != nil, Restorable: true, Operators: []planOperator{}, NewOps: []planNewOperator{}}
	if in.Parallelism > 0 {
		p := in.Parallelism
		out.NewParallelism = &p
	}
	var first *planRefusal
	refuse := func(r planRefusal, op *model.OperatorID) {
		if first != nil {
			return
		}
		first = &r
		out.Restorable = false
		msg := r.err.Error()
		out.Error, out.Check = &msg, &r.check
		if op != nil {
			s := op.String()
			out.OperatorID = &s
		}
	}
	// Flink's metadata reader (MetadataSerializers.getSerializer) knows versions 1–2 in 1.10.1
	// and 1–4 in 1.18.
	maxV := int32(4)
	if v == model.Flink1101 {
		maxV = 2
	}
	if in.File.Version > maxV {
		refuse(planRefusal{check: "metadata-version", err: fmt.Errorf(
			"metadata format version %d cannot be read by Flink %v, which reads versions up to %d (\"Unrecognized checkpoint version number: %d\")",
			in.File.Version, v, maxV, in.File.Version)}, nil)
	}

	notes := make([][]string, len(md.Operators))
	if v == model.Flink1101 {
		for i := range md.Operators {
			if md.Operators[i].FullyFinished {
				// Only a file Flink 1.10.1 cannot read (format version 3+) has these.
				md.Operators[i].FullyFinished = false
				notes[i] = append(notes[i], "fully finished (FLIP-147), which Flink 1.10.1 does not know: planned as a state without subtask entries")
			}
		}
	}
	run, err := runRestore(in, md, vertices, jobVertices, refuse)
	if err != nil {
		return nil, err
	}
	cc, asg, opErr, stripped := run.cc, run.asg, run.opErr, run.stripped
	for i := range md.Operators {
		if stripped[i] && hasChannelState(&md.Operators[i]) {
			notes[i] = append(notes[i], fmt.Sprintf("in-flight channel state (%d handles) is not planned: Flink redistributes it at a changed parallelism with the job's partitioners, which the model does not have", countChannelHandles(&md.Operators[i])))
		}
	}

	// Which chain position took which state (SPEC §F.1 step 2 / §F.2), for labelling only.
	accepted := map[model.OperatorID]bool{}
	for i := range cc.Operators {
		accepted[cc.Operators[i].OperatorID] = true
	}
	refusedIDs := map[model.OperatorID]bool{}
	for i := range md.Operators {
		if opErr[i] != nil {
			refusedIDs[md.Operators[i].OperatorID] = true
		}
	}
	type pos struct{ vertex, k int }
	claimed := map[model.OperatorID]pos{}
	remaining := map[model.OperatorID]bool{}
	for id := range accepted {
		remaining[id] = true
	}
	for vi := range vertices {
		for k, op := range vertices[vi].Operators {
			id := op.ID
			if op.UserDefinedID != nil && (remaining[*op.UserDefinedID] || v == model.Flink1101) {
				id = *op.UserDefinedID
			}
			if remaining[id] {
				delete(remaining, id)
				claimed[id] = pos{vi, k}
			} else if !refusedIDs[op.ID] && (op.UserDefinedID == nil || !refusedIDs[*op.UserDefinedID]) {
				out.NewOps = append(out.NewOps, planNewOperator{OperatorID: op.ID.String(), Label: vertices[vi].labels[k], Vertex: vertices[vi].Name})
			}
		}
	}
	byID := map[model.OperatorID]*model.OperatorState{}
	for i := range cc.Operators {
		byID[cc.Operators[i].OperatorID] = &cc.Operators[i]
	}

	for i := range md.Operators {
		os := &md.Operators[i]
		fo := &in.File.Operators[i]
		po := planOperator{OperatorID: os.OperatorID.String(), Name: fo.Name, UID: fo.UID, OldParallelism: os.Parallelism,
			MaxParallelism: os.MaxParallelism, Valid: true, Status: "restored", Notes: notes[i], Subtasks: []planSubtask{}}
		if po.Notes == nil {
			po.Notes = []string{}
		}
		if r := opErr[i]; r != nil {
			msg := r.err.Error()
			po.Valid, po.Error, po.Check, po.Status = false, &msg, &r.check, "refused"
			out.Operators = append(out.Operators, po)
			continue
		}
		at, ok := claimed[os.OperatorID]
		if !ok {
			po.Status = "dropped"
			switch {
			case !accepted[os.OperatorID] && in.AllowNonRestoredState:
				po.Notes = append(po.Notes, "no operator of the new job has this ID; skipped (--allow-non-restored-state)")
			case !accepted[os.OperatorID]:
				po.Notes = append(po.Notes, "no operator of the new job has this ID; Flink skips it because it holds no state")
			default:
				po.Notes = append(po.Notes, "not taken: the operator with this user-defined ID took its state under its generated ID")
			}
			out.Operators = append(out.Operators, po)
			continue
		}
		vx := &vertices[at.vertex]
		va := &asg.Vertices[at.vertex]
		name, k := vx.Name, at.k
		po.Vertex, po.ChainPosition = &name, &k
		po.Parallelism, po.NewMaxParallelism = va.Parallelism, va.MaxParallelism
		if va.Adopted {
			po.Notes = append(po.Notes, fmt.Sprintf("the task's max parallelism %d is adopted from the restored state (it was not configured; default %d)", va.MaxParallelism, vx.MaxParallelism))
		}
		if hz := va.Hazard; hz != nil {
			ids := make([]string, len(hz.Mismatched))
			for j, id := range hz.Mismatched {
				ids[j] = id.String()
			}
			po.Notes = append(po.Notes, fmt.Sprintf("hazard: the chain's states carry different max parallelisms and Flink adopts the last one it checks (%d); the keyed state of [%s] is cut with a foreign key-group count", va.MaxParallelism, strings.Join(ids, " ")))
		}
		if !va.HasState && !va.FullyFinished {
			po.Notes = append(po.Notes, "the state has no subtask entries: Flink does not reassign it and the subtasks start without restore information")
		}
		old := byID[os.OperatorID]
		if old == nil {
			old = os
		}
		ix := indexOldState(old)
		for s := 0; s < va.Parallelism; s++ {
			var r model.KeyGroupRange
			if va.Ranges != nil {
				r = va.Ranges[s]
			} else {
				var err error
				if r, err = model.ComputeKeyGroupRangeForOperatorIndex(va.MaxParallelism, va.Parallelism, s); err != nil {
					return nil, err
				}
			}
			ps := planSubtask{Index: s, KeyGroups: [2]int{r.Start, r.End}, ManagedKeyedState: []planKeyed{}, RawKeyedState: []planKeyed{},
				ManagedOperatorState: map[string]*planOpState{}, RawOperatorState: map[string]*planOpState{}}
			if t := va.Subtasks[s]; t != nil {
				ps.RestoreObject = true
				ps.Finished = t.Finished
				if !t.Finished {
					st := &t.Operators[k].State
					var err error
					if ps.ManagedKeyedState, err = ix.keyed(st.ManagedKeyedState, false); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, managed keyed state: %w", os.OperatorID, s, err)
					}
					if ps.RawKeyedState, err = ix.keyed(st.RawKeyedState, true); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, raw keyed state: %w", os.OperatorID, s, err)
					}
					if ps.ManagedOperatorState, err = ix.operator(st.ManagedOperatorState, false); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, managed operator state: %w", os.OperatorID, s, err)
					}
					if ps.RawOperatorState, err = ix.operator(st.RawOperatorState, true); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, raw operator state: %w", os.OperatorID, s, err)
					}
				}
			}
			for _, l := range [][]planKeyed{ps.ManagedKeyedState, ps.RawKeyedState} {
				for _, h := range l {
					ps.StateBytes += h.Bytes
				}
			}
			for _, m := range []map[string]*planOpState{ps.ManagedOperatorState, ps.RawOperatorState} {
				for _, st := range m {
					ps.StateBytes += st.Bytes
				}
			}
			po.StateBytes += ps.StateBytes
			po.Subtasks = append(po.Subtasks, ps)
		}
		out.Operators = append(out.Operators, po)
	}
	return out, nil
}

// planRun is the outcome of runRestore.
type planRun struct {
	cc  *model.CompletedCheckpoint
	asg *model.Assignment
	// opErr is the refusal of each metadata operator (nil: its checks pass).
	opErr []*planRefusal
	// stripped marks operators whose in-flight channel state was left out.
	stripped []bool
}

// runRestore runs the model's restore path (LoadAndValidateCheckpoint, then AssignStates)
// until it passes: each refusal is reported to refuse (the first one is Flink's verdict),
// attributed to the operators it is about, and their state is taken out for the next run, so
// that every operator is judged. In-flight channel state that the model cannot rescale is left
// out of the operators the model names. An error means bad input.
func runRestore(in planInput, md model.CheckpointMetadata, vertices []planVertex, jobVertices []model.JobVertex,
	refuse func(planRefusal, *model.OperatorID)) (*planRun, error) {
	v := in.Version
	n := len(md.Operators)
	active := make([]bool, n)
	for i := range active {
		active[i] = true
	}
	opErr := make([]*planRefusal, n)
	stripped := make([]bool, n)
	var cc *model.CompletedCheckpoint
	var asg *model.Assignment
	for iter := 0; ; iter++ {
		if iter > 2*n+2 {
			return nil, errors.New("model: internal error: the plan does not converge")
		}
		sub := md
		sub.Operators = nil
		for i := range md.Operators {
			if !active[i] {
				continue
			}
			os := md.Operators[i]
			if stripped[i] {
				os = withoutChannelState(os)
			}
			sub.Operators = append(sub.Operators, os)
		}
		var err error
		cc, err = model.LoadAndValidateCheckpoint(model.LoadInput{Version: v, Metadata: sub, Vertices: jobVertices,
			AllowNonRestoredState: in.AllowNonRestoredState, Properties: savepointProps(md), ExternalPointer: in.Pointer})
		if err == nil {
			asg, err = model.AssignStates(model.AssignmentInput{Version: v, CheckpointID: cc.CheckpointID, Vertices: jobVertices,
				Operators: cc.Operators, AllowNonRestoredState: in.AllowNonRestoredState})
		}
		if err == nil {
			break
		}
		if errors.Is(err, model.ErrInvalidRestoreInput) || errors.Is(err, model.ErrUnknownFlinkVersion) {
			return nil, err
		}
		if errors.Is(err, model.ErrChannelStateRescaleNotModelled) {
			hit := false
			for i := range md.Operators {
				if active[i] && !stripped[i] && strings.Contains(err.Error(), md.Operators[i].OperatorID.String()) {
					stripped[i], hit = true, true
				}
			}
			if !hit {
				for i := range md.Operators {
					stripped[i] = true
				}
			}
			continue
		}
		culprits := attributeRefusal(err, md.Operators, active, vertices)
		r := planRefusal{err: err, check: checkName(err)}
		var named *model.OperatorID
		if len(culprits) > 0 {
			id := md.Operators[culprits[0]].OperatorID
			named = &id
		}
		refuse(r, named)
		if len(culprits) == 0 {
			// Not attributable to an operator: every remaining operator is left unjudged.
			for i := range active {
				if active[i] {
					rr := r
					opErr[i] = &rr
					active[i] = false
				}
			}
			continue
		}
		for _, i := range culprits {
			rr := r
			opErr[i] = &rr
			active[i] = false
		}
	}
	return &planRun{cc: cc, asg: asg, opErr: opErr, stripped: stripped}, nil
}

// defaultPlanVertices makes one task per checkpointed operator: parallelism p, max parallelism
// not configured (Flink's default for p).
func defaultPlanVertices(f *metadata.File, p int) []planVertex {
	m, err := model.ComputeDefaultMaxParallelism(p)
	if err != nil {
		m = model.UpperBoundMaxParallelism // p was checked by the caller
	}
	out := make([]planVertex, len(f.Operators))
	for i := range f.Operators {
		op := &f.Operators[i]
		name := "operator " + op.ID.String()
		if op.Name != "" {
			name = op.Name + " (" + op.ID.String() + ")"
		}
		out[i] = planVertex{JobVertex: model.JobVertex{Name: name, Operators: []model.JobOperator{{ID: op.ID}},
			Parallelism: p, MaxParallelism: m}, labels: []string{op.UID}}
	}
	return out
}

// savepointProps gives the restored checkpoint's properties (only informative here).
func savepointProps(md model.CheckpointMetadata) model.CheckpointProperties {
	if md.Properties != nil {
		return *md.Properties
	}
	return model.CheckpointProperties{Savepoint: true, Forced: true}
}

func hasChannelState(os *model.OperatorState) bool { return countChannelHandles(os) > 0 }

func countChannelHandles(os *model.OperatorState) int {
	n := 0
	for _, st := range os.Subtasks {
		if st != nil {
			n += len(st.InputChannelState) + len(st.ResultSubpartitionState)
		}
	}
	return n
}

func withoutChannelState(os model.OperatorState) model.OperatorState {
	subs := make([]*model.OperatorSubtaskState, len(os.Subtasks))
	for j, st := range os.Subtasks {
		if st == nil {
			continue
		}
		c := *st
		c.InputChannelState, c.ResultSubpartitionState = nil, nil
		subs[j] = &c
	}
	os.Subtasks = subs
	return os
}

// checkName names the Flink check behind a refusal.
func checkName(err error) string {
	for _, c := range []struct {
		target error
		name   string
	}{
		{model.ErrNoOperatorForState, "no-operator-for-state"},
		{model.ErrNonRestoredState, "non-restored-state"},
		{model.ErrMaxParallelismMismatch, "max-parallelism-mismatch"},
		{model.ErrMaxParallelismBelowNewParallelism, "max-parallelism-below-parallelism"},
		{model.ErrMaxParallelismChangeNotSupported, "max-parallelism-change"},
		{model.ErrMaxParallelismOutOfBounds, "max-parallelism-out-of-bounds"},
		{model.ErrMixedFinishedOperators, "mixed-finished-operators"},
		{model.ErrRawKeyedStateWithoutManaged, "raw-keyed-without-managed"},
		{model.ErrNullKeyedStateHandles, "null-keyed-state-handles"},
		{model.ErrChannelStateTopologyChange, "channel-state-topology-change"},
	} {
		if errors.Is(err, c.target) {
			return c.name
		}
	}
	return "restore"
}

// attributeRefusal finds the active metadata operators a refusal is about: the operator ID the
// error carries, the operators of the vertex it names, or those whose ID its message mentions.
func attributeRefusal(err error, ops []model.OperatorState, active []bool, vertices []planVertex) []int {
	byID := func(id model.OperatorID) []int {
		for i := range ops {
			if active[i] && ops[i].OperatorID == id {
				return []int{i}
			}
		}
		// A generated ID whose state was stored under the operator's user-defined ID.
		for _, vx := range vertices {
			for _, op := range vx.Operators {
				if op.ID == id && op.UserDefinedID != nil {
					for i := range ops {
						if active[i] && ops[i].OperatorID == *op.UserDefinedID {
							return []int{i}
						}
					}
				}
			}
		}
		return nil
	}
	ofVertex := func(vx *planVertex) []int {
		var out []int
		for i := range ops {
			if !active[i] {
				continue
			}
			for _, op := range vx.Operators {
				if ops[i].OperatorID == op.ID || op.UserDefinedID != nil && ops[i].OperatorID == *op.UserDefinedID {
					out = append(out, i)
					break
				}
			}
		}
		return out
	}
	var (
		noOp    *model.NoOperatorForStateError
		mis     *model.MaxParallelismMismatchError
		below   *model.MaxParallelismBelowNewParallelismError
		change  *model.MaxParallelismChangeNotSupportedError
		nonRest *model.NonRestoredStateError
		raw     *model.RawKeyedStateWithoutManagedError
		null    *model.NullKeyedStateHandlesError
		bounds  *model.MaxParallelismOutOfBoundsError
		mixed   *model.MixedFinishedOperatorsError
	)
	switch {
	case errors.As(err, &noOp):
		return byID(noOp.OperatorID)
	case errors.As(err, &mis):
		return byID(mis.OperatorID)
	case errors.As(err, &below):
		return byID(below.OperatorID)
	case errors.As(err, &change):
		return byID(change.OperatorID)
	case errors.As(err, &nonRest):
		return byID(nonRest.OperatorID)
	case errors.As(err, &raw):
		return byID(raw.OperatorID)
	case errors.As(err, &null):
		return byID(null.OperatorID)
	case errors.As(err, &bounds):
		var out []int
		for i := range ops {
			if active[i] && ops[i].MaxParallelism == bounds.MaxParallelism {
				out = append(out, i)
			}
		}
		return out
	case errors.As(err, &mixed):
		for i := range vertices {
			if vertices[i].Name == mixed.Vertex {
				return ofVertex(&vertices[i])
			}
		}
	}
	msg := err.Error()
	var out []int
	for i := range ops {
		if active[i] && strings.Contains(msg, ops[i].OperatorID.String()) {
			out = append(out, i)
		}
	}
	if len(out) > 0 {
		return out
	}
	best := -1
	for i := range vertices {
		if strings.Contains(msg, "vertex "+vertices[i].Name) && (best < 0 || len(vertices[i].Name) > len(vertices[best].Name)) {
			best = i
		}
	}
	if best >= 0 {
		return ofVertex(&vertices[best])
	}
	return nil
}

// oldIndex locates an operator's old handles so that what a new subtask receives can be named
// by old subtask and offset index.
type oldIndex struct {
	os *model.OperatorState
}

func indexOldState(os *model.OperatorState) *oldIndex { return &oldIndex{os: os} }

type oldKeyed struct {
	subtask int
	h       model.KeyedStateHandle
}

func (x *oldIndex) keyedSeq(raw bool) []oldKeyed {
	var seq []oldKeyed
	for j, st := range x.os.Subtasks {
		if st == nil {
			continue
		}
		l := st.ManagedKeyedState
		if raw {
			l = st.RawKeyedState
		}
		for _, h := range l {
			if h != nil {
				seq = append(seq, oldKeyed{j, h})
			}
		}
	}
	return seq
}

// sameKeyedHandle reports whether got is old or a cut of it (same underlying stream and
// handle ID, a range inside old's).
func sameKeyedHandle(old, got model.KeyedStateHandle) bool {
	if old == got {
		return true
	}
	or, gr := old.KeyGroupRange(), got.KeyGroupRange()
	if gr.Start < or.Start || gr.End > or.End {
		return false
	}
	switch o := old.(type) {
	case *model.KeyGroupsStateHandle:
		g, ok := got.(*model.KeyGroupsStateHandle)
		return ok && g.Delegate == o.Delegate && g.StateHandleID == o.StateHandleID && g.Savepoint == o.Savepoint
	case *metadata.ChangelogStateBackendHandle:
		g, ok := got.(*metadata.ChangelogStateBackendHandle)
		return ok && g.StateHandleID == o.StateHandleID && g.CheckpointID == o.CheckpointID && g.MaterializationID == o.MaterializationID
	case *metadata.ChangelogStateHandle:
		g, ok := got.(*metadata.ChangelogStateHandle)
		return ok && g.StateHandleID == o.StateHandleID && g.StorageID == o.StorageID && g.Size == o.Size
	}
	return false
}

// keyed maps received keyed handles, in order, to the old handles they come from (the model
// keeps Flink's order: old subtasks ascending, handles in order).
func (x *oldIndex) keyed(got []model.KeyedStateHandle, raw bool) ([]planKeyed, error) {
	out := []planKeyed{}
	seq := x.keyedSeq(raw)
	c := 0
	for _, g := range got {
		if g == nil {
			continue
		}
		for c < len(seq) && !sameKeyedHandle(seq[c].h, g) {
			c++
		}
		if c == len(seq) {
			return nil, fmt.Errorf("model: internal error: received keyed handle %T %v matches no old handle", g, g.KeyGroupRange())
		}
		r := g.KeyGroupRange()
		out = append(out, planKeyed{OldSubtask: seq[c].subtask, Start: r.Start, End: r.End, Handle: keyedKind(g), Bytes: keyedReceivedBytes(seq[c].h, g)})
		c++
	}
	return out, nil
}

func keyedKind(h model.KeyedStateHandle) string {
	switch h := h.(type) {
	case *model.KeyGroupsStateHandle:
		if h.Savepoint {
			return "KeyGroupsSavepointStateHandle"
		}
		return "KeyGroupsStateHandle"
	case *model.IncrementalKeyedStateHandle:
		return "IncrementalRemoteKeyedStateHandle"
	case *metadata.ChangelogStateBackendHandle:
		return "ChangelogStateBackendHandle"
	case *metadata.ChangelogStateHandle:
		return "ChangelogStateHandle"
	}
	return fmt.Sprintf("%T", h)
}

// keyedReceivedBytes: for a key-groups handle the bytes of the received key groups (see the
// help); for other handles the whole handle.
func keyedReceivedBytes(old, got model.KeyedStateHandle) int64 {
	o, ok1 := old.(*model.KeyGroupsStateHandle)
	g, ok2 := got.(*model.KeyGroupsStateHandle)
	if !ok1 || !ok2 {
		return got.StateSize()
	}
	ends := sortedPositive(o.Offsets.Offsets)
	var n int64
	for _, off := range g.Offsets.Offsets {
		n += elementBytes(ends, off, o.Delegate.Size)
	}
	return n
}

// sortedPositive gives the distinct positive offsets in ascending order.
func sortedPositive(offs []int64) []int64 {
	var s []int64
	for _, o := range offs {
		if o > 0 {
			s = append(s, o)
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// elementBytes is the size of the element at off: up to the next larger offset, or to the end
// of the stream; 0 for offset 0 (an empty key group) or an offset past the end.
func elementBytes(sorted []int64, off, size int64) int64 {
	if off <= 0 {
		return 0
	}
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] > off })
	end := size
	if i < len(sorted) && sorted[i] < end {
		end = sorted[i]
	}
	if end < off {
		return 0
	}
	return end - off
}

type oldOpHandle struct {
	subtask int
	h       *model.OperatorStateHandle
	used    map[string][]bool // per name, offset positions already attributed
}

func (x *oldIndex) operatorHandles(raw bool) []*oldOpHandle {
	var out []*oldOpHandle
	for j, st := range x.os.Subtasks {
		if st == nil {
			continue
		}
		l := st.ManagedOperatorState
		if raw {
			l = st.RawOperatorState
		}
		for k := range l {
			out = append(out, &oldOpHandle{subtask: j, h: &l[k], used: map[string][]bool{}})
		}
	}
	return out
}

// operator maps received operator-state handles to pairs [old subtask, offset index] by the
// identity of the delegate stream and the state name.
func (x *oldIndex) operator(got []model.OperatorStateHandle, raw bool) (map[string]*planOpState, error) {
	out := map[string]*planOpState{}
	olds := x.operatorHandles(raw)
	type pair struct {
		subtask, handle, idx int
		bytes                int64
	}
	perName := map[string][]pair{}
	for _, g := range got {
		for _, s := range g.States {
			ps := out[s.Name]
			if ps == nil {
				ps = &planOpState{Mode: s.Mode.String(), Pairs: [][2]int{}}
				out[s.Name] = ps
			} else if !strings.Contains(ps.Mode, s.Mode.String()) {
				ps.Mode += "," + s.Mode.String()
			}
			if len(s.Offsets) == 0 {
				continue
			}
			found := false
			for hi, o := range olds {
				if o.h.Delegate != g.Delegate {
					continue
				}
				for _, os := range o.h.States {
					if os.Name != s.Name {
						continue
					}
					at := findRun(os.Offsets, s.Offsets, o.used[s.Name])
					if at < 0 {
						continue
					}
					if o.used[s.Name] == nil {
						o.used[s.Name] = make([]bool, len(os.Offsets))
					}
					all := allOffsets(o.h)
					for q := range s.Offsets {
						o.used[s.Name][at+q] = true
						perName[s.Name] = append(perName[s.Name], pair{o.subtask, hi, at + q, elementBytes(all, os.Offsets[at+q], o.h.Delegate.Size)})
					}
					found = true
					break
				}
				if found {
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("model: internal error: received offsets %v of %q match no old handle", s.Offsets, s.Name)
			}
		}
	}
	for name, ps := range perName {
		sort.SliceStable(ps, func(a, b int) bool {
			if ps[a].handle != ps[b].handle {
				return ps[a].handle < ps[b].handle
			}
			return ps[a].idx < ps[b].idx
		})
		st := out[name]
		for _, p := range ps {
			st.Pairs = append(st.Pairs, [2]int{p.subtask, p.idx})
			st.Bytes += p.bytes
		}
	}
	return out, nil
}

// findRun finds want as a contiguous run of offs whose positions are not yet used; -1 if none.
func findRun(offs, want []int64, used []bool) int {
	for at := 0; at+len(want) <= len(offs); at++ {
		ok := true
		for q := range want {
			if offs[at+q] != want[q] || used != nil && used[at+q] {
				ok = false
				break
			}
		}
		if ok {
			return at
		}
	}
	return -1
}

func allOffsets(h *model.OperatorStateHandle) []int64 {
	var all []int64
	for _, s := range h.States {
		all = append(all, s.Offsets...)
	}
	return sortedPositive(all)
}

// Text form.

func writePlanText(w io.Writer, pl *planJSON) {
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
			for _, l := range [][]planKeyed{s.ManagedKeyedState, s.RawKeyedState} {
				for _, h := range l {
					kb += h.Bytes
				}
			}
			entries := 0
			for _, m := range []map[string]*planOpState{s.ManagedOperatorState, s.RawOperatorState} {
				for _, st := range m {
					entries += len(st.Pairs)
				}
			}
			fmt.Fprintf(w, ", keyed state %d bytes, operator state %d entries, %d bytes\n", kb, entries, s.StateBytes-kb)
			for _, kind := range []struct {
				name string
				l    []planKeyed
			}{{"managed keyed", s.ManagedKeyedState}, {"raw keyed", s.RawKeyedState}} {
				for _, h := range kind.l {
					fmt.Fprintf(w, "    %s: old subtask %d key groups %d..%d (%s), %d bytes\n", kind.name, h.OldSubtask, h.Start, h.End, h.Handle, h.Bytes)
				}
			}
			for _, kind := range []struct {
				name string
				m    map[string]*planOpState
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
func writePlanChart(path string, pl *planJSON) error {
	f, err := plots.FormatOf(path)
	if err != nil {
		return err
	}
	width := 0
	type series struct {
		label string
		vals  plotter.Values
	}
	var ss []series
	for _, o := range pl.Operators {
		if o.StateBytes == 0 {
			continue
		}
		vals := make(plotter.Values, len(o.Subtasks))
		for i, s := range o.Subtasks {
			vals[i] = float64(s.StateBytes)
		}
		width = max(width, len(vals))
		label := o.OperatorID[:8]
		if o.UID != "" {
			label = o.UID
		} else if o.Name != "" {
			label = o.Name
		}
		ss = append(ss, series{label, vals})
	}
	target := "the --job"
	if pl.NewParallelism != nil {
		target = fmt.Sprintf("p=%d", *pl.NewParallelism)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("State bytes per new subtask: %s, Flink %s, %s", filepath.Base(pl.Path), pl.Flink, target)
	p.X.Label.Text = "new subtask"
	p.Y.Label.Text = "state bytes received"
	p.Add(plotter.NewGrid())
	if len(ss) == 0 {
		p.Title.Text += " (no state)"
		width = 1
	}
	for i := range ss {
		for len(ss[i].vals) < width {
			ss[i].vals = append(ss[i].vals, 0)
		}
	}
	const plotWidth = 6.8 * vg.Inch
	barW := max(min(plotWidth/vg.Length(width)*0.7, vg.Points(40)), vg.Points(0.5))
	var below *plotter.BarChart
	for i, s := range ss {
		b, err := plotter.NewBarChart(s.vals, barW)
		if err != nil {
			return err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		if i < 12 {
			p.Legend.Add(s.label, b)
		}
	}
	p.Legend.Top = true
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.3 // room for the legend
	if width <= 32 {
		names := make([]string, width)
		for i := range names {
			names[i] = fmt.Sprint(i)
		}
		p.NominalX(names...)
	}
	var buf bytes.Buffer
	wt, err := p.WriterTo(8*vg.Inch, 4.5*vg.Inch, f.String())
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return plots.WriteFileAtomic(path, buf.Bytes())
}
