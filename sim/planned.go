package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/sim/oracle"
)

// InvPlan: at every restore from a pointer, the restore planner (savepoint.PlanRestore, what
// `simulate plan` runs) on the _metadata the world wrote, for the new job, agrees with what the
// restore did and with the oracle: its verdict (accepted, or refused by the same check as the
// restore and for the reason the oracle expects), each operator state refused, dropped or
// restored (into the vertex and at the max parallelism) as the oracle judges it on its own, and
// per new subtask the keyed handles, key groups, operator-state entries and their bytes the
// oracle derives from the stored state (oracle.ExpectPlanned).
const InvPlan = "plan"

// checkPlan runs the planner as a user would on the snapshot f a restore of job j just read
// (restoreErr: the restore's refusal or failure, nil when accepted; cp: the checkpoint an
// accepted restore read, whose operator states are the snapshot's) and checks the plan.
// Restores from damaged storage are not planned (their failure is already judged), nor, per
// operator, those running into a known Flink issue.
func (w *World) checkPlan(step int, f snapshotFacts, j Job, allowNonRestored bool, exp expectation, restoreErr error, cp *model.CompletedCheckpoint) {
	if w.damaged(f.id) {
		return
	}
	fail := func(what, diff string) {
		w.violate(step, InvPlan, fmt.Sprintf("plan of snapshot %d: %s", f.id, what), diff)
	}
	sp, err := savepoint.Storage{FS: storageFS{w.fs}, Scheme: "file"}.Open(f.pointer, "")
	if err != nil {
		fail("cannot open: "+firstLine(err), "")
		return
	}
	jf := planJob(j)
	vertices, err := jf.Validate(0)
	if !exp.Accept && exp.Reason == oracle.MaxParallelismBelowParallelism {
		// Flink refuses to build such a job before any restore; so does the planner's job file.
		if err == nil {
			fail("the job file of a vertex whose max parallelism is below its parallelism was accepted", "")
		}
		return
	}
	if err != nil {
		fail("the new job's file: "+firstLine(err), "")
		return
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: w.plan.Version, Job: vertices, AllowNonRestoredState: allowNonRestored,
		Assign: w.assignModel})
	if err != nil {
		fail("planning failed: "+firstLine(err), "")
		return
	}

	// The verdict: the plan's against the restore's and the oracle's.
	restorable, first := pl.Restorable, true
	if w.plan.Version == model.Flink1101 && pl.Check != nil && *pl.Check == model.CheckMetadataVersion {
		// The 1.10.1 simulation writes format version 4 (model/doc.go), which Flink 1.10.1 does
		// not read: the plan refuses it first and judges the operators on. Its verdict is
		// theirs; which check Flink would raise first is not in the plan.
		restorable, first = !slices.ContainsFunc(pl.Operators, func(po savepoint.OperatorPlan) bool { return po.Status == "refused" }), false
	}
	var rf *model.RefusalError
	switch {
	case restorable && restoreErr != nil:
		fail("restorable, but the restore was refused: "+firstLine(restoreErr), "")
		return
	case !restorable && restoreErr == nil:
		fail(fmt.Sprintf("refused (%v), but the restore was accepted", firstLine(pl.Refusal)), "")
		return
	case first && !restorable && errors.As(restoreErr, &rf) && pl.Check != nil && rf.Check != *pl.Check:
		fail(fmt.Sprintf("refused by check %v, the restore by %v", *pl.Check, rf.Check), "")
		return
	}
	if w.known != "" {
		return
	}
	if restorable != exp.Accept || first && !exp.Accept && !errors.Is(pl.Refusal, exp.reason) {
		fail(fmt.Sprintf("restorable %v (%v), the oracle expects accepted %v (%v)", restorable, firstLine(pl.Refusal), exp.Accept, exp.reason), "")
		return
	}

	// Each operator state on its own.
	oj := oracleJob(j)
	oj.RefuseMaxParallelismDisagreement = w.plan.Version == model.FlinkMaster // (as expectOracle)
	verdicts, rest, ok := oracle.ExpectOperators(f.shape, oj, allowNonRestored)
	if !ok {
		return // a refusal of a whole vertex: which state a planner charges it to is not the oracle's to say
	}
	byID := map[string]*savepoint.OperatorPlan{}
	for i := range pl.Operators {
		byID[pl.Operators[i].OperatorID] = &pl.Operators[i]
	}
	gone := map[string]bool{}
	var want, got []string
	for _, ov := range verdicts {
		id := oracle.OperatorIDFromUID(ov.UID).String()
		want = append(want, ov.String())
		po := byID[id]
		if po == nil {
			got = append(got, ov.UID+" not in the plan")
			continue
		}
		got = append(got, describeOperatorPlan(ov, po))
		if ov.Status == oracle.Refused {
			gone[id] = true
		}
	}
	if !slices.Equal(want, got) {
		fail("operators judged otherwise than the oracle judges each on its own", diffLines(want, got))
		return
	}
	// What would work: a state refused as below the new parallelism restores at any parallelism
	// up to its stored max parallelism, the highest the plan must name; a state not refused has
	// none. (Not where FLINK-40113 picks a vertex's max parallelism, nor on 1.10.1, whose plan
	// refuses the format first: no parallelism restores a file it cannot read.)
	if first && !slices.Contains(rest.Hazard, true) {
		for _, ov := range verdicts {
			po := byID[oracle.OperatorIDFromUID(ov.UID).String()]
			m, stored := f.shape.StoredMax(ov.UID)
			switch {
			case ov.Status == oracle.Refused && ov.Reason == oracle.MaxParallelismBelowNewParallelism && stored &&
				(po.MaxRestorableParallelism == nil || *po.MaxRestorableParallelism != m):
				fail(fmt.Sprintf("%s, refused as below the new parallelism, restores at parallelism %s at most, the oracle says %d (its stored max parallelism)",
					ov.UID, describeMaxRestorable(po.MaxRestorableParallelism), m), "")
				return
			case ov.Status != oracle.Refused && po.MaxRestorableParallelism != nil:
				fail(fmt.Sprintf("%s is %v, but the plan names a max restorable parallelism %d for it", ov.UID, ov.Status, *po.MaxRestorableParallelism), "")
				return
			}
		}
	}

	// Per new subtask, what it reads and the bytes: the oracle's reference over the stored state
	// without the refused operators' (the plan goes on as if it were gone).
	maxPar := expectation{Expectation: rest}.maxParOf(f.shape)
	present := j.present()
	nvs := make([]oracle.NewVertex, len(present))
	for k, v := range present {
		nvs[k] = w.newVertex(v, maxPar(v))
	}
	var expect [][]map[string]*oracle.Planned
	if cp != nil && len(gone) == 0 {
		// The restore read the snapshot's operator states, and checkHanded asks the oracle alike.
		stored, handed := w.expectHanded(cp, nvs)
		expect = oracle.PlannedFrom(handed, stored, plainSizes(cp.Operators))
	} else {
		md := sp.ModelFor(w.plan.Version)
		var kept []model.OperatorState
		for _, os := range md.Operators {
			if !gone[os.OperatorID.String()] {
				kept = append(kept, os)
			}
		}
		expect = oracle.ExpectPlanned(w.plan.Version != model.Flink1101, plainStored(kept), plainSizes(kept), nvs)
	}
	reads := planReads{sorted: map[*savepoint.OperatorStatePart][][2]int{}}
	for k, v := range present {
		if v < len(rest.Hazard) && rest.Hazard[v] {
			continue // the key groups depend on the max parallelism FLINK-40113 picks
		}
		name := VertexName(v)
		var taking []int      // the plan's operators restored into this vertex
		var takerIDs []string // and the generated ID of the operator taking each
		for oi := range pl.Operators {
			if po := &pl.Operators[oi]; po.Status == "restored" && po.Vertex != nil && *po.Vertex == name {
				taking, takerIDs = append(taking, oi), append(takerIDs, generatedID(vertices, name, po.ChainPosition))
			}
		}
		var got takenReads // (scratch: one subtask's at a time)
		for i := range nvs[k].Parallelism {
			got = got[:0]
			for t, oi := range taking {
				po := &pl.Operators[oi]
				if i >= len(po.Subtasks) {
					continue
				}
				if s := &po.Subtasks[i]; reads.readsSome(s) {
					got = got.put(takerIDs[t], s) // the oracle's key: the taking operator's generated ID
				}
			}
			if !reads.same(expect[k][i], got) {
				fail(fmt.Sprintf("%s subtask %d reads other handles, entries or bytes than the oracle derives", name, i),
					diffLines(oracle.DescribePlanned(expect[k][i]), oracle.DescribePlanned(reads.asMap(got))))
				return
			}
		}
	}
}

// describeMaxRestorable is a plan's max restorable parallelism in words.
func describeMaxRestorable(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// generatedID is the generated ID of the operator at chain position k of the vertex named name
// ("" when there is none).
func generatedID(vertices []savepoint.Vertex, name string, k *int) string {
	for _, v := range vertices {
		if v.Name == name && k != nil && *k < len(v.Operators) {
			return v.Operators[*k].ID.String()
		}
	}
	return ""
}

// describeOperatorPlan is an operator's plan in the words of oracle.OperatorVerdict.String.
// (want is the oracle's verdict, whose words for the max parallelism a hazard picks it takes.)
func describeOperatorPlan(want oracle.OperatorVerdict, po *savepoint.OperatorPlan) string {
	uid := want.UID
	switch po.Status {
	case "refused":
		reason := "unknown reason"
		for r, e := range refusalErrors {
			if errors.Is(po.Refusal, e) {
				reason = r.String()
			}
		}
		return fmt.Sprintf("%s refused (%s)", uid, reason)
	case "restored":
		v := -1
		if po.Vertex != nil {
			v = vertexIndex(*po.Vertex)
		}
		if want.Status == oracle.Restored && want.MaxParallelism == 0 {
			return fmt.Sprintf("%s restored into vertex %d (FLINK-40113 picks the max parallelism)", uid, v)
		}
		return fmt.Sprintf("%s restored into vertex %d at max parallelism %d", uid, v, po.NewMaxParallelism)
	}
	return uid + " " + po.Status
}

// vertexIndex is the vertex index VertexName names (-1 for another name).
func vertexIndex(name string) int {
	switch name {
	case "source":
		return 0
	case "keyed":
		return 1
	}
	var v int
	if _, err := fmt.Sscanf(name, "v%d", &v); err != nil || v < 2 {
		return -1
	}
	return v
}

// planReads compares what a plan's subtasks read with the oracle's plain values, once for each
// part or pairs list that subtasks share (UNION state); it converts them into the oracle's
// values only to show a difference (asMap).
type planReads struct {
	sorted  map[*savepoint.OperatorStatePart][][2]int // a part's pairs, sorted
	compare oracle.PlannedComparer
}

// takenReads is what one new subtask reads, per operator taking state (its generated ID); no
// operator twice.
type takenReads []takenRead

type takenRead struct {
	id   string
	read *savepoint.SubtaskPlan
}

// put sets operator id's read (replacing an earlier one of id).
func (t takenReads) put(id string, read *savepoint.SubtaskPlan) takenReads {
	for k := range t {
		if t[k].id == id {
			t[k].read = read
			return t
		}
	}
	return append(t, takenRead{id, read})
}

// asMap is t as the oracle's map (nil: reads nothing).
func (r *planReads) asMap(t takenReads) map[string]*oracle.Planned {
	var m map[string]*oracle.Planned
	for k := range t {
		if m == nil {
			m = map[string]*oracle.Planned{}
		}
		p := r.of(t[k].read)
		m[t[k].id] = &p
	}
	return m
}

// same reports whether the subtask reads want: what r.of gives of each operator's read is
// oracle.PlannedComparer.Same as want's of its ID, for exactly want's IDs.
func (r *planReads) same(want map[string]*oracle.Planned, got takenReads) bool {
	if len(want) != len(got) {
		return false
	}
	for k := range got {
		w, ok := want[got[k].id]
		if !ok || !r.sameRead(w, got[k].read) {
			return false
		}
	}
	return true
}

// sameRead is r.compare.Same(w, &r.of(s)) without making r.of(s).
func (r *planReads) sameRead(w *oracle.Planned, s *savepoint.SubtaskPlan) bool {
	keyed := func(want []oracle.PlannedKeyed, ps []savepoint.KeyedPart) bool {
		return slices.EqualFunc(want, ps, func(w oracle.PlannedKeyed, p savepoint.KeyedPart) bool {
			return w.OldSubtask == p.OldSubtask && w.Start == p.Start && w.End == p.End && w.Bytes == p.Bytes
		})
	}
	entries := func(want map[string]oracle.PlannedEntries, m map[string]*savepoint.OperatorStatePart) bool {
		n := 0
		for name, p := range m {
			if len(p.Pairs) == 0 {
				continue
			}
			n++
			e, ok := want[name]
			if !ok || e.Bytes != p.Bytes || !r.compare.SamePairs(e.Pairs, r.sortedPairs(p)) {
				return false
			}
		}
		return n == len(want)
	}
	return w.BytesRead == s.BytesRead && keyed(w.ManagedKeyed, s.ManagedKeyedState) && keyed(w.RawKeyed, s.RawKeyedState) &&
		entries(w.ManagedOperator, s.ManagedOperatorState) && entries(w.RawOperator, s.RawOperatorState)
}

// readsSome reports whether r.of(s) reads something: a keyed handle or an operator-state entry.
func (r *planReads) readsSome(s *savepoint.SubtaskPlan) bool {
	some := func(m map[string]*savepoint.OperatorStatePart) bool {
		for _, p := range m {
			if len(p.Pairs) > 0 {
				return true
			}
		}
		return false
	}
	return len(s.ManagedKeyedState)+len(s.RawKeyedState) > 0 || some(s.ManagedOperatorState) || some(s.RawOperatorState)
}

// of is what the plan says a subtask reads, as the oracle's plain values.
func (r *planReads) of(s *savepoint.SubtaskPlan) oracle.Planned {
	keyed := func(ps []savepoint.KeyedPart) []oracle.PlannedKeyed {
		var out []oracle.PlannedKeyed
		if len(ps) > 0 {
			out = make([]oracle.PlannedKeyed, 0, len(ps))
		}
		for _, p := range ps {
			out = append(out, oracle.PlannedKeyed{OldSubtask: p.OldSubtask, Start: p.Start, End: p.End, Bytes: p.Bytes})
		}
		return out
	}
	return oracle.Planned{ManagedKeyed: keyed(s.ManagedKeyedState), RawKeyed: keyed(s.RawKeyedState),
		ManagedOperator: r.entries(s.ManagedOperatorState), RawOperator: r.entries(s.RawOperatorState), BytesRead: s.BytesRead}
}

// entries is what a subtask reads of the parts m, by state name (nil: no entry).
func (r *planReads) entries(m map[string]*savepoint.OperatorStatePart) map[string]oracle.PlannedEntries {
	var out map[string]oracle.PlannedEntries // (nil: no entry)
	for n, p := range m {
		if len(p.Pairs) == 0 {
			continue
		}
		if out == nil {
			out = make(map[string]oracle.PlannedEntries, len(m))
		}
		out[n] = oracle.PlannedEntries{Bytes: p.Bytes, Pairs: r.sortedPairs(p)}
	}
	return out
}

// sortedPairs is p's pairs sorted (read only): p's own list when sorted already, else a sorted
// copy, made once per part.
func (r *planReads) sortedPairs(p *savepoint.OperatorStatePart) [][2]int {
	if len(p.Pairs) <= 16 { // (short: checked each time rather than remembered)
		if slices.IsSortedFunc(p.Pairs, comparePairs) {
			return p.Pairs
		}
	}
	pairs, ok := r.sorted[p]
	if !ok {
		pairs = p.Pairs
		if !slices.IsSortedFunc(pairs, comparePairs) {
			pairs = slices.Clone(pairs)
			slices.SortFunc(pairs, comparePairs)
		}
		r.sorted[p] = pairs
	}
	return pairs
}

func comparePairs(a, b [2]int) int { return cmp.Compare(a[0], b[0])*2 + cmp.Compare(a[1], b[1]) }

// plainSizes gives the bytes of the streams of ops, as the handles record them.
func plainSizes(ops []model.OperatorState) oracle.Sizes {
	n := 0 // (the handles: the map's size but for incremental handles' shared files)
	for _, os := range ops {
		for _, st := range os.Subtasks {
			if st != nil {
				n += len(st.ManagedKeyedState) + len(st.RawKeyedState) + len(st.ManagedOperatorState) + len(st.RawOperatorState)
			}
		}
	}
	out := make(oracle.Sizes, n)
	for _, os := range ops {
		for _, st := range os.Subtasks {
			if st == nil {
				continue
			}
			for _, hs := range [][]model.KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
				for _, h := range hs {
					switch h := h.(type) {
					case *model.KeyGroupsStateHandle:
						out[h.Delegate.Path] = h.Delegate.Size
					case *model.IncrementalKeyedStateHandle:
						own := h.Meta.Size
						for _, f := range h.Private {
							own += f.Handle.Size
						}
						out[h.BackendID] = own
						for _, f := range h.Shared {
							out[f.Handle.Path] = f.Handle.Size
						}
					}
				}
			}
			for _, hs := range [][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
				for _, h := range hs {
					out[h.Delegate.Path] = h.Delegate.Size
				}
			}
		}
	}
	return out
}

// planJob describes job j as a `simulate plan --job` file does: its vertices in the model's
// order, each with its parallelism, its configured max parallelism (none: Flink's default) and
// its operators by uid, head first, the keyed operator's setUidHash as uid_hash, and the keyed
// vertex's input, the keyBy edge from the source (a HASH partitioner), as jobVertices gives the
// restore its edges: a plan of in-flight channel state follows the job's edge, as the restore
// does.
func planJob(j Job) savepoint.JobFile {
	var jf savepoint.JobFile
	add := func(v int, uids []string, uidHash string, inputs ...savepoint.JobFileInput) {
		c := j.vertexConfig(v)
		p := c.Parallelism
		jv := savepoint.JobFileVertex{Name: VertexName(v), Parallelism: &p}
		if c.MaxParallelism > 0 {
			m := c.MaxParallelism
			jv.MaxParallelism = &m
		}
		for k := range uids {
			op := savepoint.JobFileOperator{UID: &uids[k]}
			if k == 0 && uidHash != "" {
				h := strings.ToLower(uidHash)
				op.UIDHash = &h
			}
			jv.Operators = append(jv.Operators, op)
		}
		jv.Inputs = inputs
		jf.Vertices = append(jf.Vertices, jv)
	}
	add(0, []string{j.Source.UID}, "")
	if j.HasKeyed() {
		uids := []string{j.Keyed.UID}
		if j.Sink {
			uids = append(uids, sinkUID)
		}
		add(1, uids, j.Keyed.UIDHash, savepoint.JobFileInput{From: VertexName(0), Partitioner: model.HashPartitioner.String()})
	}
	for k := range j.Stages {
		add(2+k, j.StageUIDs(k), "")
	}
	return jf
}

// storageFS serves the simulated storage's "file:" paths as an io/fs.FS (the path "/a/b" is the
// name "a/b"), for savepoint.Storage: files holding bytes (the _metadata files) are readable,
// directories are implied by the files below them.
type storageFS struct{ m *memFS }

func (s storageFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	p := "file:/" + name
	if name == "." {
		p = "file:/"
	}
	if f, ok := s.m.files[p]; ok {
		s.m.load(f)
		b, _ := f.content.([]byte)
		return &storageFile{name: name, b: b, size: f.size, f: f, fs: s.m}, nil
	}
	if fi, err := s.m.Stat(p); err == nil && fi.IsDir {
		return &storageFile{name: name, dir: true}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type storageFile struct {
	name string
	b    []byte
	off  int
	size int64
	dir  bool
	f    *file
	fs   *memFS
}

// Decoded implements savepoint.DecodedFile: the restore decoded the same bytes already.
func (f *storageFile) Decoded() *metadata.File {
	if f.f == nil || f.dir || len(f.b) == 0 {
		return nil
	}
	md, err := f.fs.metadata(f.f, f.b)
	if err != nil {
		return nil // (the planner reads the bytes and reports what is wrong with them)
	}
	return md
}

// ModelFor implements savepoint.ModeledFile: the restore converted the same decode already.
func (f *storageFile) ModelFor(v model.FlinkVersion) (model.CheckpointMetadata, bool) {
	md := f.Decoded()
	if md == nil || v != f.fs.version {
		return model.CheckpointMetadata{}, false
	}
	return f.fs.modelOf(f.f, md), true
}

func (f *storageFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *storageFile) Close() error               { return nil }
func (f *storageFile) Read(p []byte) (int, error) {
	if f.dir {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: errors.New("is a directory")}
	}
	if f.off >= len(f.b) {
		return 0, io.EOF
	}
	n := copy(p, f.b[f.off:])
	f.off += n
	return n, nil
}

// fs.FileInfo of a storageFile.
func (f *storageFile) Name() string       { return f.name[strings.LastIndexByte(f.name, '/')+1:] }
func (f *storageFile) Size() int64        { return f.size }
func (f *storageFile) ModTime() time.Time { return time.Time{} }
func (f *storageFile) IsDir() bool        { return f.dir }
func (f *storageFile) Sys() any           { return nil }
func (f *storageFile) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
