package properties

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
	"pgregory.net/rapid"
)

// The restore planner's user-facing numbers (savepoint.PlanRestore, what `simulate plan`
// prints): the largest parallelism a savepoint restores at, per refused operator and overall,
// and the bytes each new subtask reads. The expected values are computed here from the layout
// the test itself gave each stream (a header, then the key groups or the operator-state
// entries one after the other, as Flink's snapshot strategies write them), never asked of the
// model.

// planLayout is one stream as the test laid it out: a header, then elements of the given sizes
// one after the other. An element of size 0 is an empty key group, written at offset 0 (RocksDB's
// full snapshots and canonical savepoints leave an empty key group's offset 0).
type planLayout struct {
	header int64
	sizes  []int64
}

// offsets gives the elements' offsets: each element starts where the one before it ended; an
// empty one has offset 0.
func (l planLayout) offsets() []int64 {
	out := make([]int64, len(l.sizes))
	at := l.header
	for k, s := range l.sizes {
		if s > 0 {
			out[k] = at
		}
		at += s
	}
	return out
}

// size is the stream's length: the header and every element.
func (l planLayout) size() int64 {
	n := l.header
	for _, s := range l.sizes {
		n += s
	}
	return n
}

// drawLayout draws a stream of n elements; a fifth of the key groups are empty when empties is
// set. Sizes come from a seeded stream (a handle may have up to 32,768 key groups).
func drawLayout(r *rand.Rand, n int, empties bool) planLayout {
	l := planLayout{header: 1 + r.Int64N(64), sizes: make([]int64, n)}
	for k := range l.sizes {
		if empties && r.IntN(5) == 0 {
			continue
		}
		l.sizes[k] = 1 + r.Int64N(100)
	}
	return l
}

// plannedOp is one operator of a generated savepoint, with the layouts of its streams.
type plannedOp struct {
	id          model.OperatorID
	parallelism int
	maxPar      int
	keyed       []*planLayout // per old subtask (nil: no keyed state)
	// opState: per old subtask, the handle's layout and, per element, its state name; nil: none.
	opState    []*planLayout
	opNames    [][]string
	stateBytes int64 // the sum of the stream sizes
	// stateful: some old subtask has an entry (AssignStates judges only tasks whose states have
	// one, TaskStateAssignment.hasNonFinishedState, so a state without any bounds nothing).
	stateful bool
}

// drawPlannerSavepoint draws a savepoint of one to four operators: max parallelism 1
// (non-parallel), Flink's bound 32,768, or a small one; keyed state in key-groups handles and
// operator state (SPLIT_DISTRIBUTE, UNION) laid out as Flink writes them.
func drawPlannerSavepoint(t *rapid.T, cov *coverage) ([]plannedOp, model.CheckpointMetadata) {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "sizes seed"), 1))
	n := rapid.IntRange(1, 4).Draw(t, "operators")
	var ops []plannedOp
	md := model.CheckpointMetadata{CheckpointID: rapid.Int64Range(1, 1000).Draw(t, "checkpoint id")}
	for i := range n {
		var m int
		switch rapid.IntRange(0, 9).Draw(t, "max parallelism kind") {
		case 0:
			m = 1
		case 1:
			m = model.UpperBoundMaxParallelism
		default:
			m = rapid.IntRange(1, 300).Draw(t, "max parallelism")
		}
		p := rapid.IntRange(1, min(m, 8)).Draw(t, "old parallelism")
		op := plannedOp{id: model.OperatorIDFromUID(fmt.Sprintf("op-%d", i)), parallelism: p, maxPar: m,
			keyed: make([]*planLayout, p), opState: make([]*planLayout, p), opNames: make([][]string, p)}
		hasKeyed := rapid.IntRange(0, 3).Draw(t, "keyed") > 0
		hasOp := rapid.Bool().Draw(t, "operator state")
		empties := rapid.Bool().Draw(t, "empty key groups")
		union := rapid.Bool().Draw(t, "union")
		os := model.OperatorState{OperatorID: op.id, Parallelism: p, MaxParallelism: m, Subtasks: make([]*model.OperatorSubtaskState, p)}
		for s := range p {
			if rapid.IntRange(0, 5).Draw(t, "subtask without state") == 0 {
				continue
			}
			st := &model.OperatorSubtaskState{}
			if hasKeyed {
				kr := mustRange(t, m, p, s)
				l := drawLayout(r, kr.NumberOfKeyGroups(), empties)
				op.keyed[s] = &l
				op.stateBytes += l.size()
				st.ManagedKeyedState = []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
					Offsets:  model.KeyGroupRangeOffsets{Range: kr, Offsets: l.offsets()},
					Delegate: model.StreamHandle{Path: fmt.Sprintf("/sp/%d/keyed-%d", i, s), Size: l.size()}, StateHandleID: fmt.Sprintf("k-%d-%d", i, s)}}
			}
			if hasOp {
				h := model.OperatorStateHandle{Delegate: model.StreamHandle{Path: fmt.Sprintf("/sp/%d/op-%d", i, s)}}
				var names []string
				var sizes []int64
				modes := []model.DistributionMode{model.SplitDistribute}
				if union {
					modes = append(modes, model.Union)
				}
				at := 1 + r.Int64N(64)
				l := planLayout{header: at}
				for k, mode := range modes {
					name := fmt.Sprintf("state-%d", k)
					ns := model.NamedOperatorState{Name: name, Mode: mode}
					for range 1 + r.IntN(3) {
						sz := 1 + r.Int64N(50)
						ns.Offsets = append(ns.Offsets, at)
						names, sizes = append(names, name), append(sizes, sz)
						at += sz
					}
					h.States = append(h.States, ns)
				}
				l.sizes = sizes
				h.Delegate.Size = l.size()
				op.opState[s], op.opNames[s] = &l, names
				op.stateBytes += l.size()
				st.ManagedOperatorState = []model.OperatorStateHandle{h}
			}
			os.Subtasks[s] = st
			op.stateful = true
		}
		cov.labelIf(m == 1, "non-parallel-operator")
		cov.labelIf(m == model.UpperBoundMaxParallelism, "max-parallelism-32768")
		cov.labelIf(hasKeyed && empties, "empty-key-groups")
		cov.labelIf(hasOp && union, "union-state")
		ops = append(ops, op)
		md.Operators = append(md.Operators, os)
	}
	return ops, md
}

// writeSavepoint writes md with the project's writer in format version format and opens it as
// `simulate plan` does.
func writeSavepoint(t *rapid.T, md model.CheckpointMetadata, format int32) *savepoint.Savepoint {
	f, err := metadata.FromModelAs(md, format, nil)
	if err != nil {
		t.Fatalf("metadata.FromModelAs: %v", err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatalf("metadata.Marshal: %v", err)
	}
	sp, err := savepoint.Read(bytes.NewReader(b), "_metadata")
	if err != nil {
		t.Fatalf("savepoint.Read: %v", err)
	}
	return sp
}

// gateReads is the newest metadata format version each release reads (SPEC-VERSIONS.md §7: the
// serializers MetadataSerializers registers), by the name users give the release; master as
// model/doc.go pins it (a later master reading V7).
var gateReads = map[string]int32{"1.10.1": 2, "1.18": 4, "1.19": 4, "1.20": 4, "2.0": 5, "2.1": 6, "2.2": 6, "2.3": 6, "master": 7}

// gateOrder lists the releases oldest first, master last.
var gateOrder = []string{"1.10.1", "1.18", "1.19", "1.20", "2.0", "2.1", "2.2", "2.3", "master"}

// gateWrites is the format version each release writes for a savepoint (and master for a
// checkpoint: 7).
var gateWrites = map[string]int32{"1.10.1": 2, "1.18": 4, "1.19": 4, "1.20": 4, "2.0": 5, "2.1": 6, "2.2": 6, "2.3": 6, "master": 6}

func parseVersion(t interface{ Fatalf(string, ...any) }, name string) model.FlinkVersion {
	v, err := model.ParseFlinkVersion(name)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return v
}

// TestPlannerNumbers: on savepoints the project's writer wrote, in every format the reader
// reads, restored by default at a new parallelism P (every operator its own task):
//   - an operator is refused iff P is above its max parallelism (a max-parallelism-1 operator
//     runs non-parallel and is never refused), and a refused one's max restorable parallelism
//     is its max parallelism; the others have none;
//   - the max restorable parallelism of the restore is the smallest max parallelism of the
//     operators that are not non-parallel (Flink's bound 32,768 included), none when every
//     operator is non-parallel;
//   - each new subtask of a restored operator reads, of every old key-groups handle whose key
//     groups overlap its own (the test's own ⌈i·M/p⌉ ranges), the stream header and the
//     overlapping key groups' bytes, and of every operator-state stream it is given entries of,
//     the header and those entries; received bytes are the same without headers; an
//     operator's bytes read is its subtasks' sum, and its read amplification that sum over
//     its state bytes (the sum of its streams).
func TestPlannerNumbers(t *testing.T) {
	cov := newCoverage(t)
	cov.require("non-parallel-operator", 0.10)
	cov.require("max-parallelism-32768", 0.10)
	cov.require("refused", 0.15)
	cov.require("restorable", 0.15)
	cov.require("rescaled-keyed", 0.15)
	cov.require("empty-key-groups", 0.10)
	cov.require("union-state", 0.10)
	cov.require("max-restorable-32768", 0.02)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		ops, md := drawPlannerSavepoint(t, cov)
		reader := rapid.SampledFrom(gateOrder[1:]).Draw(t, "reader")
		v := parseVersion(t, reader)
		format := rapid.Int32Range(4, gateReads[reader]).Draw(t, "format")
		sp := writeSavepoint(t, md, format)
		var ms []int
		for _, op := range ops {
			ms = append(ms, op.maxPar)
		}
		p := rapid.OneOf(rapid.IntRange(1, 64), rapid.SampledFrom(ms), rapid.Map(rapid.SampledFrom(ms), func(m int) int { return min(m+1, 301) })).Draw(t, "new parallelism")
		pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: v, Parallelism: p})
		if err != nil {
			t.Fatalf("PlanRestore: %v", err)
		}
		checkMaxRestorable(t, cov, ops, p, pl)
		checkBytesRead(t, cov, ops, pl)
	})
}

// checkMaxRestorable checks the plan's refusals and max restorable parallelisms (see
// TestPlannerNumbers).
func checkMaxRestorable(t *rapid.T, cov *coverage, ops []plannedOp, p int, pl *savepoint.RestorePlan) {
	want := 0 // the overall one; 0: none (every operator non-parallel)
	refused := false
	for _, op := range ops {
		if op.maxPar != 1 {
			want = model.UpperBoundMaxParallelism
		}
	}
	for i, op := range ops {
		po := &pl.Operators[i]
		wantRefused := op.maxPar != 1 && p > op.maxPar && op.stateful
		refused = refused || wantRefused
		if (po.Status == "refused") != wantRefused {
			t.Fatalf("operator %d (max parallelism %d) at parallelism %d: status %q, want refused %v (%v)", i, op.maxPar, p, po.Status, wantRefused, deref(po.Error))
		}
		switch {
		case wantRefused && (po.MaxRestorableParallelism == nil || *po.MaxRestorableParallelism != op.maxPar):
			t.Fatalf("refused operator %d (max parallelism %d): max restorable parallelism %v, want %d", i, op.maxPar, deref(po.MaxRestorableParallelism), op.maxPar)
		case !wantRefused && po.MaxRestorableParallelism != nil:
			t.Fatalf("operator %d is not refused but has max restorable parallelism %d", i, *po.MaxRestorableParallelism)
		}
		if op.maxPar != 1 && op.stateful && op.maxPar < want {
			want = op.maxPar
		}
	}
	cov.labelIf(refused, "refused")
	cov.labelIf(!refused, "restorable")
	cov.labelIf(want == model.UpperBoundMaxParallelism, "max-restorable-32768")
	if pl.Restorable == refused {
		t.Fatalf("restorable %v, want %v (%v)", pl.Restorable, !refused, deref(pl.Error))
	}
	switch got := pl.MaxRestorableParallelism; {
	case want == 0 && got != nil:
		t.Fatalf("every operator is non-parallel, but the max restorable parallelism is %d", *got)
	case want != 0 && (got == nil || *got != want):
		t.Fatalf("max restorable parallelism %v, want %d (the smallest max parallelism of the parallel operators with subtask entries; max parallelisms %v)", deref(got), want, maxPars(ops))
	}
}

func maxPars(ops []plannedOp) []int {
	var out []int
	for _, op := range ops {
		out = append(out, op.maxPar)
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return "none"
	}
	return *p
}

// checkBytesRead checks every restored operator's bytes (see TestPlannerNumbers).
func checkBytesRead(t *rapid.T, cov *coverage, ops []plannedOp, pl *savepoint.RestorePlan) {
	for i, op := range ops {
		po := &pl.Operators[i]
		if po.StateBytes != op.stateBytes {
			t.Fatalf("operator %d: state bytes %d, want %d (its streams)", i, po.StateBytes, op.stateBytes)
		}
		if po.Status != "restored" {
			continue
		}
		newP := po.Parallelism
		if op.maxPar == 1 && newP != 1 {
			t.Fatalf("non-parallel operator %d planned at parallelism %d", i, newP)
		}
		if len(po.Subtasks) != newP {
			t.Fatalf("operator %d: %d subtasks planned, want %d", i, len(po.Subtasks), newP)
		}
		cov.labelIf(newP != op.parallelism && slices.ContainsFunc(op.keyed, func(l *planLayout) bool { return l != nil }), "rescaled-keyed")
		var total int64
		for s := range newP {
			sp := &po.Subtasks[s]
			ns, ne := rangeOf(op.maxPar, newP, s)
			var read, received int64
			for j, l := range op.keyed {
				if l == nil {
					continue
				}
				os, oe := rangeOf(op.maxPar, op.parallelism, j)
				from, to := max(os, ns), min(oe, ne)
				if from > to {
					continue
				}
				read += l.header
				for kg := from; kg <= to; kg++ {
					read += l.sizes[kg-os]
					received += l.sizes[kg-os]
				}
			}
			// Operator state: the entries the plan names (which entries a subtask gets is
			// TestOperatorStateRepartition's), their bytes and headers from the layout.
			streams := map[int]bool{}
			for name, part := range sp.ManagedOperatorState {
				for _, pair := range part.Pairs {
					j, idx := pair[0], pair[1]
					l := op.opState[j]
					e := nthOfName(op.opNames[j], name, idx)
					if l == nil || e < 0 {
						t.Fatalf("operator %d subtask %d: given entry %d of %q of old subtask %d, which has no such entry", i, s, idx, name, j)
					}
					streams[j] = true
					read += l.sizes[e]
					received += l.sizes[e]
				}
			}
			for j := range streams {
				read += op.opState[j].header
			}
			if sp.BytesRead != read {
				t.Fatalf("operator %d (old parallelism %d, max parallelism %d) new subtask %d of %d (key groups %d..%d): bytes read %d, want %d", i, op.parallelism, op.maxPar, s, newP, ns, ne, sp.BytesRead, read)
			}
			if sp.ReceivedBytes != received {
				t.Fatalf("operator %d new subtask %d: received bytes %d, want %d", i, s, sp.ReceivedBytes, received)
			}
			total += read
		}
		if po.BytesRead != total {
			t.Fatalf("operator %d: bytes read %d, want %d (its subtasks')", i, po.BytesRead, total)
		}
		switch {
		case op.stateBytes == 0 && po.ReadAmplification != nil:
			t.Fatalf("operator %d has no state bytes but a read amplification %v", i, *po.ReadAmplification)
		case op.stateBytes > 0 && (po.ReadAmplification == nil || *po.ReadAmplification != float64(total)/float64(op.stateBytes)):
			t.Fatalf("operator %d: read amplification %v, want %d/%d", i, deref(po.ReadAmplification), total, op.stateBytes)
		}
	}
}

// nthOfName gives the position in a stream's layout of entry idx of the state name (-1: none).
func nthOfName(names []string, name string, idx int) int {
	for e, n := range names {
		if n == name {
			if idx == 0 {
				return e
			}
			idx--
		}
	}
	return -1
}

// realKeyGroupBytes is the test's own byte rule of a key-groups handle read by Flink (SPEC §L;
// FullSnapshotRestoreOperation skips offset 0, "not empty key-group?"): key group k runs from
// its offset to the next larger offset of the handle, the last one to the end of the stream; an
// offset 0 is an empty key group, and one at or past the end of the stream holds nothing.
func realKeyGroupBytes(offsets []int64, size int64, k int) int64 {
	off := offsets[k]
	if off <= 0 || off >= size {
		return 0
	}
	end := size
	for _, o := range offsets {
		if o > off && o < end {
			end = o
		}
	}
	return end - off
}

// realHeader is a stream's header: the bytes before its smallest positive offset, the whole
// stream when it has none (or when that offset is past its end).
func realHeader(offsets []int64, size int64) int64 {
	h := size
	for _, o := range offsets {
		if o > 0 && o < h {
			h = o
		}
	}
	return h
}

// TestPlannerNumbersRealFiles: on the real files Flink wrote (shared/flink-metadata real/ and
// recent/), restored by the newest release at a drawn parallelism (every operator its own task),
// the refusals, max restorable parallelisms, and each subtask's bytes read of key-groups
// handles, as in TestPlannerNumbers, computed here from the file's offsets and stream sizes:
// which key groups and operator-state entries a subtask gets is taken from the plan, their
// bytes and the headers are the test's own. Operators with in-flight channel state, a handle
// kind other than key-groups and operator-state streams, or an operator-state name without
// entries (the plan does not say whether such a handle is handed) are checked for their
// refusal only.
func TestPlannerNumbersRealFiles(t *testing.T) {
	var files []string
	for _, sub := range []string{"real", "recent"} {
		dir := realmeta.Sub(t, sub)
		m, err := filepath.Glob(filepath.Join(dir, "*.metadata"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no files in %s", dir)
		}
		for _, path := range m {
			if b, err := os.ReadFile(path); err == nil && len(b) >= 8 && b[7] >= 2 {
				files = append(files, path) // (format 1, Flink 1.2's, is read by no modelled release)
			}
		}
	}
	sort.Strings(files)
	cov := newCoverage(t)
	cov.require("refused", 0.10)
	cov.require("bytes-checked", 0.30)
	cov.require("rescaled-keyed", 0.15)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		path := rapid.SampledFrom(files).Draw(t, "file")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := savepoint.Read(bytes.NewReader(b), filepath.Base(path))
		if err != nil || sp.File == nil {
			t.Fatalf("%s: %v", path, err) // (every file of formats 2 to 6 reads)
		}
		f := sp.File
		var ms []int
		for i := range f.Operators {
			ms = append(ms, int(f.Operators[i].MaxParallelism))
		}
		if len(ms) == 0 {
			ms = []int{1}
		}
		p := rapid.OneOf(rapid.IntRange(1, 8), rapid.SampledFrom(ms), rapid.Map(rapid.SampledFrom(ms), func(m int) int { return min(m+1, 300) })).Draw(t, "new parallelism")
		pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: model.NewestFlinkRelease, Parallelism: p})
		if err != nil {
			t.Fatalf("%s at parallelism %d: PlanRestore: %v", filepath.Base(path), p, err)
		}
		want, followers := model.UpperBoundMaxParallelism, false
		for i := range f.Operators {
			op, po := &f.Operators[i], &pl.Operators[i]
			m := int(op.MaxParallelism)
			entries := len(op.Subtasks) > 0 || op.FullyFinished
			wantRefused := m != 1 && p > m && entries
			if m != 1 {
				followers = true
				if entries {
					want = min(want, m)
				}
			}
			if (po.Status == "refused") != wantRefused {
				t.Fatalf("%s operator %v (max parallelism %d, %d subtask entries) at parallelism %d: status %q, want refused %v (%v)",
					filepath.Base(path), op.ID, m, len(op.Subtasks), p, po.Status, wantRefused, deref(po.Error))
			}
			cov.labelIf(wantRefused, "refused")
			if wantRefused && (po.MaxRestorableParallelism == nil || *po.MaxRestorableParallelism != m) {
				t.Fatalf("%s operator %v refused at parallelism %d: max restorable parallelism %v, want %d", filepath.Base(path), op.ID, p, deref(po.MaxRestorableParallelism), m)
			}
			if po.Status == "restored" && checkRealBytes(t, filepath.Base(path), op, po) {
				cov.label("bytes-checked")
				cov.labelIf(po.Parallelism != int(op.Parallelism) && slices.ContainsFunc(op.Subtasks, func(s metadata.Subtask) bool { return s.ManagedKeyedState != nil }), "rescaled-keyed")
			}
		}
		switch got := pl.MaxRestorableParallelism; {
		case !followers && got != nil:
			t.Fatalf("%s: every operator is non-parallel, but the max restorable parallelism is %d", filepath.Base(path), *got)
		case followers && (got == nil || *got != want):
			t.Fatalf("%s: max restorable parallelism %v, want %d", filepath.Base(path), deref(got), want)
		}
	})
}

// checkRealBytes checks the bytes each new subtask of a restored real operator reads (see
// TestPlannerNumbersRealFiles); false when the operator is not one it can judge.
func checkRealBytes(t *rapid.T, file string, op *metadata.Operator, po *savepoint.OperatorPlan) bool {
	old := map[int]*metadata.Subtask{}
	for k := range op.Subtasks {
		s := &op.Subtasks[k]
		if len(s.InputChannels)+len(s.OutputChannels) > 0 || s.RawKeyedState != nil || s.RawOperatorState != nil {
			return false
		}
		if h := s.ManagedKeyedState; h != nil {
			if _, ok := h.(*metadata.KeyGroupsHandle); !ok {
				return false
			}
		}
		if h := s.ManagedOperatorState; h != nil {
			if h.Delegate == nil || h.Tag == metadata.TagFileMergingOperatorStream {
				return false
			}
			for _, st := range h.States {
				if len(st.Offsets) == 0 {
					return false
				}
			}
		}
		old[int(s.Index)] = s
	}
	var total int64
	for s := range po.Subtasks {
		sp := &po.Subtasks[s]
		var read int64
		for _, part := range sp.ManagedKeyedState {
			h := old[part.OldSubtask].ManagedKeyedState.(*metadata.KeyGroupsHandle)
			size := h.Delegate.StateSize()
			read += realHeader(h.Offsets, size)
			for kg := part.Start; kg <= part.End; kg++ {
				read += realKeyGroupBytes(h.Offsets, size, kg-int(h.StartKeyGroup))
			}
		}
		streams := map[int]bool{}
		for name, part := range sp.ManagedOperatorState {
			for _, pair := range part.Pairs {
				h := old[pair[0]].ManagedOperatorState
				var all, own []int64
				for _, st := range h.States {
					all = append(all, st.Offsets...)
					if st.Name == name {
						own = st.Offsets
					}
				}
				size := h.Delegate.StateSize()
				if !streams[pair[0]] {
					streams[pair[0]] = true
					read += realHeader(all, size)
				}
				off := own[pair[1]]
				end := size
				for _, o := range all {
					if o > off && o < end {
						end = o
					}
				}
				read += max(0, end-off)
			}
		}
		if sp.BytesRead != read {
			t.Fatalf("%s operator %s (old parallelism %d) new subtask %d of %d: bytes read %d, want %d", file, po.OperatorID, op.Parallelism, s, len(po.Subtasks), sp.BytesRead, read)
		}
		total += read
	}
	if po.BytesRead != total {
		t.Fatalf("%s operator %s: bytes read %d, want %d (its subtasks')", file, po.OperatorID, po.BytesRead, total)
	}
	return true
}
