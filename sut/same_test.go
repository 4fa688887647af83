package sut

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// fullAnswers is Flink's classes as the system under test, each restore's assignment also asked
// with no expected answer (reference.JVM.Assign: Flink's full answer line, read as Flink's);
// differs lists the restores whose two assignments differ.
type fullAnswers struct {
	r                 *Reference
	restores, refused int
	differs           []string
}

func (f *fullAnswers) Name() string { return f.r.Name() }

func (f *fullAnswers) Assign(in model.AssignmentInput) sim.Assigned {
	got := f.r.Assign(in)
	f.restores++
	if got.Err != nil {
		f.refused++
	}
	want, err := f.full(in)
	if err != nil {
		f.differs = append(f.differs, err.Error())
		return got
	}
	if !reflect.DeepEqual(got.Assignment, want.Assignment) || fmt.Sprint(got.Err) != fmt.Sprint(want.Err) || got.Difference != want.Difference {
		f.differs = append(f.differs, fmt.Sprintf("checkpoint %d: %v / %v", in.CheckpointID, got.Err, want.Err))
	}
	return got
}

func (f *fullAnswers) full(in model.AssignmentInput) (sim.Assigned, error) {
	ma, _ := model.AssignStates(in)
	c, err := assigncase.FromInput(in)
	if err != nil {
		return sim.Assigned{}, err
	}
	line, err := json.Marshal(c)
	if err != nil {
		return sim.Assigned{}, err
	}
	j, err := f.r.take()
	if err != nil {
		return sim.Assigned{}, err
	}
	defer f.r.give(j)
	raw, err := j.Assign(line)
	if err != nil {
		return sim.Assigned{}, err
	}
	a, err := assigncase.ReadAnswer(raw)
	if err != nil {
		return sim.Assigned{}, err
	}
	var out sim.Assigned
	out.Assignment, out.Err = a.Assignment(in)
	if out.Err == nil {
		withHazards(out.Assignment, ma)
	}
	return out, nil
}

// TestAssignSame: with Flink's classes as the system under test, each restore's assignment is
// the one read from Flink's full answer line, though most answers come back as "the model's
// line" (reference.JVM.AssignSame), and those that do not (refusals, whose lines never agree)
// are read from Flink's.
func TestAssignSame(t *testing.T) {
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink23} {
		r := need(t, Flink, v)
		f := &fullAnswers{r: r}
		for seed := range uint64(12) {
			sim.RunSeedWith(seed, v, sim.DefaultSteps, f)
		}
		for _, d := range f.differs {
			t.Errorf("%v: %s", v, d)
		}
		if s, a := r.sames.Load(), r.assigns.Load(); s == 0 || s == a {
			t.Errorf("%v: %d of %d assignments answered with the model's line; want some, not all", v, s, a)
		} else {
			t.Logf("%v: %d restores, %d of %d assignments answered with the model's line, %d refused", v, f.restores, s, a, f.refused)
		}
	}
}
