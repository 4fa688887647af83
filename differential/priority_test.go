package differential

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestPriorityAgainstFlink: random subtask states — keyed (managed and raw), operator (managed
// and raw) and channel state (input and output) as the JobManager assigns them — with zero to
// three alternatives, local copies of it (null, the same handles renamed, handles dropped or
// added, another key-group range, other offsets, another channel or subtask index), through the
// model's PrioritizeOperatorSubtaskStateAlternatives and through Flink's own
// PrioritizedOperatorSubtaskState.Builder on every version with sources: the alternatives of
// every kind, in priority order, each handle in order, must agree. On 1.19 and later, inputs
// for which Flink's keyed mixing throws (a null keyed handle, two JobManager handles of one
// key-group range), which no assignment produces, are drawn only by TestPriorityFlinkThrows.
func TestPriorityAgainstFlink(t *testing.T) {
	const cases = 3000
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(2703, uint64(v)))
		cs := make([]reference.PriorityCase, cases)
		for i := range cs {
			cs[i] = randomPriorityCase(r, !v.AtLeast(model.Flink119))
		}
		answers, err := j.Priorities(cs)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		var local, disagree int
		for i, c := range cs {
			want := describePriority(modelPriority(v, c))
			got := describeFlinkPriority(answers[i])
			if want != got {
				disagree++
				if disagree <= 5 {
					t.Errorf("%s: case %d:\n model %s\n Flink %s\ncase: %s", v, i, want, got, describePriorityCase(c))
				}
				continue
			}
			p := modelPriority(v, c)
			if p.UsesLocal() {
				local++
			}
		}
		t.Logf("%s: %d cases (%d disagree), %d with a local alternative first for some kind", v, cases, disagree, local)
	}
}

// TestPriorityFlinkThrows shows where the model deliberately differs (model/prioritized.go,
// computePrioritizedAlternatives): from 1.19 on Flink's keyed mixing throws on a null keyed
// handle (NullPointerException) and on two JobManager handles of one key-group range
// (IllegalStateException "Duplicate key"), where the model offers the JobManager's collection
// alone; 1.18 accepts both and agrees with the model.
func TestPriorityFlinkThrows(t *testing.T) {
	kg := func(name string, start, end int) *model.KeyGroupsStateHandle {
		return &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: model.KeyGroupRange{Start: start, End: end}, Offsets: make([]int64, end-start+1)},
			Delegate: model.StreamHandle{Path: name, Size: 1}}
	}
	local := &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{kg("local-a", 0, 3)}}
	cases := []struct {
		name  string
		c     reference.PriorityCase
		flink string // what 1.19+ throws
	}{
		{"null JobManager handle", reference.PriorityCase{JobManager: &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{kg("jm-a", 0, 3), nil}},
			Alternatives: []*model.OperatorSubtaskState{local}, CheckpointID: 1}, "java.lang.NullPointerException"},
		{"null local handle", reference.PriorityCase{JobManager: &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{kg("jm-a", 0, 3)}},
			Alternatives: []*model.OperatorSubtaskState{{ManagedKeyedState: []model.KeyedStateHandle{nil}}}, CheckpointID: 1}, "java.lang.NullPointerException"},
		{"two JobManager handles of one range", reference.PriorityCase{JobManager: &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{kg("jm-a", 0, 3), kg("jm-b", 0, 3)}},
			Alternatives: []*model.OperatorSubtaskState{local}, CheckpointID: 1}, "java.lang.IllegalStateException: Duplicate key"},
	}
	for _, v := range versions(t) {
		j := jvm(t, v)
		cs := make([]reference.PriorityCase, len(cases))
		for i, c := range cases {
			cs[i] = c.c
		}
		answers, err := j.Priorities(cs)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		for i, c := range cases {
			want := describePriority(modelPriority(v, c.c))
			got := describeFlinkPriority(answers[i])
			if !v.AtLeast(model.Flink119) {
				if want != got {
					t.Errorf("%s: %s: model %s, Flink %s", v, c.name, want, got)
				}
				continue
			}
			if a := answers[i].Refusal; a == nil || !strings.HasPrefix(a.Class+": "+a.Message, c.flink) {
				t.Errorf("%s: %s: Flink %s, want it to throw %s", v, c.name, got, c.flink)
			}
			if jmOnly := describePriority(jobManagerOnly(c.c)); want != jmOnly {
				t.Errorf("%s: %s: model %s, want the JobManager's state alone %s", v, c.name, want, jmOnly)
			}
		}
	}
}

func modelPriority(v model.FlinkVersion, c reference.PriorityCase) model.PrioritizedOperatorSubtaskState {
	return model.PrioritizeOperatorSubtaskStateAlternatives(v, c.JobManager, c.Alternatives, c.CheckpointID)
}

func jobManagerOnly(c reference.PriorityCase) model.PrioritizedOperatorSubtaskState {
	jm := c.JobManager
	return model.PrioritizedOperatorSubtaskState{
		ManagedKeyed: [][]model.KeyedStateHandle{jm.ManagedKeyedState}, RawKeyed: [][]model.KeyedStateHandle{jm.RawKeyedState},
		ManagedOperator: [][]model.OperatorStateHandle{jm.ManagedOperatorState}, RawOperator: [][]model.OperatorStateHandle{jm.RawOperatorState},
		InputChannel: [][]model.ChannelStateHandle{jm.InputChannelState}, ResultSubpartition: [][]model.ChannelStateHandle{jm.ResultSubpartitionState},
		RestoredCheckpointID: c.CheckpointID, Restored: true,
	}
}

// randomPriorityCase draws a JobManager state and alternatives derived from it. Null keyed
// handles and JobManager handles of one range are drawn only when nulls is set (1.18).
func randomPriorityCase(r *rand.Rand, nulls bool) reference.PriorityCase {
	jm := &model.OperatorSubtaskState{}
	keyed := func(prefix string) []model.KeyedStateHandle {
		var hs []model.KeyedStateHandle
		start := r.IntN(4)
		for k := range r.IntN(6) {
			end := start + r.IntN(4)
			if nulls && r.IntN(8) == 0 {
				hs = append(hs, nil)
				continue
			}
			if nulls && k > 0 && r.IntN(8) == 0 {
				end = start - 1 // the previous handle's range again, below
			}
			hs = append(hs, priorityKG(fmt.Sprint(prefix, k), start, end, r))
			start = end + 1
		}
		// a rescaled subtask's handles come in any order
		r.Shuffle(len(hs), func(a, b int) { hs[a], hs[b] = hs[b], hs[a] })
		return hs
	}
	jm.ManagedKeyedState = keyed("jm-mk-")
	if r.IntN(3) == 0 {
		jm.RawKeyedState = keyed("jm-rk-")
	}
	operator := func(prefix string) []model.OperatorStateHandle {
		var hs []model.OperatorStateHandle
		for k := range r.IntN(3) {
			h := model.OperatorStateHandle{Delegate: model.StreamHandle{Path: fmt.Sprint(prefix, k), Size: 1}}
			for s := range 1 + r.IntN(3) {
				h.States = append(h.States, model.NamedOperatorState{Name: fmt.Sprint("state-", s),
					Mode:    []model.DistributionMode{model.SplitDistribute, model.Union, model.Broadcast}[r.IntN(3)],
					Offsets: []int64{int64(r.IntN(3)), int64(10 + r.IntN(3))}[:r.IntN(3)]})
			}
			r.Shuffle(len(h.States), func(a, b int) { h.States[a], h.States[b] = h.States[b], h.States[a] })
			hs = append(hs, h)
		}
		return hs
	}
	jm.ManagedOperatorState = operator("jm-mo-")
	if r.IntN(3) == 0 {
		jm.RawOperatorState = operator("jm-ro-")
	}
	channel := func(prefix string) []model.ChannelStateHandle {
		var hs []model.ChannelStateHandle
		for k := range r.IntN(3) {
			hs = append(hs, model.ChannelStateHandle{SubtaskIndex: r.IntN(2), GateOrPartition: r.IntN(2), Channel: r.IntN(3),
				Delegate: model.StreamHandle{Path: fmt.Sprint(prefix, k), Size: 1}})
		}
		return hs
	}
	jm.InputChannelState = channel("jm-ic-")
	jm.ResultSubpartitionState = channel("jm-rs-")

	c := reference.PriorityCase{JobManager: jm, CheckpointID: int64(1 + r.IntN(100))}
	for a := range r.IntN(4) {
		if r.IntN(6) == 0 {
			c.Alternatives = append(c.Alternatives, nil)
			continue
		}
		alt := &model.OperatorSubtaskState{}
		prefix := fmt.Sprintf("local%d-", a)
		// keyed: the JobManager's handles renamed, some dropped, some ranges moved, some added
		localKeyed := func(jm []model.KeyedStateHandle, kind string) []model.KeyedStateHandle {
			var hs []model.KeyedStateHandle
			for k, h := range jm {
				if r.IntN(4) == 0 {
					continue
				}
				kgh, _ := h.(*model.KeyGroupsStateHandle)
				if kgh == nil {
					hs = append(hs, nil)
					continue
				}
				rg := kgh.Offsets.Range
				if r.IntN(5) == 0 {
					rg.End++
				}
				hs = append(hs, priorityKG(fmt.Sprint(prefix, kind, k), rg.Start, rg.End, r))
			}
			if r.IntN(5) == 0 {
				s := r.IntN(8)
				hs = append(hs, priorityKG(fmt.Sprint(prefix, kind, "extra"), s, s+r.IntN(3), r))
			}
			if nulls && r.IntN(10) == 0 {
				hs = append(hs, nil)
			}
			r.Shuffle(len(hs), func(a, b int) { hs[a], hs[b] = hs[b], hs[a] })
			return hs
		}
		alt.ManagedKeyedState = localKeyed(jm.ManagedKeyedState, "mk-")
		alt.RawKeyedState = localKeyed(jm.RawKeyedState, "rk-")
		localOperator := func(jm []model.OperatorStateHandle, kind string) []model.OperatorStateHandle {
			var hs []model.OperatorStateHandle
			for k, h := range jm {
				if r.IntN(5) == 0 {
					continue
				}
				l := model.OperatorStateHandle{Delegate: model.StreamHandle{Path: fmt.Sprint(prefix, kind, k), Size: 1}}
				for _, s := range h.States {
					s.Offsets = slices.Clone(s.Offsets)
					l.States = append(l.States, s)
				}
				// the same map iterated in another order
				r.Shuffle(len(l.States), func(a, b int) { l.States[a], l.States[b] = l.States[b], l.States[a] })
				switch r.IntN(8) {
				case 0:
					l.States[0].Offsets = append(l.States[0].Offsets, 99)
				case 1:
					l.States[0].Mode = model.DistributionMode(1 + (int(l.States[0].Mode) % 3))
				case 2:
					l.States = append(l.States, model.NamedOperatorState{Name: "state-extra", Mode: model.SplitDistribute})
				}
				hs = append(hs, l)
			}
			if r.IntN(5) == 0 {
				hs = append(hs, model.OperatorStateHandle{Delegate: model.StreamHandle{Path: fmt.Sprint(prefix, kind, "extra"), Size: 1},
					States: []model.NamedOperatorState{{Name: "state-0", Mode: model.SplitDistribute, Offsets: []int64{0}}}})
			}
			return hs
		}
		alt.ManagedOperatorState = localOperator(jm.ManagedOperatorState, "mo-")
		alt.RawOperatorState = localOperator(jm.RawOperatorState, "ro-")
		localChannel := func(jm []model.ChannelStateHandle, kind string) []model.ChannelStateHandle {
			var hs []model.ChannelStateHandle
			for k, h := range jm {
				if r.IntN(5) == 0 {
					continue
				}
				h.Delegate = model.StreamHandle{Path: fmt.Sprint(prefix, kind, k), Size: 1}
				switch r.IntN(6) {
				case 0:
					h.SubtaskIndex++
				case 1:
					h.GateOrPartition++
				case 2:
					h.Channel++
				}
				hs = append(hs, h)
			}
			if r.IntN(5) == 0 {
				hs = append(hs, model.ChannelStateHandle{SubtaskIndex: r.IntN(2), GateOrPartition: r.IntN(2), Channel: r.IntN(3),
					Delegate: model.StreamHandle{Path: fmt.Sprint(prefix, kind, "extra"), Size: 1}})
			}
			return hs
		}
		alt.InputChannelState = localChannel(jm.InputChannelState, "ic-")
		alt.ResultSubpartitionState = localChannel(jm.ResultSubpartitionState, "rs-")
		c.Alternatives = append(c.Alternatives, alt)
	}
	return c
}

func priorityKG(name string, start, end int, r *rand.Rand) *model.KeyGroupsStateHandle {
	offs := make([]int64, max(0, end-start+1))
	for i := range offs {
		offs[i] = int64(r.IntN(100))
	}
	return &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: model.KeyGroupRange{Start: start, End: end}, Offsets: offs},
		Delegate: model.StreamHandle{Path: name, Size: 1}}
}

// describePriority names the model's alternatives of every kind as describeFlinkPriority
// names Flink's.
func describePriority(p model.PrioritizedOperatorSubtaskState) string {
	keyed := func(alts [][]model.KeyedStateHandle) [][]*string {
		out := make([][]*string, len(alts))
		for i, a := range alts {
			out[i] = make([]*string, len(a))
			for k, h := range a {
				if kg, ok := h.(*model.KeyGroupsStateHandle); ok && kg != nil {
					out[i][k] = &kg.Delegate.Path
				}
			}
		}
		return out
	}
	operator := func(alts [][]model.OperatorStateHandle) [][]*string {
		out := make([][]*string, len(alts))
		for i, a := range alts {
			out[i] = make([]*string, len(a))
			for k := range a {
				out[i][k] = &a[k].Delegate.Path
			}
		}
		return out
	}
	channel := func(alts [][]model.ChannelStateHandle) [][]*string {
		out := make([][]*string, len(alts))
		for i, a := range alts {
			out[i] = make([]*string, len(a))
			for k := range a {
				out[i][k] = &a[k].Delegate.Path
			}
		}
		return out
	}
	id := p.RestoredCheckpointID
	return describePriorityAnswer(reference.PriorityAnswer{ManagedKeyed: keyed(p.ManagedKeyed), RawKeyed: keyed(p.RawKeyed),
		ManagedOperator: operator(p.ManagedOperator), RawOperator: operator(p.RawOperator),
		InputChannel: channel(p.InputChannel), ResultSubpartition: channel(p.ResultSubpartition),
		Restored: p.Restored, CheckpointID: &id})
}

func describeFlinkPriority(a reference.PriorityAnswer) string {
	if a.Refusal != nil {
		return "refused: " + a.Refusal.Class + ": " + a.Refusal.Message
	}
	return describePriorityAnswer(a)
}

func describePriorityAnswer(a reference.PriorityAnswer) string {
	alts := func(l [][]*string) string {
		var parts []string
		for _, alt := range l {
			var names []string
			for _, n := range alt {
				if n == nil {
					names = append(names, "null")
				} else {
					names = append(names, *n)
				}
			}
			parts = append(parts, "["+strings.Join(names, " ")+"]")
		}
		return strings.Join(parts, " ")
	}
	id := "none"
	if a.CheckpointID != nil {
		id = fmt.Sprint(*a.CheckpointID)
	}
	return fmt.Sprintf("managed keyed %s; raw keyed %s; managed operator %s; raw operator %s; input channel %s; result subpartition %s; restored %v from %s",
		alts(a.ManagedKeyed), alts(a.RawKeyed), alts(a.ManagedOperator), alts(a.RawOperator), alts(a.InputChannel), alts(a.ResultSubpartition), a.Restored, id)
}

// describePriorityCase prints a case's handles: keyed as name{start-end}, operator as
// name{state:mode:offsets...}, channel as name{subtask/gate/channel}.
func describePriorityCase(c reference.PriorityCase) string {
	subtask := func(s *model.OperatorSubtaskState) string {
		if s == nil {
			return "null"
		}
		keyed := func(hs []model.KeyedStateHandle) string {
			var out []string
			for _, h := range hs {
				if kg, ok := h.(*model.KeyGroupsStateHandle); ok && kg != nil {
					out = append(out, fmt.Sprintf("%s{%d-%d}", kg.Delegate.Path, kg.Offsets.Range.Start, kg.Offsets.Range.End))
				} else {
					out = append(out, "null")
				}
			}
			return "[" + strings.Join(out, " ") + "]"
		}
		operator := func(hs []model.OperatorStateHandle) string {
			var out []string
			for _, h := range hs {
				var st []string
				for _, s := range h.States {
					st = append(st, fmt.Sprintf("%s:%s:%v", s.Name, s.Mode, s.Offsets))
				}
				out = append(out, h.Delegate.Path+"{"+strings.Join(st, " ")+"}")
			}
			return "[" + strings.Join(out, " ") + "]"
		}
		channel := func(hs []model.ChannelStateHandle) string {
			var out []string
			for _, h := range hs {
				out = append(out, fmt.Sprintf("%s{%d/%d/%d}", h.Delegate.Path, h.SubtaskIndex, h.GateOrPartition, h.Channel))
			}
			return "[" + strings.Join(out, " ") + "]"
		}
		return fmt.Sprintf("mk %s rk %s mo %s ro %s ic %s rs %s", keyed(s.ManagedKeyedState), keyed(s.RawKeyedState),
			operator(s.ManagedOperatorState), operator(s.RawOperatorState), channel(s.InputChannelState), channel(s.ResultSubpartitionState))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "checkpoint %d\n  jm: %s", c.CheckpointID, subtask(c.JobManager))
	for i, a := range c.Alternatives {
		fmt.Fprintf(&b, "\n  alternative %d: %s", i, subtask(a))
	}
	return b.String()
}
