package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

// ParseJob decodes a job description in the JSON form of `simulate plan --job` (unknown
// fields are errors) and validates it with defaultParallelism (0: none).
func ParseJob(text string, defaultParallelism int) ([]savepoint.Vertex, error) {
	var jf savepoint.JobFile
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jf); err != nil {
		return nil, fmt.Errorf("job: %v", err)
	}
	if dec.More() {
		return nil, errors.New("job: trailing data")
	}
	return jf.Validate(defaultParallelism)
}

// PlanRestore opens the checkpoint name (a _metadata file or a checkpoint directory) on fsys —
// whose root serves the file scheme, so Flink's messages name the checkpoint "file:/…" —
// plans its restore and renders the plan as scenario files record it: the verdict, then per
// operator (metadata order) its fate and state bytes (the checkpoint's, as inspect gives them)
// and, per new subtask, its key groups, the bytes it receives and what it receives ("old subtask:index" pairs per operator-state name, old subtask and key groups per
// keyed handle), then the new job's operators that start empty.
func PlanRestore(fsys fs.FS, name string, opts savepoint.Options) (string, error) {
	sp, err := savepoint.Open(fsys, "/"+strings.TrimPrefix(name, "/"), name)
	if err != nil && !(sp != nil && errors.Is(err, metadata.ErrUnsupportedVersion)) {
		return "", err
	}
	pl, err := savepoint.PlanRestore(sp, opts)
	if err != nil {
		return "", err
	}
	return FormatRestorePlan(pl), nil
}

// FormatRestorePlan renders a restore plan as PlanRestore does.
func FormatRestorePlan(pl *savepoint.RestorePlan) string {
	var b strings.Builder
	if pl.Restorable {
		b.WriteString("restore: ok\n")
	} else {
		op := ""
		if pl.OperatorID != nil {
			op = " on " + *pl.OperatorID
		}
		fmt.Fprintf(&b, "restore: refused by %s%s: %s\n", *pl.Check, op, *pl.Error)
	}
	for _, o := range pl.Operators {
		fmt.Fprintf(&b, "operator %s", o.OperatorID)
		if o.UID != "" {
			fmt.Fprintf(&b, " uid %q", o.UID)
		}
		switch o.Status {
		case "restored":
			fmt.Fprintf(&b, ": restored into %q position %d, p %d -> %d, max parallelism %d -> %d, %d state bytes\n",
				*o.Vertex, *o.ChainPosition, o.OldParallelism, o.Parallelism, o.MaxParallelism, o.NewMaxParallelism, o.StateBytes)
		case "refused":
			fmt.Fprintf(&b, ": refused by %s\n", *o.Check)
		default:
			fmt.Fprintf(&b, ": %s\n", o.Status)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
		for _, s := range o.Subtasks {
			fmt.Fprintf(&b, "  subtask %d: key groups %d..%d, %d bytes received", s.Index, s.KeyGroups[0], s.KeyGroups[1], s.ReceivedBytes)
			switch {
			case s.Finished:
				b.WriteString(", finished")
			case !s.RestoreObject:
				b.WriteString(", no restore object")
			}
			b.WriteByte('\n')
			for _, kind := range []struct {
				name string
				l    []savepoint.KeyedPart
			}{{"managed keyed", s.ManagedKeyedState}, {"raw keyed", s.RawKeyedState}} {
				for _, h := range kind.l {
					fmt.Fprintf(&b, "    %s: old %d key groups %d..%d %s, %d bytes\n", kind.name, h.OldSubtask, h.Start, h.End, h.Handle, h.Bytes)
				}
			}
			for _, kind := range []struct {
				name string
				m    map[string]*savepoint.OperatorStatePart
			}{{"managed", s.ManagedOperatorState}, {"raw", s.RawOperatorState}} {
				names := make([]string, 0, len(kind.m))
				for n := range kind.m {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					st := kind.m[n]
					var pairs bytes.Buffer
					for i, p := range st.Pairs {
						if i > 0 {
							pairs.WriteByte(' ')
						}
						fmt.Fprintf(&pairs, "%d:%d", p[0], p[1])
					}
					fmt.Fprintf(&b, "    %s %q %s: [%s], %d bytes\n", kind.name, n, st.Mode, pairs.String(), st.Bytes)
				}
			}
			for _, kind := range []struct {
				name  string
				parts []savepoint.ChannelPart
				d     *model.InflightDataRescalingDescriptor
			}{{"input channels", s.InputChannelState, s.InputRescaling}, {"result subpartitions", s.ResultSubpartitionState, s.OutputRescaling}} {
				if len(kind.parts) == 0 && kind.d == nil {
					continue
				}
				var old []int
				var n int64
				for _, c := range kind.parts {
					if !slices.Contains(old, c.OldSubtask) {
						old = append(old, c.OldSubtask)
					}
					n += c.Bytes
				}
				slices.Sort(old)
				fmt.Fprintf(&b, "    %s: %d handles of old %v, %d bytes; %v\n", kind.name, len(kind.parts), old, n, kind.d)
			}
		}
	}
	for _, n := range pl.NewOps {
		fmt.Fprintf(&b, "new operator %s", n.OperatorID)
		if n.Label != "" {
			fmt.Fprintf(&b, " (%s)", n.Label)
		}
		fmt.Fprintf(&b, " in %q: starts empty\n", n.Vertex)
	}
	return b.String()
}
