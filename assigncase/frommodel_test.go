package assigncase_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/differential"
	"github.com/restoresim/restoresim/model"
)

// TestFromInputAndBack: for generated cases (differential.Generate) at 1.18, 2.3 and master,
// the model's input written back as a case (FromInput) reads as the same input, and its answer
// read back as an Assignment (Answer.Assignment) answers the same again (FromAssignment):
// nothing of what the world reads is lost either way. A refusal keeps its check.
func TestFromInputAndBack(t *testing.T) {
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink23, model.FlinkMaster} {
		refusals := 0
		for i := range 400 {
			c, err := assigncase.DecodeCase(differential.Generate(rand.New(rand.NewPCG(7, uint64(i))), v))
			if err != nil {
				continue // (the generator draws some cases the format refuses)
			}
			in, err := c.Input(v)
			if err != nil {
				continue // refused as input, or not modelled
			}
			back, err := assigncase.FromInput(in)
			if err != nil {
				t.Fatalf("%v case %d: FromInput: %v", v, i, err)
			}
			in2, err := back.Input(v)
			if err != nil {
				t.Fatalf("%v case %d: the written case does not read: %v", v, i, err)
			}
			want := assigncase.FromAssignment(model.AssignStates(in))
			if got := assigncase.FromAssignment(model.AssignStates(in2)); got.String() != want.String() {
				t.Fatalf("%v case %d: the written case answers otherwise:\n got %s\nwant %s", v, i, got, want)
			}
			a, err := want.Assignment(in)
			if want.Error != nil {
				refusals++
				var rf *model.RefusalError
				if !errors.As(err, &rf) || string(rf.Check) != *want.Error.Kind {
					t.Fatalf("%v case %d: refusal %s read back as %v", v, i, want, err)
				}
				// Flink's answers carry no kind: KindOf finds it from the message.
				flink := *want.Error
				flink.Kind, flink.Operators = nil, nil
				if k := assigncase.KindOf(&flink); k != *want.Error.Kind {
					t.Errorf("%v case %d: KindOf(%q) = %s, want %s", v, i, flink.Message, k, *want.Error.Kind)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v case %d: Assignment: %v", v, i, err)
			}
			if got := assigncase.FromAssignment(a, nil); got.String() != want.String() {
				t.Fatalf("%v case %d: read back otherwise:\n got %s\nwant %s", v, i, got, want)
			}
		}
		if refusals == 0 {
			t.Errorf("%v: no refusal among the cases", v)
		}
	}
}
