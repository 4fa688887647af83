//go:build !mutants

package properties

import (
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestNormalBuildIgnoresMutants: without the build tag mutants, RESTORESIM_MUTANT has no effect.
func TestNormalBuildIgnoresMutants(t *testing.T) {
	t.Setenv("RESTORESIM_MUTANT", "range-floor")
	r, err := model.ComputeKeyGroupRangeForOperatorIndex(10, 3, 1)
	if err != nil || r.Start != 4 || r.End != 6 {
		t.Errorf("ComputeKeyGroupRangeForOperatorIndex(10, 3, 1) = %v, %v with RESTORESIM_MUTANT set in the normal build, want [4, 6]", r, err)
	}
	if !(model.KeyGroupRange{Start: 0, End: 3}).Contains(3) {
		t.Error("KeyGroupRange.Contains(End) is false in the normal build")
	}
}
