package autoscaler_test

import (
	"fmt"

	"github.com/restoresim/restoresim/model/autoscaler"
)

// The same vertex (max parallelism 128, parallelism 10, vertex.max-parallelism 100) asked for 70
// subtasks, under four operator releases.
func ExampleScale() {
	for _, r := range []autoscaler.Release{autoscaler.Operator19, autoscaler.Operator114, autoscaler.Operator115, autoscaler.OperatorMain} {
		p := autoscaler.Params{Release: r, MaxParallelism: 128, Current: 10, Input: autoscaler.Hash,
			Lower: autoscaler.DefaultLower, Upper: 100}
		d, err := autoscaler.Scale(p, 70)
		if err != nil {
			panic(err)
		}
		fmt.Printf("operator %-4s %-13s → %d (aligned %v, limited %v, skew %.4f)\n", r, p.EffectiveMode(), d.Parallelism, d.Aligned, d.Limited, d.Skew)
	}
	// Output:
	// operator 1.9  -             → 70 (aligned false, limited false, skew 1.0938)
	// operator 1.14 EVENLY_SPREAD → 64 (aligned false, limited true, skew 1.0000)
	// operator 1.15 EVENLY_SPREAD → 64 (aligned false, limited true, skew 1.0000)
	// operator main BALANCED      → 70 (aligned false, limited false, skew 1.0938)
}
