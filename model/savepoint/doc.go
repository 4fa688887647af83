// Package savepoint reads a real Flink checkpoint or savepoint and plans its restore: what
// Flink does when it restores the state at a new parallelism or into a described job.
//
// Open resolves a _metadata file or a checkpoint directory on an io/fs.FS as Flink resolves a
// savepoint path (model.ResolveCheckpointPointer) and decodes the metadata (package
// model/metadata); Storage.Open does the same on a file system of any scheme and authority (an
// object store's bucket, which package objstore opens), and Storage.OpenLatest opens the newest
// chk-N of a checkpoint root that has a _metadata file. Summarize gives the inspection summary: state bytes per operator, subtask
// and key group, and which Flink releases write the file's format. PlanRestore runs the
// model's restore path (LoadAndValidateCheckpoint, then AssignStates) and gives a RestorePlan:
// every operator judged, the first refusal in Flink's order (a typed *model.RefusalError with
// its check and operator), and for every new subtask the key groups, the old handles it
// receives and their bytes. A JobFile describes the new job (its decoding from YAML or JSON is
// the caller's). Options set a parallelism per task (KeepParallelism, VertexParallelism; each
// task's ParallelismSource is in RestorePlan.Vertices), and a refused plan says what would work:
// per refused operator the highest parallelism its checks accept and the fix in words, and the
// largest default parallelism at which the whole restore succeeds, each checked by running the
// restore path again. UIDs name the operators of a file that stores no uid (the operator ID is
// the hash of the uid, model.OperatorIDFromUID); ReadUIDs and UIDLine read and write the
// uid,operator_id lines of `simulate uid`, and ParseVertexSetting reads the ID=P of a task's
// parallelism. Savepoint.WriteText and RestorePlan.WriteText render the inspection tree and the
// plan as the text `simulate inspect` and `simulate plan` print.
//
// The package is pure: it reads only through the io/fs.FS it is given, and prints nothing but
// the text its WriteText methods write to the io.Writer they are given.
package savepoint
