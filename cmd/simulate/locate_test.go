package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model/savepoint"
)

func inspectJSON(t *testing.T, path string) savepoint.Summary {
	t.Helper()
	code, out, errs := runCLI(t, "", "inspect", "--format", "json", path)
	if code != 0 {
		t.Fatalf("inspect %s: %d %s", path, code, errs)
	}
	var s savepoint.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// locate on a real savepoint agrees with inspect: the key group's bytes start at its offset and
// are the key_group_bytes inspect shows (TestOneByteRuleEveryCommand checks every real file).
func TestLocateAgreesWithInspect(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "real"), issue17File)
	sum := inspectJSON(t, path)
	for _, key := range []string{"0", "1", "7", "hello", "-3"} {
		code, out, errs := runCLI(t, "", "locate", key, path, "--key-type", "string", "--parallelism", "3", "--format", "json")
		if code != 0 || errs != "" {
			t.Fatalf("locate %s: %d %q", key, code, errs)
		}
		var locs []savepoint.KeyLocation
		if err := json.Unmarshal([]byte(out), &locs); err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0].OperatorID != issue17Keyed || len(locs[0].Handles) != 1 || locs[0].NewSubtask == nil {
			t.Fatalf("locate %s: %s", key, out)
		}
		l, h := locs[0], locs[0].Handles[0]
		var ks *savepoint.KeyedSummary
		for _, op := range sum.Operators {
			for _, s := range op.Subtasks {
				if op.OperatorID == l.OperatorID && s.Index == h.Subtask && len(s.ManagedKeyedState) == 1 {
					ks = &s.ManagedKeyedState[0]
				}
			}
		}
		if ks == nil || ks.Offsets == nil || int64(l.KeyGroup) < ks.Start || int64(l.KeyGroup) > ks.End {
			t.Fatalf("locate %s: inspect has no handle of subtask %d holding key group %d", key, h.Subtask, l.KeyGroup)
		}
		i := int64(l.KeyGroup) - ks.Start
		start, n := (*ks.Offsets)[i], (*ks.KeyGroupBytes)[i]
		if *h.Start != start || *h.End != start+n || *h.Bytes != n || h.HandleBytes != ks.StateBytes {
			t.Errorf("locate %s: bytes %d..%d (%d), inspect %d..%d", key, *h.Start, *h.End, *h.Bytes, start, start+n)
		}
		if l.OldSubtask != int(h.Subtask) {
			t.Errorf("locate %s: old subtask %d, handle of subtask %d", key, l.OldSubtask, h.Subtask)
		}
	}
	code, out, _ := runCLI(t, "", "locate", "7", path, "--key-type", "string", "--parallelism", "3")
	want := "operator d1392353922252257afa15351a98bae9: key \"7\" (hash 55) is in key group 3 of 4\n" +
		"  old: subtask 3 of 4\n" +
		"    subtask 3 managed keyed state: KeyGroupsStateHandle, 56792 bytes, in ByteStreamStateHandle 56792 bytes inline; key group 3: bytes 55211..56792 (1581 bytes)\n" +
		"  new: subtask 2 of 3\n"
	if code != 0 || out != want {
		t.Errorf("locate text: %d\n%s", code, out)
	}
}

// diff of two real snapshots of one job agrees with inspect's state bytes per operator.
func TestDiffAgreesWithInspect(t *testing.T) {
	dir := realmeta.Sub(t, "real")
	a := filepath.Join(dir, "new-stateful-broadcast-udf-migration-itcase-flink1.17-hashmap-savepoint.metadata")
	b := filepath.Join(dir, "new-stateful-broadcast-udf-migration-itcase-flink1.18-hashmap-savepoint.metadata")
	sa, sb := inspectJSON(t, a), inspectJSON(t, b)
	code, out, errs := runCLI(t, "", "diff", a, b, "--format", "json")
	if code != 0 || errs != "" {
		t.Fatalf("diff: %d %q", code, errs)
	}
	var d savepoint.SnapshotDiff
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Bytes.A != sa.StateBytes || d.Bytes.B != sb.StateBytes || d.Bytes.Delta != sb.StateBytes-sa.StateBytes {
		t.Errorf("total %+v, inspect %d and %d", d.Bytes, sa.StateBytes, sb.StateBytes)
	}
	if len(d.Added)+len(d.Removed) != 0 || len(d.Operators) != len(sa.Operators) {
		t.Fatalf("added %v removed %v, %d operators", d.Added, d.Removed, len(d.Operators))
	}
	bytesOf := func(s savepoint.Summary, id string) int64 {
		for _, o := range s.Operators {
			if o.OperatorID == id {
				return o.StateBytes
			}
		}
		return -1
	}
	for _, o := range d.Operators {
		if o.Bytes.A != bytesOf(sa, o.OperatorID) || o.Bytes.B != bytesOf(sb, o.OperatorID) {
			t.Errorf("operator %s: %+v", o.OperatorID, o.Bytes)
		}
	}
	// Against a snapshot of another job: its operators are added and removed.
	other := filepath.Join(dir, issue17File)
	if code, out, _ := runCLI(t, "", "diff", a, other); code != 0 || !strings.Contains(out, "\nadded operator "+issue17Keyed+": parallelism 4, 227168 state bytes\n") ||
		!strings.Contains(out, "\nremoved operator 12d7d939fd56473cac7cff0603179a41: parallelism 4, 5896 state bytes\n") {
		t.Errorf("diff with another job: %d\n%s", code, out)
	}
}

// Bad input: one line on stderr, exit 2.
func TestLocateDiffBadInput(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "real"), issue17File)
	for _, args := range [][]string{
		{"locate", "7", path},
		{"locate", "x", path, "--key-type", "int"},
		{"locate", "7", path, "--key-type", "long", "--parallelism", "5"},
		{"locate", "7", path, "--key-type", "long", "--parallelism", "0"},
		{"locate", "7", path, "--key-type", "long", "--operator", "nothex"},
		{"locate", "7", path, "--key-type", "long", "--operator", "uid:nobody"},
		{"locate", "7", path, "--key-type", "long", "--format", "xml"},
		{"locate", "7", "/no/such/file", "--key-type", "long"},
		{"locate", "7"},
		{"diff", path},
		{"diff", path, "/no/such/file"},
		{"diff", "-", "-"},
		{"diff", path, path, "--format", "xml"},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "simulate "+args[0]+": ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestLocateSQLNonParallel is issue 28's locate bullet: on a SQL savepoint whose window-rank
// operator 584034fe… has max parallelism 1 and whose other keyed operator has 128, --parallelism
// 3 answers for both (the first stays at 1, non-parallel, as plan plans it). Over every real
// file, locate at 3 fails only where some keyed operator's max parallelism is 2.
func TestLocateSQLNonParallel(t *testing.T) {
	dir := realmeta.Sub(t, "real")
	path := filepath.Join(dir, "restore-tests.stream-exec-window-rank_1.window-rank-tumble-tvf-agg-max-top-n.metadata")
	code, out, errs := runCLI(t, "", "locate", "1", path, "--key-type", "int", "--parallelism", "3", "--format", "json")
	var locs []savepoint.KeyLocation
	if code != 0 || errs != "" || json.Unmarshal([]byte(out), &locs) != nil || len(locs) != 2 {
		t.Fatalf("exit %d, stderr %q: %s", code, errs, out)
	}
	if l := locs[0]; l.OperatorID != "584034fe550ddcfc8ef0e39d89251526" || !l.NonParallel || l.NewParallelism != 1 || *l.NewSubtask != 0 {
		t.Errorf("max-parallelism-1 operator: %+v", l)
	}
	if l := locs[1]; l.NonParallel || l.NewParallelism != 3 || l.NewSubtask == nil || l.MaxParallelism != 128 {
		t.Errorf("the other operator: %+v", l)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.metadata"))
	nonParallel := 0
	for _, f := range files {
		code, out, errs := runCLI(t, "", "locate", "1", f, "--key-type", "int", "--parallelism", "3", "--format", "json")
		if code != 0 {
			if !strings.Contains(errs, "(want 1..2, its max parallelism)") && !strings.Contains(errs, "no operator of the checkpoint has keyed state") && !strings.Contains(errs, "version") {
				t.Errorf("%s: exit %d: %s", filepath.Base(f), code, errs)
			}
			continue
		}
		var locs []savepoint.KeyLocation
		if err := json.Unmarshal([]byte(out), &locs); err != nil {
			t.Fatal(err)
		}
		for _, l := range locs {
			if l.MaxParallelism == 1 {
				nonParallel++
				if !l.NonParallel || l.NewParallelism != 1 {
					t.Errorf("%s: %+v", filepath.Base(f), l)
				}
			}
		}
	}
	if nonParallel < 20 {
		t.Errorf("%d max-parallelism-1 operators located: too few", nonParallel)
	}
	t.Logf("%d files, %d max-parallelism-1 keyed operators located", len(files), nonParallel)
}

// locate on a handle whose key groups without data have offset 0 between non-zero offsets (a
// canonical savepoint of Flink 1.16): a key group with data runs to the next larger offset, an
// empty one is said to be empty (both were "the handle is read whole" before issue 28).
func TestLocateEmptyAndSparseKeyGroups(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "real"), "operatorstate.complexKeyed-flink1.16.metadata")
	for _, c := range []struct{ key, want string }{
		{"4", "operator 01203aa9a12dc1ec725e03853dd7c8f2: key \"4\" (hash 4) is in key group 7 of 128\n" +
			"  old: subtask 0 of 4\n" +
			"    subtask 0 managed keyed state: KeyGroupsSavepointStateHandle, 2518 bytes, in ByteStreamStateHandle 2518 bytes inline; key group 7: bytes 2452..2474 (22 bytes)\n"},
		{"312", "operator 01203aa9a12dc1ec725e03853dd7c8f2: key \"312\" (hash 312) is in key group 0 of 128\n" +
			"  old: subtask 0 of 4\n" +
			"    subtask 0 managed keyed state: KeyGroupsSavepointStateHandle, 2518 bytes, in ByteStreamStateHandle 2518 bytes inline; key group 0: empty (offset 0, 0 bytes)\n"},
	} {
		code, out, errs := runCLI(t, "", "locate", c.key, path, "--key-type", "int")
		if code != 0 || errs != "" || out != c.want {
			t.Errorf("locate %s: exit %d %q\n%s", c.key, code, errs, out)
		}
	}
}
