package differential

import (
	"regexp"
	"strings"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
)

// flinkKinds tells the project's check of a refusal by Flink's classes, which carries the top
// stack frame ("at") and Flink's message but no kind: the first row whose frame and message
// fragments both match (an empty fragment matches anything).
var flinkKinds = []struct {
	stage, at, message string
	kind               string
}{
	{"input", "", "", assigncase.KindInput},
	{"build", "ExecutionJobVertex.<init>", "", string(model.CheckVertexParallelism)},
	{"build", "", "", string(model.CheckVertexParallelism)},
	{"assign", "checkStateMappingCompleteness", "", string(model.CheckNoOperatorForState)},
	{"assign", "checkParallelismPreconditions", "is lower than the configured parallelism", string(model.CheckMaxParallelismBelowParallelism)},
	{"assign", "checkParallelismPreconditions", "has been taken and the current maximum parallelism", string(model.CheckMaxParallelismChange)},
	{"assign", "", "different maximum parallelism", string(model.CheckMaxParallelismAgreement)},
	{"assign", "", "mixed finished and unfinished operators", string(model.CheckMixedFinishedOperators)},
	{"assign", "", "Cannot rescale the given pointwise partitioner", string(model.CheckChannelStateUnsupportedRescale)},
	{"assign", "checkForUnsupportedToplogyChanges", "", string(model.CheckChannelStateTopologyChange)},
	{"assign", "", "topology changes", string(model.CheckChannelStateTopologyChange)},
	{"assign", "", "max parallelism is not in valid bounds", string(model.CheckMaxParallelismOutOfBounds)},
	{"assign", "", "raw keyed state", string(model.CheckRawKeyedWithoutManaged)},
	{"assign", "", "", string(model.CheckRestore)},
}

// hexID finds the operator ids a message names (as assigncase does for the model's).
var hexID = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

// DeriveRefusal gives a refusal of Flink's classes (with "at", without "kind" and "operators")
// the project's kind (flinkKinds) and the operator ids its message names, in order, each once.
// A refusal that has a kind already, or nil, is left as it is.
func DeriveRefusal(r *assigncase.Refusal) {
	if r == nil || r.Kind != nil {
		return
	}
	at := ""
	if r.At != nil {
		at = *r.At
	}
	for _, k := range flinkKinds {
		if k.stage == r.Stage && strings.Contains(at, k.at) && strings.Contains(r.Message, k.message) {
			kind := k.kind
			r.Kind = &kind
			break
		}
	}
	if r.Kind == nil {
		kind := "unknown " + r.Stage + " refusal at " + at
		r.Kind = &kind
	}
	ops := []string{}
	for _, id := range hexID.FindAllString(r.Message, -1) {
		if !contains(ops, id) {
			ops = append(ops, id)
		}
	}
	r.Operators = &ops
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
