package savepoint

import (
	"bufio"
	"fmt"
	"io"

	"github.com/restoresim/restoresim/model"
)

// SubtaskRead is what one new subtask of an operator reads when sp is restored at parallelism
// To (SubtaskPlan.BytesRead): a row of `simulate moved --from-savepoint`.
type SubtaskRead struct {
	To         int
	OperatorID string
	Subtask    int
	BytesRead  int64
}

// ReadsAt plans the restore of sp into every operator at each parallelism of tos (Flink
// version v) and gives, per target, per operator whose restore reads bytes and per new
// subtask, the bytes read; on a rescale every new subtask reads from checkpoint storage, not
// only those whose key groups change owner. A target at which Flink refuses the restore is a
// *RefusedError (a valid question, answered "refused"); other errors are bad input.
func ReadsAt(sp *Savepoint, v model.FlinkVersion, tos []int) ([]SubtaskRead, error) {
	var out []SubtaskRead
	for _, q := range tos {
		pl, err := PlanRestore(sp, Options{Flink: v, Parallelism: q})
		if err != nil {
			return nil, err
		}
		if !pl.Restorable {
			return nil, &RefusedError{Parallelism: q, Refusal: pl.Refusal}
		}
		for _, o := range pl.Operators {
			if o.BytesRead == 0 {
				continue
			}
			for _, s := range o.Subtasks {
				out = append(out, SubtaskRead{To: q, OperatorID: o.OperatorID, Subtask: s.Index, BytesRead: s.BytesRead})
			}
		}
	}
	return out, nil
}

// RefusedError is ReadsAt's error for a target parallelism at which Flink refuses the restore.
type RefusedError struct {
	Parallelism int
	Refusal     *model.RefusalError // the plan's first refusal
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("at parallelism %d the restore is refused: %v (simulate plan says what would work)", e.Parallelism, e.Refusal)
}

// WriteReadsCSV writes rows as CSV under the header to,operator_id,subtask,bytes_read.
func WriteReadsCSV(w io.Writer, rows []SubtaskRead) error {
	b := bufio.NewWriter(w)
	b.WriteString("to,operator_id,subtask,bytes_read\n")
	for _, r := range rows {
		fmt.Fprintf(b, "%d,%s,%d,%d\n", r.To, r.OperatorID, r.Subtask, r.BytesRead)
	}
	return b.Flush()
}
