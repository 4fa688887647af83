package savepoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// realMetadata is the folder of real Flink files (see internal/realmeta: a loud skip in a plain
// clone, a failure in CI).
func realMetadata(t *testing.T) string {
	t.Helper()
	return realmeta.Sub(t, "real")
}

// openLocal opens a file of the local file system through the library alone.
func openLocal(t *testing.T, path string) (*Savepoint, error) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return Open(os.DirFS("/"), filepath.ToSlash(abs), path)
}

// planFile plans path at parallelism p without a job, as `simulate plan` does, and gives the
// exit code the CLI would (0 restorable, 1 refused).
func planFile(t *testing.T, path string, p int, v model.FlinkVersion) (int, *RestorePlan) {
	t.Helper()
	sp, err := openLocal(t, path)
	if err != nil && !(sp != nil && errors.Is(err, metadata.ErrUnsupportedVersion)) {
		t.Fatalf("%s: %v", path, err)
	}
	pl, err := PlanRestore(sp, Options{Flink: v, Parallelism: p})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !pl.Restorable {
		return 1, pl
	}
	return 0, pl
}

// refKeyGroups is the reference key-group partition: subtask i owns ceil(i*M/P)..ceil((i+1)*M/P)-1.
func refKeyGroups(m, p, i int) [2]int {
	return [2]int{(i*m + p - 1) / p, ((i+1)*m+p-1)/p - 1}
}

type refKeyed struct{ OldSubtask, Start, End int }

// refSubtasks gives an operator's subtask entries by index (a later entry replaces an earlier
// one); finished subtasks hold nothing.
func refSubtasks(op *metadata.Operator) map[int]*metadata.Subtask {
	out := map[int]*metadata.Subtask{}
	for i := range op.Subtasks {
		s := &op.Subtasks[i]
		if s.Finished {
			out[int(s.Index)] = &metadata.Subtask{Index: s.Index}
			continue
		}
		out[int(s.Index)] = s
	}
	return out
}

// refKeyedFor is the reference keyed-state selection (SPEC §D.3, §D.4): at unchanged
// parallelism old subtask i's handle whole; otherwise, over old subtasks in order, the overlap
// with the new range for key-groups and changelog handles, the whole range for incremental ones.
func refKeyedFor(op *metadata.Operator, raw bool, p, i int, r [2]int) []refKeyed {
	subs := refSubtasks(op)
	out := []refKeyed{}
	for j := 0; j < int(op.Parallelism); j++ {
		s := subs[j]
		if s == nil {
			continue
		}
		h := s.ManagedKeyedState
		if raw {
			h = s.RawKeyedState
		}
		if h == nil {
			continue
		}
		hr := h.KeyGroupRange()
		if p == int(op.Parallelism) {
			if j == i {
				out = append(out, refKeyed{j, hr.Start, hr.End})
			}
			continue
		}
		lo, hi := max(hr.Start, r[0]), min(hr.End, r[1])
		if lo > hi {
			continue
		}
		if _, incremental := h.(*metadata.IncrementalHandle); incremental {
			lo, hi = hr.Start, hr.End
		}
		out = append(out, refKeyed{j, lo, hi})
	}
	return out
}

// refKeyedBytes is the reference byte count of a received key-groups range: per key group,
// nothing at offset 0 (Flink's restore skips it), else up to the smallest larger offset of the
// old handle or the end of its stream. ok is false for other handle kinds.
func refKeyedBytes(op *metadata.Operator, raw bool, got KeyedPart) (int64, bool) {
	s := refSubtasks(op)[got.OldSubtask]
	if s == nil {
		return 0, false
	}
	kh := s.ManagedKeyedState
	if raw {
		kh = s.RawKeyedState
	}
	h, ok := kh.(*metadata.KeyGroupsHandle)
	if !ok {
		return 0, false
	}
	var n int64
	for kg := got.Start; kg <= got.End; kg++ {
		off := h.Offsets[kg-int(h.StartKeyGroup)]
		if off == 0 {
			continue
		}
		end := h.Delegate.StateSize()
		for _, o := range h.Offsets {
			if o > off && o < end {
				end = o
			}
		}
		n += end - off
	}
	return n, true
}

// refNames collects, per state name of one kind, its mode and the number of offsets per old
// subtask.
type refName struct {
	mode   string
	counts map[int]int // old subtask → offsets
}

func refOperatorNames(op *metadata.Operator, raw bool) map[string]*refName {
	out := map[string]*refName{}
	for j, s := range refSubtasks(op) {
		h := s.ManagedOperatorState
		if raw {
			h = s.RawOperatorState
		}
		if h == nil || h.Tag == metadata.TagNull {
			continue
		}
		for _, e := range h.States {
			n := out[e.Name]
			if n == nil {
				n = &refName{mode: e.ModeName(), counts: map[int]int{}}
				out[e.Name] = n
			}
			n.counts[j] = len(e.Offsets)
		}
	}
	return out
}

// checkRefOperatorState checks the received operator state of one kind against SPEC §E: at
// unchanged parallelism split state stays put; otherwise every split partition goes to exactly
// one new subtask, each gets floor(T/P) or ceil(T/P) of a name as a contiguous run of the old
// order (exactly the first T%P subtasks one more when the kind has one split name); every
// subtask gets all of a union state; new subtask i gets the broadcast copy of the (i mod n)-th
// reporting old subtask.
func checkRefOperatorState(t *testing.T, op *metadata.Operator, raw bool, p int, got []map[string]*OperatorStatePart) {
	t.Helper()
	names := refOperatorNames(op, raw)
	split := 0
	for _, n := range names {
		if n.mode == "SPLIT_DISTRIBUTE" {
			split++
		}
	}
	oldP := int(op.Parallelism)
	for name, n := range names {
		var olds []int
		for j := range n.counts {
			olds = append(olds, j)
		}
		sort.Ints(olds)
		var all [][2]int
		for _, j := range olds {
			for k := 0; k < n.counts[j]; k++ {
				all = append(all, [2]int{j, k})
			}
		}
		pairsOf := func(i int) [][2]int {
			if st := got[i][name]; st != nil {
				return st.Pairs
			}
			return nil
		}
		for i := 0; i < p; i++ {
			if st := got[i][name]; st != nil && st.Mode != n.mode {
				t.Errorf("%v %q subtask %d: mode %s, want %s", op.ID, name, i, st.Mode, n.mode)
			}
		}
		switch n.mode {
		case "SPLIT_DISTRIBUTE":
			if p == oldP {
				for i := 0; i < p; i++ {
					var want [][2]int
					for k := 0; k < n.counts[i]; k++ {
						want = append(want, [2]int{i, k})
					}
					if diff := cmp.Diff(want, pairsOf(i), cmp.Comparer(func(a, b [][2]int) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); diff != "" {
						t.Errorf("%v %q subtask %d at unchanged parallelism (-want +got):\n%s", op.ID, name, i, diff)
					}
				}
				continue
			}
			total := len(all)
			pos := map[[2]int]int{}
			for k, pr := range all {
				pos[pr] = k
			}
			seen := map[[2]int]int{}
			for i := 0; i < p; i++ {
				ps := pairsOf(i)
				if c := len(ps); total > 0 && (c < total/p || c > (total+p-1)/p) {
					t.Errorf("%v %q subtask %d: %d partitions of %d, want %d or %d", op.ID, name, i, c, total, total/p, (total+p-1)/p)
				}
				if split == 1 {
					want := total / p
					if i < total%p {
						want++
					}
					if len(ps) != want {
						t.Errorf("%v %q subtask %d: %d partitions, want %d", op.ID, name, i, len(ps), want)
					}
				}
				for k, pr := range ps {
					seen[pr]++
					if k > 0 && pos[pr] != pos[ps[k-1]]+1 {
						t.Errorf("%v %q subtask %d: pairs %v are not a contiguous run", op.ID, name, i, ps)
						break
					}
				}
			}
			if split == 1 {
				var cat [][2]int
				for i := 0; i < p; i++ {
					cat = append(cat, pairsOf(i)...)
				}
				if fmt.Sprint(cat) != fmt.Sprint(all) {
					t.Errorf("%v %q: partitions in subtask order %v, want %v", op.ID, name, cat, all)
				}
			}
			for _, pr := range all {
				if seen[pr] != 1 {
					t.Errorf("%v %q: partition %v received %d times, want once", op.ID, name, pr, seen[pr])
				}
			}
			if len(seen) != len(all) {
				t.Errorf("%v %q: %d distinct partitions received, want %d", op.ID, name, len(seen), len(all))
			}
		case "UNION":
			for i := 0; i < p; i++ {
				if fmt.Sprint(pairsOf(i)) != fmt.Sprint(all) {
					t.Errorf("%v %q subtask %d: union %v, want %v", op.ID, name, i, pairsOf(i), all)
				}
			}
		case "BROADCAST":
			if p == oldP && len(olds) != oldP {
				continue // partly reported at unchanged parallelism: copies may double up
			}
			for i := 0; i < p; i++ {
				j := olds[i%len(olds)]
				if p == oldP {
					j = i
				}
				var want [][2]int
				for k := 0; k < n.counts[j]; k++ {
					want = append(want, [2]int{j, k})
				}
				if fmt.Sprint(pairsOf(i)) != fmt.Sprint(want) {
					t.Errorf("%v %q subtask %d: broadcast %v, want %v", op.ID, name, i, pairsOf(i), want)
				}
			}
		}
	}
	for i := 0; i < p; i++ {
		for name := range got[i] {
			if names[name] == nil {
				t.Errorf("%v subtask %d: received %q, which no old subtask has", op.ID, i, name)
			}
		}
	}
}

// TestPlanAgreesWithReference plans every real file at parallelism 2 and 5 (Flink 1.18 and 1.10.1) without --job and
// checks the plan against an independent reference planner written from SPEC §D–§G over the
// raw file (not the model): validity (an operator with subtask entries is refused iff its max
// parallelism is below P; one without entries is not reassigned in 1.18; one of max parallelism
// 1 runs at 1, non-parallel), the first refusal
// named at top level, key groups, keyed ranges received and operator-state distribution.
func TestPlanAgreesWithReference(t *testing.T) {
	dir := realMetadata(t)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s (%v)", dir, err)
	}
	checked := map[string]int{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := metadata.Read(b)
		if err != nil {
			code, pl := planFile(t, path, 2, model.Flink118)
			if code != 1 || pl.Restorable || pl.Check == nil || *pl.Check != "metadata-version" || len(pl.Operators) != 0 {
				t.Errorf("%s: unreadable (%v): exit %d, plan %+v; want exit 1 naming metadata-version", filepath.Base(path), err, code, pl)
			}
			continue
		}
		for _, run := range []struct {
			p     int
			flink string
		}{{2, "1.18"}, {5, "1.18"}, {2, "1.10.1"}, {5, "1.10.1"}} {
			p, old := run.p, run.flink == "1.10.1"
			name := fmt.Sprintf("%s p=%d flink %s", filepath.Base(path), p, run.flink)
			version, err := model.ParseFlinkVersion(run.flink)
			if err != nil {
				t.Fatal(err)
			}
			code, pl := planFile(t, path, p, version)
			if len(pl.Operators) != len(f.Operators) {
				t.Errorf("%s: %d operators, want %d", name, len(pl.Operators), len(f.Operators))
				continue
			}
			var firstBad *string
			for k := range f.Operators {
				op := &f.Operators[k]
				got := &pl.Operators[k]
				entries := len(refSubtasks(op))
				// A state of max parallelism 1 is a non-parallel operator's: its task runs at 1
				// with max parallelism 1 whatever P.
				p := p
				if op.MaxParallelism == 1 {
					p = 1
				}
				// 1.18 does not reassign an operator state without subtask entries; 1.10.1 does
				// and, at a changed parallelism, fails on its null keyed-state lists.
				wantValid := entries == 0 || int(op.MaxParallelism) >= p
				if old {
					wantValid = int(op.MaxParallelism) >= p && (entries > 0 || p == int(op.Parallelism))
				}
				if got.OperatorID != op.ID.String() || got.OldParallelism != int(op.Parallelism) || got.MaxParallelism != int(op.MaxParallelism) || got.Valid != wantValid {
					t.Errorf("%s operator %d: got %s p=%d M=%d valid=%v, want %s p=%d M=%d valid=%v", name, k,
						got.OperatorID, got.OldParallelism, got.MaxParallelism, got.Valid, op.ID, op.Parallelism, op.MaxParallelism, wantValid)
					continue
				}
				if !wantValid {
					checked["refused"]++
					if firstBad == nil {
						s := op.ID.String()
						firstBad = &s
					}
					wantCheck, wantText := model.Check("max-parallelism-below-parallelism"), fmt.Sprintf("(%d)", op.MaxParallelism)
					if int(op.MaxParallelism) >= p {
						wantCheck, wantText = "null-keyed-state-handles", "NullPointerException"
					}
					if got.Error == nil || got.Check == nil || *got.Check != wantCheck || !strings.Contains(*got.Error, wantText) || len(got.Subtasks) != 0 {
						t.Errorf("%s %v: check %v, error %v, %d subtasks; want %s, Flink's message with %q and no subtasks", name, op.ID, got.Check, got.Error, len(got.Subtasks), wantCheck, wantText)
					}
					continue
				}
				m := int(op.MaxParallelism)
				if entries == 0 && !old && op.MaxParallelism != 1 {
					m, _ = model.ComputeDefaultMaxParallelism(p)
				}
				if len(got.Subtasks) != p {
					t.Errorf("%s %v: %d subtasks, want %d", name, op.ID, len(got.Subtasks), p)
					continue
				}
				gotOp := map[bool][]map[string]*OperatorStatePart{}
				for i, s := range got.Subtasks {
					r := refKeyGroups(m, p, i)
					if s.Index != i || s.KeyGroups != r || (!old && s.RestoreObject != (entries > 0)) {
						t.Errorf("%s %v subtask %d: index %d key groups %v restore object %v, want %v %v", name, op.ID, i, s.Index, s.KeyGroups, s.RestoreObject, r, entries > 0)
					}
					for _, raw := range []bool{false, true} {
						l := s.ManagedKeyedState
						if raw {
							l = s.RawKeyedState
						}
						gotK := []refKeyed{}
						for _, h := range l {
							gotK = append(gotK, refKeyed{h.OldSubtask, h.Start, h.End})
							if want, ok := refKeyedBytes(op, raw, h); ok && h.Bytes != want {
								t.Errorf("%s %v subtask %d: %d bytes from old subtask %d key groups %d..%d, want %d", name, op.ID, i, h.Bytes, h.OldSubtask, h.Start, h.End, want)
							}
						}
						if diff := cmp.Diff(refKeyedFor(op, raw, p, i, r), gotK); diff != "" {
							t.Errorf("%s %v subtask %d raw=%v keyed state (-want +got):\n%s", name, op.ID, i, raw, diff)
						}
						checked["keyed handles"] += len(gotK)
					}
					gotOp[false] = append(gotOp[false], s.ManagedOperatorState)
					gotOp[true] = append(gotOp[true], s.RawOperatorState)
				}
				for _, raw := range []bool{false, true} {
					checkRefOperatorState(t, op, raw, p, gotOp[raw])
					checked["operator-state names"] += len(refOperatorNames(op, raw))
				}
				checked["operators"]++
			}
			maxVersion := int32(4)
			if old {
				maxVersion = 2
			}
			wantRestorable := firstBad == nil && f.Version <= maxVersion
			if pl.Restorable != wantRestorable || (code == 0) != wantRestorable {
				t.Errorf("%s: exit %d, restorable %v; want restorable %v", name, code, pl.Restorable, wantRestorable)
			}
			switch {
			case f.Version > maxVersion:
				if pl.Check == nil || *pl.Check != "metadata-version" {
					t.Errorf("%s: check %v, want metadata-version", name, pl.Check)
				}
			case firstBad != nil:
				if pl.Check == nil || (*pl.Check != "max-parallelism-below-parallelism" && *pl.Check != "null-keyed-state-handles") || pl.OperatorID == nil || *pl.OperatorID != *firstBad {
					t.Errorf("%s: check %v operator %v, want max-parallelism-below-parallelism on %s", name, pl.Check, pl.OperatorID, *firstBad)
				}
			}
		}
	}
	t.Logf("checked %v", checked)
	if checked["operators"] == 0 || checked["refused"] == 0 || checked["keyed handles"] == 0 || checked["operator-state names"] == 0 {
		t.Errorf("the real files exercised too little: %v", checked)
	}
}
