package savepoint_test

import (
	"fmt"
	"os"
	"sort"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// Plans the restore of a real Flink 1.18 savepoint (a Kafka source at parallelism 3 whose
// reader holds 10 splits) at parallelism 2: the splits are dealt round robin over the new
// subtasks, named as [old subtask:index into its offsets].
func ExamplePlanRestore() {
	// The file system's root serves the "file" scheme: "/kafka-enum1.metadata" is the file
	// kafka-enum1.metadata of this directory.
	fsys := os.DirFS("../../../shared/flink-metadata/real")
	sp, err := savepoint.Open(fsys, "/kafka-enum1.metadata", "kafka-enum1.metadata")
	if err != nil {
		panic(err)
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: model.Flink118, Parallelism: 2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("format version %d, checkpoint %d (%s), restorable %v\n", pl.FormatVersion, pl.CheckpointID, sp.Pointer, pl.Restorable)
	for _, op := range pl.Operators {
		fmt.Printf("operator %s: parallelism %d -> %d, max parallelism %d, %d state bytes\n",
			op.OperatorID, op.OldParallelism, op.Parallelism, op.NewMaxParallelism, op.StateBytes)
		for _, s := range op.Subtasks {
			names := make([]string, 0, len(s.ManagedOperatorState))
			for n := range s.ManagedOperatorState {
				names = append(names, n)
			}
			sort.Strings(names)
			fmt.Printf("  subtask %d: key groups %d..%d\n", s.Index, s.KeyGroups[0], s.KeyGroups[1])
			for _, n := range names {
				st := s.ManagedOperatorState[n]
				fmt.Printf("    %s %s: %v, %d bytes\n", n, st.Mode, st.Pairs, st.Bytes)
			}
		}
	}
	// Output:
	// format version 4, checkpoint 1 (file:/), restorable true
	// operator 7d246211b2be972287522fe7978b38c1: parallelism 3 -> 2, max parallelism 128, 0 state bytes
	//   subtask 0: key groups 0..63
	//   subtask 1: key groups 64..127
	// operator cb16aa5adb311e8ac72482def19accbe: parallelism 3 -> 2, max parallelism 128, 1215 state bytes
	//   subtask 0: key groups 0..63
	//     SourceReaderState SPLIT_DISTRIBUTE: [[0 0] [0 1] [0 2] [1 0] [1 1]], 195 bytes
	//   subtask 1: key groups 64..127
	//     SourceReaderState SPLIT_DISTRIBUTE: [[1 2] [1 3] [2 0] [2 1] [2 2]], 195 bytes
}
