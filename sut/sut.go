// Package sut provides the simulator's systems under test other than the model: Flink's own
// classes, run by the reference (one JVM per worker and version, a case one JSON line each
// way), and both at once. Each is a sim.Assigner: the world hands it every restore's
// assignment (assigncase.FromInput → the JVM → assigncase.Answer.Assignment) and goes on with
// what Flink handed each subtask, or with Flink's refusal; the oracle judges it unchanged.
//
// It is apart from package sim, which stays free of processes, goroutines and I/O.
package sut

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
	"github.com/restoresim/restoresim/sim"
)

// Names of the systems under test, as --sut takes them.
const (
	Model = "model"
	Flink = "flink"
	Both  = "both"
)

// Names lists the --sut values.
func Names() []string { return []string{Model, Flink, Both} }

// Options configure New.
type Options struct {
	// FlinkSrc is the Flink source tree to compile ("" = the version's archive, or
	// $RESTORESIM_FLINK_SRC).
	FlinkSrc string
	// CacheDir holds the reference's builds ("" = its default).
	CacheDir string
	// Workers bounds the JVMs started for a version: one per worker that asks at once.
	Workers int
	// Mutant names the injected Flink bug (reference/mutants) FlinkSrc holds, for the replay
	// commands ("" = none).
	Mutant string
}

// New returns the system under test name for version v: nil for the model (a Plan's default),
// else an Assigner whose JVMs start on first use (Close stops them). The reference is compiled,
// or found in its cache, here, so that an unusable Flink source fails at once, in one line.
func New(name string, v model.FlinkVersion, opt Options) (*Reference, error) {
	switch name {
	case Model:
		return nil, nil
	case Flink, Both:
	default:
		return nil, fmt.Errorf("unknown system under test %q (want %s)", name, strings.Join(Names(), ", "))
	}
	src, err := reference.FindSource(v, opt.FlinkSrc)
	if err != nil {
		return nil, err
	}
	if _, err := reference.Compile(src, opt.CacheDir); err != nil {
		return nil, err
	}
	return &Reference{name: name, v: v, opt: opt, idle: make(chan *reference.JVM, max(opt.Workers, 1))}, nil
}

// caseTimeout bounds one restore's answer. The reference's default (60 s) is for a JVM that
// hangs; a sweep's largest restores (parallelism 1,000 and more, 700-way UNION state) on a
// loaded machine took longer, and each timeout restarted the JVM, whose next answers paid its
// start and warm-up again.
const caseTimeout = 10 * time.Minute

// Reference is Flink's classes as the system under test (name "flink"), or Flink's classes
// checked against the model on every restore (name "both": any difference is a violation
// sim.InvReference, and the world goes on with Flink's answer). It is safe for concurrent use:
// each call takes an idle JVM or starts one.
type Reference struct {
	name string
	v    model.FlinkVersion
	opt  Options

	// loads counts the loads and validations asked of Flink (LoadAndValidate); assigns the
	// assignments asked of Flink, sames those Flink answered with the model's answer line.
	loads, assigns, sames atomic.Int64

	idle    chan *reference.JVM
	mu      sync.Mutex
	all     []*reference.JVM
	started int
}

// Name implements sim.Assigner.
func (r *Reference) Name() string { return r.name }

// JVMs is the number of JVMs started so far.
func (r *Reference) JVMs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

func (r *Reference) take() (*reference.JVM, error) {
	select {
	case j := <-r.idle:
		return j, nil
	default:
	}
	j, err := reference.Start(r.v, reference.Options{FlinkSrc: r.opt.FlinkSrc, CacheDir: r.opt.CacheDir, Timeout: caseTimeout})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.all = append(r.all, j)
	r.started++
	r.mu.Unlock()
	return j, nil
}

func (r *Reference) give(j *reference.JVM) {
	select {
	case r.idle <- j:
	default: // more JVMs than workers: stop the spare one
		_ = j.Close()
	}
}

// Close stops every JVM.
func (r *Reference) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.all {
		_ = j.Close()
	}
	r.all = nil
	return nil
}

// Assign implements sim.Assigner: Flink's answer to the restore, as the model's Assignment or
// refusal. The known issue FLINK-40113 is a property of the input (operator states of one
// vertex that disagree on max parallelism, one with keyed state): each vertex's Hazard is the
// model's analysis of the input, its Mismatched judged against the max parallelism Flink
// adopted. A restore Flink's classes cannot be asked about (a case the format cannot carry, a
// JVM that fails) is a difference, and the world goes on with the model's answer.
func (r *Reference) Assign(in model.AssignmentInput) sim.Assigned {
	ma, merr := model.AssignStates(in)
	// The model's answer line goes with the case (its digest): when Flink's own answer line is
	// the same bytes (up to the ids Flink drew, which the world does not read), the driver says so
	// instead of sending it, and Flink's answer is the model's answer that line renders — the
	// answer Flink's line reads as, without reading it (a wide UNION state's answer is hundreds
	// of MB).
	mans := assigncase.FromAssignment(ma, merr)
	backendIDsAsInCase(mans)
	fa, ferr := r.flink(in, mans)
	if ferr != nil {
		return sim.Assigned{Assignment: ma, Err: merr,
			Difference: fmt.Sprintf("Flink %s's classes could not answer the restore of checkpoint %d: %s", r.v, in.CheckpointID, oneLine(ferr.Error()))}
	}
	out := sim.Assigned{}
	out.Assignment, out.Err = fa.Assignment(in)
	if out.Err == nil {
		withHazards(out.Assignment, ma)
	}
	if r.name == Both {
		if ds := assigncase.Compare(mans, *fa); len(ds) > 0 {
			out.Difference = differenceText(r.v, in.CheckpointID, mans, *fa, ds)
		}
	}
	return out
}

// flink asks a JVM, with the answer the caller expects (reference.JVM.AssignSame): that answer
// when Flink answers Same, else Flink's answer line read.
func (r *Reference) flink(in model.AssignmentInput, expect assigncase.Answer) (*assigncase.Answer, error) {
	c, err := assigncase.FromInput(in)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	j, err := r.take()
	if err != nil {
		return nil, err
	}
	raw, err := j.AssignSame(line, []byte(expect.String()))
	r.give(j) // (a JVM that failed restarts on its next case)
	if err != nil {
		return nil, err
	}
	r.assigns.Add(1)
	if bytes.Equal(raw, reference.Same) {
		r.sames.Add(1)
		return &expect, nil
	}
	a, err := assigncase.ReadAnswer(raw)
	if err != nil {
		return nil, fmt.Errorf("the answer of Flink's classes does not read: %v", err)
	}
	return a, nil
}

// withHazards sets each vertex's Hazard from the model's analysis m of the same input, its
// Mismatched the operators with keyed state recorded with another max parallelism than the one
// Flink's vertex runs with.
func withHazards(a, m *model.Assignment) {
	if m == nil {
		return
	}
	for i := range a.Vertices {
		if i >= len(m.Vertices) || m.Vertices[i].Hazard == nil {
			continue
		}
		h := *m.Vertices[i].Hazard
		h.Mismatched = nil
		for _, c := range h.Checked {
			if c.KeyedState && c.MaxParallelism != a.Vertices[i].MaxParallelism {
				h.Mismatched = append(h.Mismatched, c.OperatorID)
			}
		}
		a.Vertices[i].Hazard = &h
	}
}

// backendIDsAsInCase writes the model's incremental handles' backend ids as the case gave them
// to Flink (assigncase.BackendUUID).
func backendIDsAsInCase(a assigncase.Answer) {
	for i := range a.Vertices {
		for _, st := range a.Vertices[i].Subtasks {
			if st == nil {
				continue
			}
			for k := range st.Operators {
				s := &st.Operators[k].State
				for _, hs := range [2][]assigncase.KeyedHandle{s.ManagedKeyedState, s.RawKeyedState} {
					for n := range hs {
						if id := hs[n].BackendID; id != nil {
							u := assigncase.BackendUUID(*id)
							hs[n].BackendID = &u
						}
					}
				}
			}
		}
	}
}

// maxShown bounds the differences and answer bytes a violation shows.
const (
	maxShownDifferences = 20
	maxShownAnswer      = 4000
)

// differenceText is a violation's text: a first line, then the differences (path: model,
// flink) and both answers, state-handle ids left out (Flink draws some at random).
func differenceText(v model.FlinkVersion, checkpoint int64, m, f assigncase.Answer, ds []assigncase.Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the model and Flink %s's classes assign the restore of checkpoint %d differently (%d fields)\n", v, checkpoint, len(ds))
	for i, d := range ds {
		if i == maxShownDifferences {
			fmt.Fprintf(&b, "… %d more\n", len(ds)-i)
			break
		}
		b.WriteString(d.String() + "\n")
	}
	b.WriteString("model: " + shown(m) + "\n")
	b.WriteString("flink: " + shown(f))
	return b.String()
}

func shown(a assigncase.Answer) string {
	for i := range a.Vertices {
		for _, st := range a.Vertices[i].Subtasks {
			if st == nil {
				continue
			}
			for k := range st.Operators {
				s := &st.Operators[k].State
				for _, hs := range [2][]assigncase.KeyedHandle{s.ManagedKeyedState, s.RawKeyedState} {
					for n := range hs {
						hs[n].StateHandleID = nil
					}
				}
			}
		}
	}
	if a.Error != nil {
		e := *a.Error
		e.At = nil
		a.Error = &e
	}
	s := a.String()
	if len(s) > maxShownAnswer {
		s = fmt.Sprintf("%s… (%d bytes)", s[:maxShownAnswer], len(s))
	}
	return s
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Flags implements the replay commands' naming of the SUT: --sut NAME, and --flink-src DIR
// when a source tree was given.
func (r *Reference) Flags() string {
	s := "--sut " + r.name
	if r.opt.Mutant != "" {
		return s + " --flink-mutant " + shellQuote(r.opt.Mutant)
	}
	if r.opt.FlinkSrc != "" {
		s += " --flink-src " + shellQuote(r.opt.FlinkSrc)
	}
	return s
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
