package model_test

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// A keyed edge (RANGE) rescaled from 3 to 4 subtasks: the middle new subtasks read the in-flight
// data of two old subtasks each and filter out the keys they do not own.
func ExampleSubtaskStateMapper_NewToOldSubtasksMapping() {
	m, err := model.RangeMapper.NewToOldSubtasksMapping(3, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range m.NumberOfSources() {
		fmt.Println("new subtask", i, "reads old", m.MappedIndexes(i))
	}
	fmt.Println("ambiguous:", model.RangeMapper.IsAmbiguous(), m.AmbiguousTargets())

	_, err = model.UnsupportedMapper.NewToOldSubtasksMapping(3, 4)
	fmt.Println(errors.Is(err, model.ErrUnsupportedRescale))
	// Output:
	// new subtask 0 reads old [0]
	// new subtask 1 reads old [0 1]
	// new subtask 2 reads old [1 2]
	// new subtask 3 reads old [2]
	// ambiguous: true [0 1 2]
	// true
}

// Inverting the mapping gives, per old subtask, the new subtasks that read it.
func ExampleRescaleMappings_Invert() {
	m, _ := model.RoundRobinMapper.NewToOldSubtasksMapping(5, 2)
	fmt.Println(m)
	fmt.Println(m.Invert())
	// Output:
	// RescaleMappings{mappings=[[0, 2, 4], [1, 3]]}
	// RescaleMappings{mappings=[[0], [1], [0], [1], [0]]}
}
