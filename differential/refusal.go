package differential

import (
	"regexp"
	"sync"

	"github.com/restoresim/restoresim/assigncase"
)

// hexID finds the operator ids a message names (as assigncase does for the model's).
var hexID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-f]{32}\b`) }) // (compiled when first used, not at start-up)

// DeriveRefusal gives a refusal of Flink's classes (with "at", without "kind" and "operators")
// the project's kind (assigncase.KindOf, the one table of Flink's refusal texts) and the
// operator ids its message names, in order, each once. A refusal that has a kind already, or
// nil, is left as it is.
func DeriveRefusal(r *assigncase.Refusal) {
	if r == nil || r.Kind != nil {
		return
	}
	kind := assigncase.KindOf(r)
	r.Kind = &kind
	ops := []string{}
	for _, id := range hexID().FindAllString(r.Message, -1) {
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
