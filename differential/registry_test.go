package differential

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestRegistryAgainstFlink: random scripts of registerReference (new files, equal and unequal
// handles, placeholders, preventDiscardingCreatedCheckpoint), unregisterUnusedState and
// registerAllAfterRestored (CLAIM, NO_CLAIM, LEGACY; restored from a checkpoint, a native
// savepoint or unknown properties) on the model's SharedStateRegistry and on Flink's
// SharedStateRegistryImpl, on every version with sources: the handle each registration
// returns, every refusal, and the files each unregistration deletes and the checkpoints it
// reports in use must agree. (Flink deletes on an executor, so the deletions of one call are
// compared as a set.)
func TestRegistryAgainstFlink(t *testing.T) {
	const scripts, steps = 300, 40
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(27, uint64(v)))
		var counts [3]int
		var discards, refusals, inUse int
		for n := 0; n < scripts; n++ {
			script := randomRegistryScript(r, steps)
			answers, err := j.Registry(script)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			reg := model.NewSharedStateRegistry()
			for i, s := range script {
				counts[s.Kind]++
				want := modelRegistryStep(reg, s)
				got := flinkRegistryStep(answers[i])
				if want != got {
					t.Errorf("%s: script %d step %d (%+v): model %s, Flink %s\nscript: %+v", v, n, i, s, want, got, script[:i+1])
					break
				}
				if strings.HasPrefix(got, "refused") {
					refusals++
				}
				discards += len(answers[i].Discarded)
				if len(answers[i].InUse) > 0 {
					inUse++
				}
			}
		}
		t.Logf("%s: %d scripts: %d registrations (%d refused), %d unregistrations (%d files deleted, %d reporting checkpoints in use), %d restores", v, scripts, counts[reference.Register], refusals, counts[reference.Unregister], discards, inUse, counts[reference.Restored])
	}
}

func randomRegistryScript(r *rand.Rand, n int) []reference.RegistryStep {
	var script []reference.RegistryStep
	cur := int64(1 + r.IntN(3))
	for len(script) < n {
		switch x := r.IntN(20); {
		case x < 13:
			k := r.IntN(6)
			s := reference.RegistryStep{Kind: reference.Register, Key: fmt.Sprint("k", k), Path: fmt.Sprint("file-", k),
				Size: 10, Checkpoint: cur, Placeholder: r.IntN(4) == 0, Prevent: r.IntN(5) == 0}
			switch r.IntN(12) {
			case 0:
				s.Path = fmt.Sprint("other-", k) // another file under the key
			case 1:
				s.Size = 11 // the file with another size
			}
			if r.IntN(6) == 0 {
				s.Checkpoint = max(0, cur-int64(r.IntN(3)))
			}
			script = append(script, s)
		case x < 16:
			script = append(script, reference.RegistryStep{Kind: reference.Unregister, Lowest: max(0, cur-int64(r.IntN(4)))})
			cur += int64(r.IntN(2))
		case x < 17:
			script = append(script, reference.RegistryStep{Kind: reference.Restored, Checkpoint: max(0, cur-int64(r.IntN(2))),
				Mode:    []model.RestoreMode{model.Claim, model.NoClaim, model.Legacy}[r.IntN(3)],
				Sharing: []model.SharingFilesStrategy{0, model.ForwardBackward, model.NoSharing}[r.IntN(3)]})
		default:
			cur++
		}
	}
	return script
}

// modelRegistryStep runs one step on the model and describes its outcome.
func modelRegistryStep(reg *model.SharedStateRegistry, s reference.RegistryStep) string {
	switch s.Kind {
	case reference.Register:
		h, err := reg.RegisterReference(model.SharedStateKey(s.Key), model.SharedHandle{Stream: model.StreamHandle{Path: s.Path, Size: s.Size}, Placeholder: s.Placeholder}, s.Checkpoint, s.Prevent)
		switch {
		case errors.Is(err, model.ErrUnknownSharedState):
			return "refused: Attempt to reference unknown state"
		case errors.Is(err, model.ErrUnequalSharedState):
			return "refused: StateObjects underlying same key should be equal"
		case err != nil:
			return "refused: " + err.Error()
		}
		return fmt.Sprintf("handle %s %d placeholder %v", h.Stream.Path, h.Stream.Size, h.Placeholder)
	case reference.Unregister:
		res := reg.UnregisterUnusedState(s.Lowest)
		var d []string
		for _, h := range res.Discarded {
			d = append(d, fmt.Sprint(h.Path, " ", h.Size))
		}
		slices.Sort(d)
		return fmt.Sprintf("deleted %q in use %v", d, res.CheckpointsInUse)
	}
	var props *model.CheckpointProperties
	if s.Sharing != 0 {
		props = &model.CheckpointProperties{Sharing: s.Sharing}
	}
	if err := reg.RegisterAllAfterRestored(s.Checkpoint, nil, props, s.Mode); err != nil {
		return "refused: " + err.Error()
	}
	return "restored"
}

// flinkRegistryStep describes Flink's answer to one step as modelRegistryStep does.
func flinkRegistryStep(a reference.RegistryAnswer) string {
	switch {
	case a.Refusal != nil:
		for _, m := range []string{"Attempt to reference unknown state", "StateObjects underlying same key should be equal"} {
			if strings.HasPrefix(a.Refusal.Message, m) {
				return "refused: " + m
			}
		}
		return "refused: " + a.Refusal.Class + ": " + a.Refusal.Message
	case a.Handle != nil:
		return fmt.Sprintf("handle %s %d placeholder %v", a.Handle.Path, a.Handle.Size, a.Handle.Placeholder)
	case a.Discarded != nil || a.InUse != nil:
		var d []string
		for _, h := range a.Discarded {
			d = append(d, fmt.Sprint(h.Path, " ", h.Size))
		}
		slices.Sort(d)
		inUse := a.InUse
		if len(inUse) == 0 {
			inUse = nil
		}
		return fmt.Sprintf("deleted %q in use %v", d, inUse)
	}
	return "restored"
}
