package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// InvHanded: what the model's assignment hands each subtask — not only what the subtask ends up
// holding — is what the oracle's own reference hands it (key-groups handles cut to the subtask's
// range with matching offsets, incremental handles whole, operator state as the round robin
// assigns it).
const InvHanded = "handed"

// The world records the restore objects as plain values for the oracle: the restored snapshot's
// operator states as the model read them back (the input of the assignment) and, per subtask,
// what the assignment handed each operator (its output).

func plainMode(m model.DistributionMode) oracle.Mode {
	switch m {
	case model.Union:
		return oracle.Union
	case model.Broadcast:
		return oracle.Broadcast
	}
	return oracle.SplitDistribute
}

func plainKeyed(hs []model.KeyedStateHandle) []oracle.KeyedHandle { return new(plainer).keyed(hs) }

// plainer converts model state to the oracle's plain values, the slices of one conversion
// taken from a few larger arrays.
type plainer struct {
	keyedSlab slab[oracle.KeyedHandle]
	opSlab    slab[oracle.OperatorHandle]
	listSlab  slab[oracle.NamedList]
	pathSlab  slab[string]
}

func (p *plainer) keyed(hs []model.KeyedStateHandle) []oracle.KeyedHandle {
	n := 0
	for _, h := range hs {
		if h != nil {
			n++
		}
	}
	out := p.keyedSlab.take(n)[:0]
	for _, h := range hs {
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
			r := h.Offsets.Range
			out = append(out, oracle.KeyedHandle{Stream: h.Delegate.Path, Start: r.Start, End: r.End, Offsets: h.Offsets.Offsets})
		case *model.IncrementalKeyedStateHandle:
			k := oracle.KeyedHandle{Incremental: true, Stream: h.BackendID, Start: h.Range.Start, End: h.Range.End, Checkpoint: h.CheckpointID}
			k.Shared = p.pathSlab.take(len(h.Shared))
			for i, f := range h.Shared {
				k.Shared[i] = f.Handle.Path
			}
			out = append(out, k)
		case nil:
		default:
			out = append(out, oracle.KeyedHandle{Stream: fmt.Sprintf("unknown %T", h)})
		}
	}
	return out
}

func (p *plainer) operatorHandles(hs []model.OperatorStateHandle) []oracle.OperatorHandle {
	out := p.opSlab.take(len(hs))
	for i, h := range hs {
		o := oracle.OperatorHandle{Stream: h.Delegate.Path, States: p.listSlab.take(len(h.States))}
		for k, ns := range h.States {
			o.States[k] = oracle.NamedList{Name: ns.Name, Mode: plainMode(ns.Mode), Offsets: ns.Offsets} // shared, read only
		}
		out[i] = o
	}
	return out
}

func (p *plainer) subtask(st *model.OperatorSubtaskState) oracle.SubtaskState {
	return oracle.SubtaskState{
		ManagedKeyed: p.keyed(st.ManagedKeyedState), RawKeyed: p.keyed(st.RawKeyedState),
		ManagedOperator: p.operatorHandles(st.ManagedOperatorState), RawOperator: p.operatorHandles(st.RawOperatorState),
	}
}

// slab hands out capped parts of larger arrays: many small slices in few allocations.
type slab[T any] []T

// take returns n fresh elements (nil for none); appending to them reallocates. The first array
// holds the first take exactly, each next one twice the last (up to 256 elements) or n.
func (s *slab[T]) take(n int) []T {
	if n == 0 {
		return nil
	}
	if cap(*s)-len(*s) < n {
		*s = make([]T, 0, max(n, min(2*cap(*s), 256)))
	}
	l := len(*s)
	*s = (*s)[:l+n]
	return (*s)[l : l+n : l+n]
}

// plainStored is the restored snapshot's operator states as plain values.
func plainStored(ops []model.OperatorState) []oracle.StoredOperator {
	var p plainer
	out := make([]oracle.StoredOperator, len(ops))
	for i, os := range ops {
		o := oracle.StoredOperator{ID: os.OperatorID.String(), Parallelism: os.Parallelism, MaxParallelism: os.MaxParallelism,
			Subtasks: make([]*oracle.SubtaskState, len(os.Subtasks))}
		subs := make([]oracle.SubtaskState, len(os.Subtasks)) // (one allocation for the operator's subtasks)
		for j, st := range os.Subtasks {
			if st != nil {
				subs[j] = p.subtask(st)
				o.Subtasks[j] = &subs[j]
			}
		}
		out[i] = o
	}
	return out
}

// newVertex describes vertex v of the running job to the oracle, with the max parallelism the
// oracle expects it to restore with: operator IDs from the oracle's own uid hash.
func (w *World) newVertex(v, maxPar int) oracle.NewVertex {
	id := func(uid string) string { return oracle.OperatorIDFromUID(uid).String() }
	nv := oracle.NewVertex{Parallelism: w.job.Parallelism(v), MaxParallelism: maxPar}
	switch v {
	case 0:
		nv.Operators = []oracle.NewOperator{{Generated: id(w.job.Source.UID)}}
	case 1:
		nv.Operators = []oracle.NewOperator{{Generated: id(w.job.Keyed.UID), UserDefined: strings.ToLower(w.job.Keyed.UIDHash)}}
		if w.job.Sink {
			nv.Operators = append(nv.Operators, oracle.NewOperator{Generated: id(sinkUID)})
		}
	default:
		for _, uid := range w.job.StageUIDs(v - 2) {
			nv.Operators = append(nv.Operators, oracle.NewOperator{Generated: id(uid)})
		}
	}
	return nv
}

// checkHanded checks the restore objects of an accepted restore of cp: for each vertex of the
// assignment (vertices: their indexes in the running job, in the assignment's order; maxPar:
// the max parallelism the oracle expects each to restore with), every subtask's handed state
// per operator against oracle.ExpectHanded. A restore running into a known Flink issue is not
// checked (its consequences are reported already). One violation per vertex at most.
func (w *World) checkHanded(step int, cp *model.CompletedCheckpoint, a *model.Assignment, vertices []int, maxPar func(v int) int) {
	if w.known != "" || cp == nil || a == nil {
		return
	}
	nvs := make([]oracle.NewVertex, len(vertices))
	for k, v := range vertices {
		nvs[k] = w.newVertex(v, maxPar(v))
	}
	_, want := w.expectHanded(cp, nvs)
	w.handedMemo = nil
	seen := handedLists{lists: map[handedList]handedSplit{}}
	for k, v := range vertices {
		va := a.Vertices[k]
		for i := range nvs[k].Parallelism {
			var ops []model.OperatorRestore
			if i < len(va.Subtasks) && va.Subtasks[i] != nil {
				ops = va.Subtasks[i].Operators
			}
			if !seen.matches(want[k][i], ops) {
				got := map[string]*oracle.Handed{}
				for _, op := range ops {
					if h := describedHanded(&op.State); !h.Empty() {
						got[op.OperatorID.String()] = &h
					}
				}
				w.violate(step, InvHanded, fmt.Sprintf("%s subtask %d was handed other state than the oracle's assignment of checkpoint %d", VertexName(v), i, cp.CheckpointID),
					diffLines(oracle.DescribeHanded(want[k][i]), oracle.DescribeHanded(got)))
				break
			}
		}
	}
}

// handedMemo is oracle.ExpectHanded of a restore of cp into vertices: the plan check of a
// restore from a pointer and the check of what it handed ask alike (checkHanded and startFrom
// forget it).
type handedMemo struct {
	cp       *model.CompletedCheckpoint
	vertices []oracle.NewVertex
	stored   []oracle.StoredOperator
	handed   [][]map[string]*oracle.Handed
}

// expectHanded is the oracle's handed state of a restore of cp into vertices, and cp's operator
// states as plain values.
func (w *World) expectHanded(cp *model.CompletedCheckpoint, vertices []oracle.NewVertex) ([]oracle.StoredOperator, [][]map[string]*oracle.Handed) {
	if m := w.handedMemo; m != nil && m.cp == cp && slices.EqualFunc(m.vertices, vertices, sameNewVertex) {
		return m.stored, m.handed
	}
	stored := plainStored(cp.Operators)
	handed := oracle.ExpectHanded(w.plan.Version != model.Flink1101, stored, vertices)
	w.handedMemo = &handedMemo{cp, vertices, stored, handed}
	return stored, handed
}

func sameNewVertex(a, b oracle.NewVertex) bool {
	return a.Parallelism == b.Parallelism && a.MaxParallelism == b.MaxParallelism && slices.Equal(a.Operators, b.Operators)
}

// handedLists memoizes what operatorMatches finds of one list of operator-state handles: the
// assignment hands subtasks whose handles come out equal one shared list (UNION state: every
// new subtask gets every old subtask's handles), so checking P subtasks costs P, not P².
// Lists that are not shared still hold the UNION entries mostly at the same positions as the
// list checked before them (a subtask's own handle moves within its HashMap bin): guesses
// remembers, per union set, the entry found at each position of the last list, so that most
// lookups compare one entry instead of hashing two strings.
type handedLists struct {
	lists   map[handedList]handedSplit
	guesses map[*oracle.UnionSet][]int
}

type handedList struct {
	first *model.OperatorStateHandle
	n     int
	union *oracle.UnionSet
	order *oracle.Order
}

// handedSplit is a list's entries not of mode UNION, sorted, and whether its UNION entries are
// exactly the union set's, each once.
type handedSplit struct {
	rest      []oracle.Entry
	unionSame bool
}

// matches reports whether the operators' states a subtask was handed are want's (generated ID →
// state; operators handed nothing left out).
func (m *handedLists) matches(want map[string]*oracle.Handed, ops []model.OperatorRestore) bool {
	n := 0
	for _, op := range ops {
		st := &op.State
		if handedNothing(st) {
			continue
		}
		h, ok := want[op.OperatorID.String()]
		if !ok {
			return false
		}
		n++
		if !sameKeyedPlain(h.ManagedKeyed, st.ManagedKeyedState) || !sameKeyedPlain(h.RawKeyed, st.RawKeyedState) ||
			!m.operatorMatches(h.ManagedOperator, h.ManagedUnion, h.ManagedOrder, st.ManagedOperatorState) ||
			!m.operatorMatches(h.RawOperator, h.RawUnion, h.RawOrder, st.RawOperatorState) {
			return false
		}
	}
	return n == len(want)
}

// sameKeyedPlain is oracle.SameKeyed(want, plainKeyed(got)) without making plainKeyed(got).
func sameKeyedPlain(want []oracle.KeyedHandle, got []model.KeyedStateHandle) bool {
	k := 0
	for _, h := range got {
		if h == nil {
			continue // (plainKeyed leaves it out)
		}
		if k == len(want) {
			return false
		}
		w := &want[k]
		k++
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
			r := h.Offsets.Range
			if w.Incremental || w.Stream != h.Delegate.Path || w.Start != r.Start || w.End != r.End || w.Checkpoint != 0 ||
				!slices.Equal(w.Offsets, h.Offsets.Offsets) || len(w.Shared) != 0 {
				return false
			}
		case *model.IncrementalKeyedStateHandle:
			if !w.Incremental || w.Stream != h.BackendID || w.Start != h.Range.Start || w.End != h.Range.End ||
				w.Checkpoint != h.CheckpointID || len(w.Offsets) != 0 || len(w.Shared) != len(h.Shared) {
				return false
			}
			for i, f := range h.Shared {
				if w.Shared[i] != f.Handle.Path {
					return false
				}
			}
		default:
			if !oracle.SameKeyed(want[k-1:k], plainKeyed([]model.KeyedStateHandle{h})) {
				return false
			}
		}
	}
	return k == len(want)
}

// operatorMatches reports whether handles hold exactly the entries want (sorted, not UNION) and
// union (UNION), each once, in the order (of handles, and of names in each) Flink hands them.
func (m *handedLists) operatorMatches(want []oracle.Entry, union *oracle.UnionSet, order *oracle.Order, hs []model.OperatorStateHandle) bool {
	var key handedList
	if len(hs) > 0 {
		key = handedList{&hs[0], len(hs), union, order}
		if s, ok := m.lists[key]; ok {
			return s.unionSame && oracle.SameEntries(want, s.rest)
		}
	}
	s := m.split(union, hs)
	s.unionSame = s.unionSame && inOrder(order, hs)
	if key.first != nil {
		m.lists[key] = s
	}
	return s.unionSame && oracle.SameEntries(want, s.rest)
}

// split splits hs into its entries not of mode UNION and whether its UNION entries are exactly
// union's, each once (handedSplit).
func (m *handedLists) split(union *oracle.UnionSet, hs []model.OperatorStateHandle) handedSplit {
	var rest []oracle.Entry
	seen := make([]bool, union.Len())
	guess := m.guesses[union] // (the entry at each position of the last list)
	n, next := 0, 0
	for _, h := range hs {
		for k := range h.States {
			ns := &h.States[k]
			if ns.Mode != model.Union {
				rest = append(rest, oracle.Entry{Stream: h.Delegate.Path, State: &oracle.NamedList{Name: ns.Name, Mode: plainMode(ns.Mode), Offsets: ns.Offsets}})
				continue
			}
			i, x, ok := -1, (*oracle.NamedList)(nil), false
			if n < len(guess) {
				i = guess[n]
				x, ok = union.Match(i, h.Delegate.Path, ns.Name)
			}
			if !ok {
				i, x, ok = union.LookupAt(next, h.Delegate.Path, ns.Name)
			}
			if !ok || seen[i] || !slices.Equal(x.Offsets, ns.Offsets) {
				return handedSplit{}
			}
			seen[i] = true
			if n < len(guess) {
				guess[n] = i
			} else {
				guess = append(guess, i)
			}
			n, next = n+1, i+1
		}
	}
	if union != nil {
		if m.guesses == nil {
			m.guesses = map[*oracle.UnionSet][]int{}
		}
		m.guesses[union] = guess
	}
	slices.SortFunc(rest, oracle.CompareEntries)
	return handedSplit{rest: rest, unionSame: n == union.Len()}
}

// inOrder reports whether hs come in order: its handles (those with names) by stream, each
// handle's names in turn (no order, or one the oracle cannot tell: true).
func inOrder(order *oracle.Order, hs []model.OperatorStateHandle) bool {
	if order == nil || order.Unknown {
		return true
	}
	i := 0 // (the next of hs)
	for _, want := range order.All() {
		for i < len(hs) && len(hs[i].States) == 0 {
			i++
		}
		if i == len(hs) {
			return false
		}
		h := &hs[i]
		if want.Stream != h.Delegate.Path || len(want.Names) != len(h.States) {
			return false
		}
		for j, n := range want.Names {
			if h.States[j].Name != n {
				return false
			}
		}
		i++
	}
	for i < len(hs) && len(hs[i].States) == 0 {
		i++
	}
	return i == len(hs)
}

// describedHanded is st as handed, for a diff (every entry listed with the others).
func describedHanded(st *model.OperatorSubtaskState) oracle.Handed {
	p := new(plainer).subtask(st)
	return oracle.Handed{ManagedKeyed: p.ManagedKeyed, RawKeyed: p.RawKeyed,
		ManagedOperator: oracle.Flatten(p.ManagedOperator), RawOperator: oracle.Flatten(p.RawOperator),
		ManagedOrder: oracle.OrderOf(p.ManagedOperator), RawOrder: oracle.OrderOf(p.RawOperator)}
}

// handedNothing reports whether st holds no keyed handle and no named operator state.
func handedNothing(st *model.OperatorSubtaskState) bool {
	for _, hs := range [][]model.KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
		for _, h := range hs {
			if h != nil {
				return false
			}
		}
	}
	for _, hs := range [][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
		for _, h := range hs {
			if len(h.States) > 0 {
				return false
			}
		}
	}
	return true
}
