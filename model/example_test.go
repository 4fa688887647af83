package model_test

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

func ExampleComputeKeyGroupRangeForOperatorIndex() {
	for i := range 3 {
		r, _ := model.ComputeKeyGroupRangeForOperatorIndex(128, 3, i)
		fmt.Printf("[%d,%d] ", r.Start, r.End)
	}
	fmt.Println()
	// Output: [0,42] [43,85] [86,127]
}

func ExampleAssignKeyToParallelOperator() {
	// A String key "hello" with max parallelism 128 and parallelism 7.
	h := model.JavaStringHash("hello")
	fmt.Println(h, model.ComputeKeyGroupForKeyHash(h, 128), model.AssignKeyToParallelOperator(h, 128, 7))
	// Output: 99162322 35 1
}

func ExampleComputeDefaultMaxParallelism() {
	for _, p := range []int{1, 86, 1000, 40000} {
		m, err := model.ComputeDefaultMaxParallelism(p)
		fmt.Println(p, m, err)
	}
	// Output:
	// 1 128 <nil>
	// 86 256 <nil>
	// 1000 2048 <nil>
	// 40000 0 Operator parallelism not within bounds: 40000
}

func ExampleKeyGroupRange_Intersection() {
	a := model.KeyGroupRange{Start: 0, End: 10}
	fmt.Println(a.Intersection(model.KeyGroupRange{Start: 3, End: 7}))
	fmt.Println(a.Intersection(model.KeyGroupRange{Start: 11, End: 20}).NumberOfKeyGroups())
	// Output:
	// KeyGroupRange{startKeyGroup=3, endKeyGroup=7}
	// 0
}

func ExampleJavaLongHash() {
	// 1L and 4294967296L collide, as in Java.
	fmt.Println(model.JavaLongHash(1), model.JavaLongHash(4294967296), model.JavaLongHash(-1))
	// Output: 1 1 0
}

func ExampleKeyGroupBytes() {
	// A handle of key groups 0..3 in a 40-byte stream: key groups 1 and 3 hold no data (offset
	// 0), key group 0 runs to key group 2's offset, key group 2 to the end of the stream.
	fmt.Println(model.KeyGroupBytes([]int64{5, 0, 12, 0}, 40))
	// Output: [7 0 28 0]
}
