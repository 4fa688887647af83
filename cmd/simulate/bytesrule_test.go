package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

// realFiles lists every real metadata file of real/ and recent/ that Flink 1.3+ wrote (version
// 1 is refused), with its bytes.
func realFiles(t *testing.T) (paths []string, files []*metadata.File) {
	t.Helper()
	for _, sub := range []string{"real", "recent"} {
		dir := realmeta.Sub(t, sub)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".metadata") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) >= 8 && b[7] == 1 {
				continue
			}
			f, err := metadata.Read(b)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			paths, files = append(paths, p), append(files, f)
		}
	}
	return paths, files
}

// kgHandle names a key-groups handle of a file: the operator, the old subtask and the kind
// ("managed" or "raw").
type kgHandle struct {
	op      string
	subtask int
	kind    string
}

// TestOneByteRuleEveryCommand: on every real file, inspect (key_group_bytes), locate (a key in
// each key group), diff (against the file without its keyed state) and plan (every operator
// with key-groups handles at its max parallelism, so that each new subtask takes one key
// group) give every key group of every key-groups handle the same bytes.
func TestOneByteRuleEveryCommand(t *testing.T) {
	paths, files := realFiles(t)
	var handles, keyGroups, empty int
	for i, p := range paths {
		name := filepath.Base(p)
		// inspect: the bytes of each key group of each handle.
		want := map[kgHandle]map[int]int64{}
		perOp := map[string]map[int]int64{} // the operator's bytes per key group (diff sums the handles)
		onlyKG := map[string]bool{}         // every keyed handle of the operator is a key-groups handle
		maxPar := map[string]int{}          // operators with key-groups handles: their max parallelism
		for _, op := range inspectJSON(t, p).Operators {
			onlyKG[op.OperatorID] = true
			for _, s := range op.Subtasks {
				for _, k := range []struct {
					kind string
					l    []savepoint.KeyedSummary
				}{{"managed", s.ManagedKeyedState}, {"raw", s.RawKeyedState}} {
					for _, h := range k.l {
						if h.KeyGroupBytes == nil {
							onlyKG[op.OperatorID] = false
							continue
						}
						id := kgHandle{op.OperatorID, int(s.Index), k.kind}
						if want[id] != nil {
							t.Fatalf("%s: two %s keyed handles of subtask %d of %s", name, k.kind, s.Index, op.OperatorID)
						}
						kb := *h.KeyGroupBytes
						if int64(len(kb)) != h.End-h.Start+1 {
							t.Fatalf("%s: %v: %d key_group_bytes for key groups %d..%d", name, id, len(kb), h.Start, h.End)
						}
						want[id] = map[int]int64{}
						if perOp[op.OperatorID] == nil {
							perOp[op.OperatorID] = map[int]int64{}
						}
						for j, n := range kb {
							want[id][int(h.Start)+j] = n
							perOp[op.OperatorID][int(h.Start)+j] += n
							keyGroups++
							if n == 0 {
								empty++
							}
						}
						handles++
						maxPar[op.OperatorID] = int(op.MaxParallelism)
					}
				}
			}
		}
		if len(want) == 0 {
			continue
		}
		check := func(cmd string, id kgHandle, kg int, got int64) {
			t.Helper()
			if w, ok := want[id][kg]; !ok {
				t.Errorf("%s: %s: %v has no key group %d in inspect", name, cmd, id, kg)
			} else if got != w {
				t.Errorf("%s: %s: %v key group %d: %d bytes, inspect %d", name, cmd, id, kg, got, w)
			}
		}

		// locate: one int key per key group of every operator with key-groups handles.
		seen := map[kgHandle]map[int]bool{}
		for op, m := range maxPar {
			keys, have := make([]int32, m), make([]bool, m)
			for found, k := 0, int32(0); found < m; k++ {
				if kg := model.ComputeKeyGroupForKeyHash(model.JavaIntHash(k), m); !have[kg] {
					keys[kg], have[kg] = k, true
					found++
				}
			}
			for kg, k := range keys {
				code, out, errs := runCLI(t, "", "locate", strconv.Itoa(int(k)), p, "--key-type", "int", "--operator", op, "--format", "json")
				if code != 0 {
					t.Fatalf("%s: locate %d --operator %s: exit %d: %s", name, k, op, code, errs)
				}
				var locs []savepoint.KeyLocation
				if err := json.Unmarshal([]byte(out), &locs); err != nil {
					t.Fatal(err)
				}
				if len(locs) != 1 || locs[0].KeyGroup != kg {
					t.Fatalf("%s: locate %d --operator %s: want key group %d: %s", name, k, op, kg, out)
				}
				for _, h := range locs[0].Handles {
					if h.Bytes == nil {
						continue
					}
					id := kgHandle{op, int(h.Subtask), strings.TrimSuffix(h.Kind, " keyed state")}
					check("locate", id, kg, *h.Bytes)
					if *h.End-*h.Start != *h.Bytes {
						t.Errorf("%s: locate: %v key group %d: bytes %d..%d, %d bytes", name, id, kg, *h.Start, *h.End, *h.Bytes)
					}
					if seen[id] == nil {
						seen[id] = map[int]bool{}
					}
					seen[id][kg] = true
				}
			}
		}
		for id, kgs := range want {
			if len(seen[id]) != len(kgs) {
				t.Errorf("%s: locate found %d of the %d key groups of %v", name, len(seen[id]), len(kgs), id)
			}
		}

		// diff: against the same file without keyed state, every key group with bytes changes
		// from its bytes to 0.
		bare := *files[i]
		bare.Operators = append([]metadata.Operator(nil), bare.Operators...)
		for j := range bare.Operators {
			op := &bare.Operators[j]
			op.Subtasks = append([]metadata.Subtask(nil), op.Subtasks...)
			for k := range op.Subtasks {
				op.Subtasks[k].ManagedKeyedState, op.Subtasks[k].RawKeyedState = nil, nil
			}
		}
		b, err := metadata.Marshal(&bare)
		if err != nil {
			t.Fatal(err)
		}
		bp := filepath.Join(t.TempDir(), "bare.metadata")
		if err := os.WriteFile(bp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "", "diff", p, bp, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: diff: exit %d: %s", name, code, errs)
		}
		var d savepoint.SnapshotDiff
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		for _, o := range d.Operators {
			kgs := perOp[o.OperatorID]
			if kgs == nil || !onlyKG[o.OperatorID] {
				continue
			}
			if !o.KeyGroupsCompared {
				t.Errorf("%s: diff: operator %s: key groups not compared", name, o.OperatorID)
				continue
			}
			got := map[int]int64{}
			for _, c := range o.KeyGroups {
				if c.B != 0 {
					t.Errorf("%s: diff: operator %s key group %d: %d bytes without keyed state", name, o.OperatorID, c.Index, c.B)
				}
				got[c.Index] = c.A
			}
			for kg := range maxPar[o.OperatorID] {
				if got[kg] != kgs[kg] {
					t.Errorf("%s: diff: operator %s key group %d: %d bytes, inspect %d", name, o.OperatorID, kg, got[kg], kgs[kg])
				}
			}
		}

		// plan: each operator with key-groups handles at its max parallelism.
		args := []string{p, "--keep-parallelism"}
		for op, m := range maxPar {
			args = append(args, "--vertex", fmt.Sprintf("%s=%d", op, m))
		}
		_, pl, _ := planOut(t, args...)
		planned := map[kgHandle]map[int]bool{}
		for _, o := range pl.Operators {
			if maxPar[o.OperatorID] == 0 {
				continue
			}
			if o.Status != "restored" {
				t.Errorf("%s: plan: operator %s %s", name, o.OperatorID, o.Status)
			}
			for _, s := range o.Subtasks {
				for _, k := range []struct {
					kind string
					l    []savepoint.KeyedPart
				}{{"managed", s.ManagedKeyedState}, {"raw", s.RawKeyedState}} {
					for _, h := range k.l {
						id := kgHandle{o.OperatorID, h.OldSubtask, k.kind}
						if want[id] == nil {
							continue // (not a key-groups handle)
						}
						var w int64
						for kg := h.Start; kg <= h.End; kg++ {
							w += want[id][kg]
							if planned[id] == nil {
								planned[id] = map[int]bool{}
							}
							planned[id][kg] = true
						}
						if h.Bytes != w {
							t.Errorf("%s: plan: %v key groups %d..%d: %d bytes, inspect %d", name, id, h.Start, h.End, h.Bytes, w)
						}
					}
				}
			}
		}
		for id, kgs := range want {
			if len(planned[id]) != len(kgs) {
				t.Errorf("%s: plan handed out %d of the %d key groups of %v", name, len(planned[id]), len(kgs), id)
			}
		}
	}
	t.Logf("%d files, %d key-groups handles, %d key groups (%d empty)", len(paths), handles, keyGroups, empty)
}

// TestInspectDocsKeyedHandle checks the keyed handle docs/inspect.md shows in its JSON section
// against inspect's JSON of that file.
func TestInspectDocsKeyedHandle(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "real"), "new-stateful-udf-migration-itcase-flink1.15-hashmap-checkpoint.metadata")
	doc, err := os.ReadFile("../../docs/inspect.md")
	if err != nil {
		t.Fatal(err)
	}
	head := "operator `d5c8b168…`, subtask 1):\n\n```\n"
	i := strings.Index(string(doc), head)
	if i < 0 {
		t.Fatalf("docs/inspect.md lacks %q", head)
	}
	want := string(doc)[i+len(head):]
	want = want[:strings.Index(want, "```")]
	for _, op := range inspectJSON(t, path).Operators {
		if op.OperatorID != "d5c8b168c6cbfe8c507a10f88b325243" {
			continue
		}
		for _, s := range op.Subtasks {
			if s.Index == 1 {
				b, _ := json.MarshalIndent(s.ManagedKeyedState, "", "  ")
				if got := `"managed_keyed_state": ` + string(b) + "\n"; got != want {
					t.Errorf("docs/inspect.md keyed handle:\n%s\ninspect:\n%s", want, got)
				}
				return
			}
		}
	}
	t.Fatal("no subtask 1 of operator d5c8b168c6cbfe8c507a10f88b325243")
}

// TestStateBytesPlanAgreesWithInspect: on every real file, plan's state bytes are inspect's, per
// operator (restored, refused or dropped alike) and for the file, and its read amplification
// divides what the restore reads by them.
func TestStateBytesPlanAgreesWithInspect(t *testing.T) {
	paths, _ := realFiles(t)
	var ops, refused int
	for _, p := range paths {
		name := filepath.Base(p)
		sum := inspectJSON(t, p)
		code, out, errs := runCLI(t, "", "plan", p, "--parallelism", "2", "--format", "json")
		if code == 2 {
			t.Fatalf("%s: plan: exit 2: %s", name, errs)
		}
		var pl struct { // (the fields compared: the rescaling descriptors do not decode)
			StateBytes int64 `json:"state_bytes"`
			Operators  []struct {
				OperatorID            string   `json:"operator_id"`
				Status                string   `json:"status"`
				StateBytes            int64    `json:"state_bytes"`
				BytesRead             int64    `json:"bytes_read"`
				CoordinatorStateBytes int64    `json:"coordinator_state_bytes"`
				ReadAmplification     *float64 `json:"read_amplification"`
			} `json:"operators"`
		}
		if err := json.Unmarshal([]byte(out), &pl); err != nil {
			t.Fatalf("%s: plan: %v", name, err)
		}
		if pl.StateBytes != sum.StateBytes {
			t.Errorf("%s: plan %d state bytes, inspect %d", name, pl.StateBytes, sum.StateBytes)
		}
		if len(pl.Operators) != len(sum.Operators) {
			t.Fatalf("%s: plan has %d operators, inspect %d", name, len(pl.Operators), len(sum.Operators))
		}
		for i, o := range pl.Operators {
			in := sum.Operators[i]
			ops++
			if o.Status == "refused" {
				refused++
			}
			if o.OperatorID != in.OperatorID || o.StateBytes != in.StateBytes {
				t.Errorf("%s: plan: operator %s (%s) %d state bytes, inspect: operator %s %d", name, o.OperatorID, o.Status, o.StateBytes, in.OperatorID, in.StateBytes)
			}
			if o.ReadAmplification != nil {
				if want := float64(o.BytesRead+o.CoordinatorStateBytes) / float64(in.StateBytes); *o.ReadAmplification != want {
					t.Errorf("%s: operator %s: read amplification %v, want %v", name, o.OperatorID, *o.ReadAmplification, want)
				}
			}
		}
	}
	t.Logf("%d files, %d operators (%d refused at parallelism 2)", len(paths), ops, refused)
}
