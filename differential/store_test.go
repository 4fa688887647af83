package differential

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestStoreAgainstFlink: random scripts on the model's CompletedCheckpointStore (with its
// SharedStateRegistry, driven through model.Coordinator.RestoreSavepoint, CompleteCheckpoint,
// the registry's RegisterAll, AddCheckpointAndSubsumeOldestOne and Shutdown) and on Flink's
// StandaloneCompletedCheckpointStore (with SharedStateRegistryImpl and CheckpointsCleaner), on
// every version with sources. A script builds a store retaining 0–4 checkpoints for a restore
// mode (CLAIM, NO_CLAIM, LEGACY) and a retention policy, may start by restoring a snapshot (a
// checkpoint, a native savepoint or one without recorded properties), then acknowledges
// (registers), completes and adds checkpoints whose incremental handles share files with older
// ones, leaves some acknowledged checkpoints unfinished (aborted), adds savepoints and
// stop-with-savepoints, and shuts down with any job status (sometimes going on after it). After
// every step the retained checkpoints, the latest, the subsumed one Flink returns, the
// checkpoints discarded (in order), the shared files deleted and the private files deleted
// (each a set: Flink deletes on an executor, the registry's in HashMap order) and every refusal
// must agree.
func TestStoreAgainstFlink(t *testing.T) {
	const scripts, steps = 300, 30
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(2702, uint64(v)))
		var nSteps, refusals, discarded, shared, private, restores, shutdowns, inUse, disagree int
		for n := 0; n < scripts; n++ {
			script := randomStoreScript(r, steps)
			answers, err := j.Store(script)
			ms, merr := newModelStore(v, script)
			if err != nil || merr != nil {
				var ref *reference.Refusal
				if merr == nil || !errors.As(err, &ref) || !errors.Is(merr, model.ErrInvalidNumRetained) || !strings.Contains(ref.Message, "Must retain at least one checkpoint") {
					t.Fatalf("%s: script %d (retained %d): model %v, Flink %v", v, n, script.Retained, merr, err)
				}
				refusals++
				continue
			}
			for i, s := range script.Steps {
				nSteps++
				want, u := ms.step(s)
				got := flinkStoreStep(answers[i])
				if want != got {
					t.Errorf("%s: script %d step %d (%s):\n model %s\n Flink %s\nscript: %s", v, n, i, describeStoreStep(s), want, got, describeStoreScript(script, i))
					disagree++
					break
				}
				if answers[i].Refusal != nil {
					refusals++
				}
				if len(u.CheckpointsInUse) > 0 {
					inUse++
				}
				discarded += len(answers[i].Discarded)
				for _, d := range answers[i].Deleted {
					if strings.HasPrefix(d, "shared/") {
						shared++
					} else {
						private++
					}
				}
				switch s.Kind {
				case reference.StoreRestore:
					restores++
				case reference.StoreShutdown:
					shutdowns++
				}
			}
		}
		t.Logf("%s: %d scripts (%d disagree), %d steps (%d restores, %d shutdowns, %d refused, %d with checkpoints in use): %d checkpoints discarded, %d shared and %d private files deleted",
			v, scripts, disagree, nSteps, restores, shutdowns, refusals, inUse, discarded, shared, private)
	}
}

// randomStoreScript draws a script of about n steps.
func randomStoreScript(r *rand.Rand, n int) reference.StoreScript {
	s := reference.StoreScript{
		Retained:  1 + r.IntN(4),
		Mode:      []model.RestoreMode{model.Claim, model.NoClaim, model.Legacy}[r.IntN(3)],
		Retention: []model.CheckpointRetentionPolicy{model.NeverRetainAfterTermination, model.RetainOnFailure, model.RetainOnCancellation}[r.IntN(3)],
	}
	if r.IntN(30) == 0 {
		s.Retained = 0
	}
	next := int64(1 + r.IntN(5))
	var files []string // the shared files of the newest snapshot
	fileN := 0
	state := func(id int64, withShared bool) reference.StoreState {
		st := reference.StoreState{Handle: fmt.Sprint("handle-", id),
			Meta:    model.StreamHandle{Path: fmt.Sprintf("chk-%d/meta", id), Size: 1},
			Private: []model.StreamHandle{{Path: fmt.Sprintf("chk-%d/private-0", id), Size: 2}}}
		if !withShared {
			return st
		}
		var kept []string
		for _, f := range files {
			if r.IntN(3) > 0 {
				kept = append(kept, f)
			}
		}
		for range r.IntN(3) {
			kept = append(kept, fmt.Sprint("shared/", fileN))
			fileN++
		}
		if fileN > 0 && r.IntN(8) == 0 {
			// a file of an older snapshot, perhaps deleted since
			if f := fmt.Sprint("shared/", r.IntN(fileN)); !slices.Contains(kept, f) {
				kept = append(kept, f)
			}
		}
		files = kept
		for _, f := range kept {
			st.Shared = append(st.Shared, model.StreamHandle{Path: f, Size: 3})
		}
		return st
	}
	if r.IntN(2) == 0 {
		s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreRestore, Checkpoint: next, State: state(next, true),
			Sharing: []model.SharingFilesStrategy{0, model.ForwardBackward, model.NoSharing}[r.IntN(3)]})
		next++
	}
	var pending []int64
	shut := false
	for len(s.Steps) < n {
		switch x := r.IntN(20); {
		case x < 7, shut && x < 15:
			// After a shutdown the coordinator is gone: only whole checkpoints, whose refused
			// registration (a closed registry) keeps them out of the store on both sides. (A
			// checkpoint added although its registration was refused is discarded with its
			// shared files by Flink — IncrementalRemoteKeyedStateHandle.discardState deletes
			// them when unregistered —, a path the coordinator never takes.)
			s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreComplete, Checkpoint: next, State: state(next, true)})
			next++
		case x < 11:
			s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreRegister, Checkpoint: next, State: state(next, true)})
			pending = append(pending, next)
			next++
		case x < 15:
			if len(pending) == 0 {
				continue
			}
			// The checkpoint completes; the pending ones before it are dropped as subsumed
			// (their state stays registered).
			k := r.IntN(len(pending))
			s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreAdd, Checkpoint: pending[k]})
			pending = pending[k+1:]
		case x < 17:
			s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreAdd, Checkpoint: next, State: state(next, false),
				Savepoint: true, Synchronous: r.IntN(3) == 0})
			next++
		case x < 18:
			next += int64(1 + r.IntN(2)) // ids used by checkpoints that never reached a task
		default:
			if r.IntN(3) > 0 {
				continue
			}
			statuses := model.JobStatuses()
			s.Steps = append(s.Steps, reference.StoreStep{Kind: reference.StoreShutdown, Status: statuses[r.IntN(len(statuses))]})
			if r.IntN(4) > 0 {
				return s
			}
			shut, pending = true, nil
		}
	}
	return s
}

// modelStore runs a store script on the model.
type modelStore struct {
	c *model.Coordinator
	// states are the snapshots' states by id; pending the acknowledged checkpoints' operators.
	states  map[int64]reference.StoreState
	pending map[int64][]model.OperatorState
	mode    model.RestoreMode
}

func newModelStore(v model.FlinkVersion, s reference.StoreScript) (*modelStore, error) {
	c, err := model.NewCoordinator(v, s.Retained)
	if err != nil {
		return nil, err
	}
	c.CheckpointProperties = model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward, Retention: s.Retention}
	return &modelStore{c: c, states: map[int64]reference.StoreState{}, pending: map[int64][]model.OperatorState{}, mode: s.Mode}, nil
}

// storeOperator is the job's one operator.
var storeOperator = model.OperatorIDFromUID("restoresim-store")

// operators is a snapshot's state as the model holds it: one operator, one subtask, one
// incremental handle.
func storeOperators(id int64, st reference.StoreState) []model.OperatorState {
	files := func(hs []model.StreamHandle) []model.SharedFile {
		var out []model.SharedFile
		for _, h := range hs {
			out = append(out, model.SharedFile{LocalPath: h.Path[strings.LastIndexByte(h.Path, '/')+1:], Handle: h})
		}
		return out
	}
	h := &model.IncrementalKeyedStateHandle{BackendID: "backend", Range: model.KeyGroupRange{Start: 0, End: 127}, CheckpointID: id,
		Shared: files(st.Shared), Private: files(st.Private), Meta: st.Meta, StateHandleID: st.Handle}
	return []model.OperatorState{{OperatorID: storeOperator, Parallelism: 1, MaxParallelism: 128,
		Subtasks: []*model.OperatorSubtaskState{{ManagedKeyedState: []model.KeyedStateHandle{h}}}}}
}

// snapshotStorage holds the one snapshot a script restores, at file:/snapshots/chk-<id>.
type snapshotStorage struct {
	md model.CheckpointMetadata
}

func (s snapshotStorage) dir() string { return fmt.Sprint("file:/snapshots/chk-", s.md.CheckpointID) }

func (s snapshotStorage) Stat(path string) (model.FileInfo, error) {
	switch path {
	case s.dir():
		return model.FileInfo{IsDir: true}, nil
	case s.dir() + "/_metadata":
		return model.FileInfo{Len: 100}, nil
	}
	return model.FileInfo{}, fs.ErrNotExist
}

func (s snapshotStorage) ReadMetadata(loc model.CheckpointLocation) (model.CheckpointMetadata, error) {
	if loc.ExternalPointer != s.dir() {
		return model.CheckpointMetadata{}, fs.ErrNotExist
	}
	return s.md, nil
}

// step runs one step on the model and describes the outcome as flinkStoreStep describes Flink's.
func (m *modelStore) step(s reference.StoreStep) (string, model.StoreUpdate) {
	var u model.StoreUpdate
	var err error
	store := func() *model.CompletedCheckpointStore { return m.c.Store }
	switch s.Kind {
	case reference.StoreRestore:
		m.states[s.Checkpoint] = s.State
		md := model.CheckpointMetadata{CheckpointID: s.Checkpoint, Operators: storeOperators(s.Checkpoint, s.State)}
		switch s.Sharing {
		case model.ForwardBackward:
			md.Properties = &model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward}
		case model.NoSharing:
			md.Properties = &model.CheckpointProperties{Savepoint: true, Forced: true, Native: true, Sharing: model.NoSharing}
		}
		storage := snapshotStorage{md: md}
		vertex := model.JobVertex{Name: "store", Operators: []model.JobOperator{{ID: storeOperator}}, Parallelism: 1, MaxParallelism: 128, MaxParallelismConfigured: true}
		var res *model.RestoreResult
		res, err = m.c.RestoreSavepoint(storage, model.SavepointRestoreSettings{Pointer: storage.dir(), Mode: m.mode}, []model.JobVertex{vertex})
		if res != nil {
			u = res.StoreUpdate
		}
	case reference.StoreRegister:
		m.states[s.Checkpoint] = s.State
		ops := storeOperators(s.Checkpoint, s.State)
		m.pending[s.Checkpoint] = ops
		err = store().Registry().RegisterAll(ops, s.Checkpoint)
	case reference.StoreComplete:
		m.states[s.Checkpoint] = s.State
		u, err = store().CompleteCheckpoint(&model.CompletedCheckpoint{CheckpointID: s.Checkpoint,
			Operators: storeOperators(s.Checkpoint, s.State), Properties: m.c.CheckpointProperties})
	case reference.StoreAdd:
		cp := &model.CompletedCheckpoint{CheckpointID: s.Checkpoint, Properties: m.c.CheckpointProperties}
		if s.Savepoint {
			m.states[s.Checkpoint] = s.State
			cp.Operators = storeOperators(s.Checkpoint, s.State)
			cp.Properties = model.CheckpointProperties{Savepoint: true, Forced: true, Synchronous: s.Synchronous, Sharing: model.NoSharing}
		} else {
			cp.Operators = m.pending[s.Checkpoint]
			delete(m.pending, s.Checkpoint)
		}
		u, err = store().AddCheckpointAndSubsumeOldestOne(cp)
	case reference.StoreShutdown:
		u, err = store().Shutdown(s.Status)
	}
	var subsumed *int64
	if len(u.Subsumed) > 0 {
		x := slices.Max(u.Subsumed)
		subsumed = &x
	}
	var sharedDeleted, privateDeleted []string
	for _, h := range u.DiscardedShared {
		sharedDeleted = append(sharedDeleted, h.Path)
	}
	for _, id := range u.Discarded {
		st := m.states[id]
		privateDeleted = append(privateDeleted, fmt.Sprintf("chk-%d/_metadata", id), st.Meta.Path)
		for _, h := range st.Private {
			privateDeleted = append(privateDeleted, h.Path)
		}
	}
	var retained []int64
	for _, c := range store().Checkpoints() {
		retained = append(retained, c.CheckpointID)
	}
	var latest *int64
	if l := store().Latest(); l != nil {
		latest = &l.CheckpointID
	}
	refusal := ""
	if err != nil {
		refusal = "refused: " + err.Error()
		if errors.Is(err, model.ErrSharedStateRegistryClosed) {
			refusal = "refused: registry closed"
		}
	}
	return describeStoreOutcome(refusal, retained, latest, subsumed, u.Discarded, sharedDeleted, privateDeleted), u
}

// flinkStoreStep describes Flink's answer to one step.
func flinkStoreStep(a reference.StoreAnswer) string {
	refusal := ""
	if a.Refusal != nil {
		refusal = "refused: " + a.Refusal.Class + ": " + a.Refusal.Message
		if strings.Contains(a.Refusal.Message, "closed SharedStateRegistry") {
			refusal = "refused: registry closed"
		}
	}
	var sharedDeleted, privateDeleted []string
	for _, d := range a.Deleted {
		if strings.HasPrefix(d, "shared/") {
			sharedDeleted = append(sharedDeleted, d)
		} else {
			privateDeleted = append(privateDeleted, d)
		}
	}
	return describeStoreOutcome(refusal, a.Retained, a.Latest, a.Subsumed, a.Discarded, sharedDeleted, privateDeleted)
}

func describeStoreOutcome(refusal string, retained []int64, latest, subsumed *int64, discarded []int64, sharedDeleted, privateDeleted []string) string {
	id := func(p *int64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprint(*p)
	}
	slices.Sort(sharedDeleted)
	slices.Sort(privateDeleted)
	var b strings.Builder
	if refusal != "" {
		b.WriteString(refusal + "; ")
	}
	fmt.Fprintf(&b, "retained %v latest %s subsumed %s discarded %v shared deleted %q private deleted %q",
		nonNil(retained), id(latest), id(subsumed), nonNil(discarded), sharedDeleted, privateDeleted)
	return b.String()
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func describeStoreStep(s reference.StoreStep) string {
	var shared []string
	for _, h := range s.State.Shared {
		shared = append(shared, h.Path)
	}
	switch s.Kind {
	case reference.StoreRestore:
		return fmt.Sprintf("restore %d sharing %d shared %v", s.Checkpoint, s.Sharing, shared)
	case reference.StoreRegister:
		return fmt.Sprintf("register %d shared %v", s.Checkpoint, shared)
	case reference.StoreComplete:
		return fmt.Sprintf("complete %d shared %v", s.Checkpoint, shared)
	case reference.StoreAdd:
		switch {
		case s.Savepoint && s.Synchronous:
			return fmt.Sprintf("add stop-with-savepoint %d", s.Checkpoint)
		case s.Savepoint:
			return fmt.Sprintf("add savepoint %d", s.Checkpoint)
		}
		return fmt.Sprintf("add %d", s.Checkpoint)
	case reference.StoreShutdown:
		return fmt.Sprint("shutdown ", s.Status)
	}
	return fmt.Sprint("kind ", s.Kind)
}

// describeStoreScript prints a script up to step last, one step a line.
func describeStoreScript(s reference.StoreScript, last int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "retained %d, mode %s, retention %s", s.Retained, s.Mode, s.Retention)
	for i, st := range s.Steps[:last+1] {
		fmt.Fprintf(&b, "\n  %d: %s", i, describeStoreStep(st))
	}
	return b.String()
}
