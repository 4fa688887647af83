package properties

import (
	"fmt"
	"slices"
	"testing"

	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

// incCheckpoint is checkpoint id of one RocksDB backend whose incremental handle references the
// shared files named in files.
func incCheckpoint(id int64, files []string) *model.CompletedCheckpoint {
	h := &model.IncrementalKeyedStateHandle{BackendID: "backend", Range: model.KeyGroupRange{Start: 0, End: 127}, CheckpointID: id,
		Meta: model.StreamHandle{Path: fmt.Sprintf("chk-%d/meta", id), Size: 1}}
	for _, f := range files {
		h.Shared = append(h.Shared, model.SharedFile{LocalPath: f, Handle: model.StreamHandle{Path: "shared/" + f, Size: 10}})
	}
	return &model.CompletedCheckpoint{CheckpointID: id, ExternalPointer: fmt.Sprintf("file:/ckpt/chk-%d", id),
		Properties: model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward},
		Operators: []model.OperatorState{{OperatorID: stateID, Parallelism: 1, MaxParallelism: 128,
			Subtasks: []*model.OperatorSubtaskState{{ManagedKeyedState: []model.KeyedStateHandle{h}}}}}}
}

func referenced(cps []*model.CompletedCheckpoint) map[string]bool {
	out := map[string]bool{}
	for _, cp := range cps {
		for _, st := range cp.Operators[0].Subtasks {
			for _, h := range st.ManagedKeyedState {
				for _, f := range h.(*model.IncrementalKeyedStateHandle).Shared {
					out[f.Handle.Path] = true
				}
			}
		}
	}
	return out
}

// drawFileChain draws what checkpoint n's backend references: some files of the previous
// checkpoint (RocksDB never re-references a file it dropped) and new ones.
func drawFileChain(t *rapid.T, prev []string, n int) []string {
	var files []string
	for _, f := range prev {
		if rapid.IntRange(0, 3).Draw(t, "keep file") > 0 {
			files = append(files, f)
		}
	}
	for k := range rapid.IntRange(0, 2).Draw(t, "new files") {
		files = append(files, fmt.Sprintf("%d-%d.sst", n, k))
	}
	return files
}

// TestStoreSharedFiles runs checkpoints through the completed-checkpoint store and its registry
// (1.18 last-use tracking, 1.10.1 reference counting): a shared file referenced by a retained
// checkpoint is never discarded, and every file no retained checkpoint references any more has
// been discarded, exactly once.
func TestStoreSharedFiles(t *testing.T) {
	cov := newCoverage(t)
	cov.require("flink-1.18", 0.3)
	cov.require("flink-1.10.1", 0.3)
	cov.require("file-discarded", 0.3)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		v := drawVersion(t)
		cov.label("flink-" + v.String())
		store, err := model.NewCompletedCheckpointStore(v, rapid.IntRange(1, 3).Draw(t, "retained"))
		if err != nil {
			t.Fatalf("NewCompletedCheckpointStore: %v", err)
		}
		discarded := map[string]int{}
		ever := map[string]bool{}
		var files []string
		for n := range rapid.IntRange(1, 8).Draw(t, "checkpoints") {
			id := int64(n + 1)
			files = drawFileChain(t, files, n)
			for _, f := range files {
				ever["shared/"+f] = true
			}
			u, err := store.CompleteCheckpoint(incCheckpoint(id, files))
			if err != nil {
				t.Fatalf("Flink %s: CompleteCheckpoint(%d): %v", v, id, err)
			}
			for _, h := range u.DiscardedShared {
				discarded[h.Path]++
				cov.label("file-discarded")
			}
			live := referenced(store.Checkpoints())
			for _, f := range sortedKeysOf(discarded) {
				n := discarded[f]
				if live[f] {
					t.Fatalf("Flink %s, after checkpoint %d: %s was discarded but retained checkpoints %v still reference it", v, id, f, ids(store.Checkpoints()))
				}
				if n > 1 {
					t.Fatalf("Flink %s: %s discarded %d times", v, f, n)
				}
			}
			for _, f := range sortedKeysOf(ever) {
				if !live[f] && discarded[f] == 0 {
					t.Fatalf("Flink %s, after checkpoint %d: %s is referenced by no retained checkpoint %v but was not discarded", v, id, f, ids(store.Checkpoints()))
				}
			}
		}
	})
}

func ids(cps []*model.CompletedCheckpoint) []int64 {
	var out []int64
	for _, c := range cps {
		out = append(out, c.CheckpointID)
	}
	return out
}

// TestRegistryRestoreModes (1.18): the restored snapshot's shared files, once no new checkpoint
// references them, are discarded when the job claimed the snapshot (CLAIM) and kept otherwise
// (NO_CLAIM, LEGACY); files the job created itself are discarded once unused, and no file a
// retained checkpoint uses is discarded.
func TestRegistryRestoreModes(t *testing.T) {
	cov := newCoverage(t)
	for _, l := range []string{"CLAIM", "NO_CLAIM", "LEGACY"} {
		cov.require(l, 0.2)
	}
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		mode := rapid.SampledFrom([]model.RestoreMode{model.Claim, model.NoClaim, model.Legacy}).Draw(t, "mode")
		cov.label(mode.String())
		restoredID := rapid.Int64Range(1, 20).Draw(t, "restored ID")
		restoredFiles := drawFileChain(t, nil, 0)
		restoredFiles = append(restoredFiles, "0-x.sst")
		r := model.NewSharedStateRegistry()
		snap := incCheckpoint(restoredID, restoredFiles)
		if err := r.RegisterAllAfterRestored(restoredID, snap.Operators, &model.CheckpointProperties{Sharing: model.ForwardBackward}, mode); err != nil {
			t.Fatalf("RegisterAllAfterRestored: %v", err)
		}
		retained := rapid.IntRange(1, 3).Draw(t, "retained")
		window := []*model.CompletedCheckpoint{snap}
		discarded := map[string]bool{}
		files := restoredFiles
		for n := range rapid.IntRange(1, 6).Draw(t, "checkpoints") {
			id := restoredID + int64(n) + 1
			files = drawFileChain(t, files, n+1)
			cp := incCheckpoint(id, files)
			if err := r.RegisterAll(cp.Operators, id); err != nil {
				t.Fatalf("RegisterAll(%d): %v", id, err)
			}
			window = append(window, cp)
			if len(window) > retained {
				window = window[len(window)-retained:]
			}
			res := r.UnregisterUnusedState(window[0].CheckpointID)
			for _, h := range res.Discarded {
				discarded[h.Path] = true
			}
			live := referenced(window)
			for _, f := range sortedKeysOf(discarded) {
				if live[f] {
					t.Fatalf("%s: %s discarded while checkpoints %v reference it", mode, f, ids(window))
				}
				if mode != model.Claim && slices.Contains(restoredFiles, f[len("shared/"):]) {
					t.Fatalf("%s: %s of the restored snapshot %d was discarded; only CLAIM may discard it", mode, f, restoredID)
				}
			}
			for _, f := range restoredFiles {
				if p := "shared/" + f; mode == model.Claim && !live[p] && !discarded[p] {
					t.Fatalf("CLAIM: %s of the restored snapshot is used by no retained checkpoint %v but was not discarded", p, ids(window))
				}
			}
		}
	})
}

// TestLocalRecoveryPriority: a restored task tries a TaskManager's local copy first only when it
// is a copy of the restored checkpoint with the same key-group range; the JobManager's assigned
// state is always the last alternative.
func TestLocalRecoveryPriority(t *testing.T) {
	cov := newCoverage(t)
	cov.require("local-used", 0.1)
	cov.require("local-stale", 0.1)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		restoredID := rapid.Int64Range(1, 10).Draw(t, "restored checkpoint")
		r := model.KeyGroupRange{Start: 0, End: rapid.IntRange(0, 50).Draw(t, "range end")}
		jm := &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: r, Offsets: make([]int64, r.NumberOfKeyGroups())},
			Delegate: model.StreamHandle{Path: "remote", Size: 1}}
		restore := &model.TaskRestore{CheckpointID: restoredID, Operators: []model.OperatorRestore{{OperatorID: stateID,
			State: model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{jm}}}}}
		localID := restoredID
		if rapid.Bool().Draw(t, "stale local copy") {
			localID = rapid.Int64Range(1, 10).Draw(t, "local checkpoint")
		}
		lr := r
		if rapid.IntRange(0, 3).Draw(t, "other range") == 0 {
			lr.End++
		}
		local := &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: lr, Offsets: make([]int64, lr.NumberOfKeyGroups())},
			Delegate: model.StreamHandle{Path: "local", Size: 1}}
		snap := &model.TaskLocalSnapshot{CheckpointID: localID, Operators: []model.OperatorRestore{{OperatorID: stateID,
			State: model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{local}}}}}
		cov.labelIf(localID != restoredID, "local-stale")
		got := model.PrioritizeTaskRestore(model.Flink118, restore, snap)
		if len(got) != 1 {
			t.Fatalf("PrioritizeTaskRestore gave %d operators, want 1", len(got))
		}
		alts := got[0].State.ManagedKeyed
		if last := alts[len(alts)-1]; len(last) != 1 || last[0] != model.KeyedStateHandle(jm) {
			t.Fatalf("the last alternative is %v, want the JobManager's state", last)
		}
		wantLocal := localID == restoredID && lr == r
		cov.labelIf(wantLocal, "local-used")
		if gotLocal := len(alts) == 2; gotLocal != wantLocal {
			t.Fatalf("restored checkpoint %d, local copy of checkpoint %d with range %v (assigned %v): local copy offered = %t, want %t",
				restoredID, localID, lr, r, gotLocal, wantLocal)
		}
	})
}

// sortedKeysOf lists m's keys in order, so that a failure message does not depend on map order
// (rapid compares the messages of the original and the replayed failure).
func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
