package savepoint

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// WriteText writes the plan's text form, what `simulate plan` prints: a line naming the file,
// the Flink version and the target, the verdict ("restore: OK" or "restore: REFUSED" with the
// first refusal's check and operator), the largest restorable --parallelism when a task follows
// it, then per operator (metadata order) its parallelism, task and bytes, and per new subtask
// its key groups, the keyed handles it receives and its operator-state entries (as
// [old subtask:index] pairs, the middle of long lists elided), and last the new operators that
// start empty. Operator-state names print sorted. The text is built in memory and written with
// one Write, whose error it returns.
func (pl *RestorePlan) WriteText(out io.Writer) error {
	w := &bytes.Buffer{}
	target := "the --job"
	if pl.NewParallelism != nil {
		target = fmt.Sprintf("parallelism %d", *pl.NewParallelism)
		if pl.Job {
			target = fmt.Sprintf("the --job (default parallelism %d)", *pl.NewParallelism)
		}
	}
	switch {
	case pl.KeepParallelism && pl.Job:
		target += ", old parallelisms kept (--keep-parallelism)"
	case pl.KeepParallelism:
		target = "the old parallelisms (--keep-parallelism)"
	}
	set, single, follow := 0, 0, false
	for _, v := range pl.Vertices {
		set += b2i(v.ParallelismSource == SourceVertex)
		single += b2i(v.ParallelismSource == SourceNonParallel)
		follow = follow || v.ParallelismSource == SourceDefault
	}
	if set > 0 {
		target += fmt.Sprintf(", %d %s set by --vertex", set, planNoun(set, "task", "tasks"))
	}
	if single > 0 {
		target += fmt.Sprintf(", %d non-parallel %s at 1 (max parallelism 1)", single, planNoun(single, "task", "tasks"))
	}
	fmt.Fprintf(w, "%s: format version %d, checkpoint %d; Flink %s restore into %s\n", pl.Path, pl.FormatVersion, pl.CheckpointID, pl.Flink, target)
	if pl.Restorable {
		if pl.DroppedOperators > 0 {
			fmt.Fprintf(w, "restore: OK, DROPPING the state of %d %s (%d bytes) (--allow-non-restored-state)\n", pl.DroppedOperators, planNoun(pl.DroppedOperators, "operator", "operators"), pl.DroppedStateBytes)
		} else {
			fmt.Fprintln(w, "restore: OK")
		}
	} else {
		op := ""
		if pl.OperatorID != nil {
			op = ", operator " + *pl.OperatorID
		}
		fmt.Fprintf(w, "restore: REFUSED (check %s%s): %s\n", *pl.Check, op, *pl.Error)
		if pl.DroppedOperators > 0 {
			fmt.Fprintf(w, "restore also DROPS the state of %d %s (%d bytes) (--allow-non-restored-state)\n", pl.DroppedOperators, planNoun(pl.DroppedOperators, "operator", "operators"), pl.DroppedStateBytes)
		}
	}
	if follow {
		if m := pl.MaxRestorableParallelism; m != nil {
			fmt.Fprintf(w, "max restorable parallelism: %d (the largest --parallelism at which the whole restore succeeds)\n", *m)
		} else {
			fmt.Fprintln(w, "max restorable parallelism: none (no --parallelism makes the whole restore succeed)")
		}
	}
	for _, o := range pl.Operators {
		fmt.Fprintf(w, "operator %s", o.OperatorID)
		if o.Name != "" {
			fmt.Fprintf(w, " %q", o.Name)
		}
		if o.UID != "" {
			fmt.Fprintf(w, " uid %q", o.UID)
		}
		switch o.Status {
		case "refused":
			fmt.Fprintf(w, ": parallelism %d, max parallelism %d: REFUSED (check %s): %s\n", o.OldParallelism, o.MaxParallelism, *o.Check, *o.Error)
		case "dropped":
			fmt.Fprintf(w, ": parallelism %d, max parallelism %d: dropped\n", o.OldParallelism, o.MaxParallelism)
		default:
			fmt.Fprintf(w, ": parallelism %d -> %d", o.OldParallelism, o.Parallelism)
			switch o.ParallelismSource {
			case SourceKeep:
				fmt.Fprint(w, " (kept)")
			case SourceVertex:
				fmt.Fprint(w, " (--vertex)")
			case SourceNonParallel:
				fmt.Fprint(w, " (non-parallel)")
			}
			fmt.Fprintf(w, ", max parallelism %d", o.MaxParallelism)
			if o.NewMaxParallelism != o.MaxParallelism {
				fmt.Fprintf(w, " (task runs with %d)", o.NewMaxParallelism)
			}
			fmt.Fprintf(w, ", task %q, %d state bytes\n", *o.Vertex, o.StateBytes)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if o.Status == "refused" {
			m := "none"
			if o.MaxRestorableParallelism != nil {
				m = strconv.Itoa(*o.MaxRestorableParallelism)
			}
			fmt.Fprintf(w, "  max restorable parallelism: %s; fix: %s\n", m, o.Fix)
		}
		if o.DroppedStateBytes > 0 {
			fmt.Fprintf(w, "  DROPPED: %d state bytes\n", o.DroppedStateBytes)
		}
		writeBytesRead(w, &o)
		for _, s := range o.Subtasks {
			fmt.Fprintf(w, "  subtask %d: key groups %d..%d", s.Index, s.KeyGroups[0], s.KeyGroups[1])
			switch {
			case s.Finished:
				fmt.Fprintln(w, ", finished on restore")
				continue
			case !s.RestoreObject:
				fmt.Fprintln(w, ", no restore object")
				continue
			}
			kb := s.KeyedBytes()
			fmt.Fprintf(w, ", keyed state %d bytes, operator state %d entries, %d bytes\n", kb, s.OperatorStateEntries(), s.ReceivedBytes-kb)
			for _, kind := range []struct {
				name string
				l    []KeyedPart
			}{{"managed keyed", s.ManagedKeyedState}, {"raw keyed", s.RawKeyedState}} {
				for _, h := range kind.l {
					fmt.Fprintf(w, "    %s: old subtask %d key groups %d..%d (%s), %d bytes\n", kind.name, h.OldSubtask, h.Start, h.End, h.Handle, h.Bytes)
				}
			}
			for _, kind := range []struct {
				name string
				m    map[string]*OperatorStatePart
			}{{"managed", s.ManagedOperatorState}, {"raw", s.RawOperatorState}} {
				names := make([]string, 0, len(kind.m))
				for n := range kind.m {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					st := kind.m[n]
					fmt.Fprintf(w, "    %s %q %s: %d entries %s, %d bytes\n", kind.name, n, st.Mode, len(st.Pairs), pairsText(st.Pairs), st.Bytes)
				}
			}
			writeChannels(w, "input channels", "gate", s.InputChannelState, s.InputRescaling)
			writeChannels(w, "result subpartitions", "partition", s.ResultSubpartitionState, s.OutputRescaling)
		}
	}
	for _, n := range pl.NewOps {
		fmt.Fprintf(w, "new operator %s", n.OperatorID)
		if n.Label != "" {
			fmt.Fprintf(w, " (%s)", n.Label)
		}
		fmt.Fprintf(w, " in task %q: no state, starts empty\n", n.Vertex)
	}
	_, err := out.Write(w.Bytes())
	return err
}

// writeChannels prints a subtask's in-flight channel handles of one side (nothing when it has
// none and no rescaling descriptor): per gate or partition the old subtasks read, the handle
// count and bytes, and the descriptor's old subtasks and ambiguous ones.
func writeChannels(w io.Writer, what, unit string, parts []ChannelPart, d *model.InflightDataRescalingDescriptor) {
	if len(parts) == 0 && d == nil {
		return
	}
	type agg struct {
		old   []int
		n     int
		bytes int64
	}
	var keys []int
	by := map[int]*agg{}
	for _, p := range parts {
		a := by[p.GateOrPartition]
		if a == nil {
			a = &agg{}
			by[p.GateOrPartition] = a
			keys = append(keys, p.GateOrPartition)
		}
		if !slices.Contains(a.old, p.OldSubtask) {
			a.old = append(a.old, p.OldSubtask)
		}
		a.n++
		a.bytes += p.Bytes
	}
	sort.Ints(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("; ")
		}
		a := by[k]
		sort.Ints(a.old)
		fmt.Fprintf(&b, "%s %d: %d %s from old subtasks %s, %d bytes", unit, k, a.n, planNoun(a.n, "handle", "handles"), intsText(a.old), a.bytes)
	}
	if len(keys) == 0 {
		b.WriteString("none")
	}
	fmt.Fprintf(w, "    %s: %s\n", what, b.String())
	if d == nil {
		return
	}
	for g, gd := range d.GatesOrPartitions {
		switch {
		case gd.NoState:
			fmt.Fprintf(w, "      rescaling %s %d: no state\n", unit, g)
		default:
			fmt.Fprintf(w, "      rescaling %s %d: %s, old subtasks %s, ambiguous %s, channels %s\n", unit, g, gd.MappingType, intsText(gd.OldSubtaskIndexes),
				intsText(gd.AmbiguousSubtaskIndexes), gd.RescaledChannelsMappings)
		}
	}
}

// intsText prints xs as [a b c].
func intsText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// planNoun is one when n is 1, else many.
func planNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pairsText prints pairs as [old:idx ...], eliding the middle of long lists.
func pairsText(pairs [][2]int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, p := range pairs {
		if len(pairs) > 12 && i == 6 {
			fmt.Fprintf(&b, " ... (%d more)", len(pairs)-12)
		}
		if len(pairs) > 12 && i >= 6 && i < len(pairs)-6 {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", p[0], p[1])
	}
	b.WriteByte(']')
	return b.String()
}

// writeBytesRead says what the operator's restore reads (OperatorPlan.BytesRead and the
// coordinator state), with the range over the subtasks and the UNION share spelled out; nothing
// when it reads nothing.
func writeBytesRead(w io.Writer, o *OperatorPlan) {
	if o.BytesRead+o.CoordinatorStateBytes == 0 || o.ReadAmplification == nil {
		return
	}
	lo, hi := int64(-1), int64(0)
	for _, s := range o.Subtasks {
		if lo < 0 || s.BytesRead < lo {
			lo = s.BytesRead
		}
		hi = max(hi, s.BytesRead)
	}
	fmt.Fprintf(w, "  bytes read: %d by %d %s (%d..%d each)", o.BytesRead, len(o.Subtasks), planNoun(len(o.Subtasks), "subtask", "subtasks"), max(lo, 0), hi)
	if o.CoordinatorStateBytes > 0 {
		fmt.Fprintf(w, " + %d coordinator state (on the JobManager)", o.CoordinatorStateBytes)
	}
	fmt.Fprintf(w, ", read amplification %.2fx\n", *o.ReadAmplification)
	if u := o.unionPerSubtask(); u > 0 {
		fmt.Fprintf(w, "  UNION state: each of the %d subtasks reads all %d bytes of UNION entries, %d x %d = %d bytes\n", len(o.Subtasks), u, u, len(o.Subtasks), u*int64(len(o.Subtasks)))
	}
}

// unionPerSubtask is the bytes of UNION entries the first restored subtask receives (every
// subtask receives the same).
func (o *OperatorPlan) unionPerSubtask() int64 {
	for _, s := range o.Subtasks {
		var n int64
		for _, m := range []map[string]*OperatorStatePart{s.ManagedOperatorState, s.RawOperatorState} {
			for _, st := range m {
				if st.Mode == model.Union.String() {
					n += st.Bytes
				}
			}
		}
		if n > 0 || s.RestoreObject {
			return n
		}
	}
	return 0
}
