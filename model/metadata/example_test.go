package metadata_test

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// A simulator checkpoint written as a real version-4 _metadata file and read back.
func Example() {
	md := model.CheckpointMetadata{CheckpointID: 42, Operators: []model.OperatorState{{
		OperatorID: model.OperatorIDFromUID("source-uid"), Parallelism: 1, MaxParallelism: 128,
		Subtasks: []*model.OperatorSubtaskState{{ManagedOperatorState: []model.OperatorStateHandle{{
			Delegate: model.StreamHandle{Path: "chk-42/op-state", Size: 64},
			States:   []model.NamedOperatorState{{Name: "offsets", Mode: model.Union, Offsets: []int64{0, 32}}},
		}}}},
	}}}
	f, err := metadata.FromModel(md)
	if err != nil {
		panic(err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		panic(err)
	}
	back, err := metadata.Read(b)
	if err != nil {
		panic(err)
	}
	op := back.Operators[0]
	st := op.Subtasks[0].ManagedOperatorState.States[0]
	fmt.Println(len(b), "bytes, version", back.Version, "checkpoint", back.CheckpointID)
	fmt.Println(op.ID, op.Parallelism, op.MaxParallelism)
	fmt.Println(st.Name, st.ModeName(), st.Offsets)
	fmt.Println(back.Properties.TypeName, back.Properties.Sharing)
	// Output:
	// 740 bytes, version 4 checkpoint 42
	// bef22c5df1ab33dd94bb7a6ecac555fb 1 128
	// offsets UNION [0 32]
	// Checkpoint FORWARD_BACKWARD
}

// A damaged file gives one error naming the byte offset and the field.
func ExampleRead_damaged() {
	b := []byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}
	_, err := metadata.Read(b)
	fmt.Println(err)
	// Output:
	// metadata: offset 0x14 (20): numOperators: count exceeds the remaining bytes: 2147483647 elements of at least 29 bytes, 0 bytes left
}
