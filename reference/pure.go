package reference

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// request sends one op and decodes its answer into out; a refusal of the driver or Flink is an
// error of one line ("<class>: <message>").
func (j *JVM) request(req map[string]any, out any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	l, err := j.call(b)
	if err != nil {
		return err
	}
	var refusal struct {
		Error *Refusal `json:"error"`
	}
	if err := json.Unmarshal(l, &refusal); err != nil {
		return fmt.Errorf("%w (Flink %s): not JSON: %.200s", ErrJVM, j.Version, l)
	}
	if refusal.Error != nil {
		refusal.Error.Version = j.Version
		refusal.Error.Message = strings.Join(strings.Fields(refusal.Error.Message), " ")
		return refusal.Error
	}
	if err := json.Unmarshal(l, out); err != nil {
		return fmt.Errorf("%w (Flink %s): %v in %.200s", ErrJVM, j.Version, err, l)
	}
	return nil
}

// KeyGroup is Flink's answer for one key: its Java hashCode, key group and subtask.
type KeyGroup struct {
	Hash          int32 `json:"hash"`
	KeyGroup      int   `json:"key_group"`
	OperatorIndex int   `json:"operator_index"`
}

// KeyGroups asks KeyGroupRangeAssignment.assignToKeyGroup and assignKeyToParallelOperator of
// keys of a Java type: "int" (int32), "long" (int64), "string", "boolean" or "double" (float64,
// sent as its bits).
func (j *JVM) KeyGroups(keyType string, keys []any, maxParallelism, parallelism int) ([]KeyGroup, error) {
	wire := make([]any, len(keys))
	for i, k := range keys {
		switch x := k.(type) {
		case int64:
			wire[i] = fmt.Sprint(x) // a JSON number would lose precision on the way
		case float64:
			wire[i] = fmt.Sprint(int64(mathFloat64bits(x)))
		default:
			wire[i] = x
		}
	}
	var out struct {
		Results []KeyGroup `json:"results"`
	}
	err := j.request(map[string]any{"op": "keygroups", "key_type": keyType, "keys": wire, "max_parallelism": maxParallelism, "parallelism": parallelism}, &out)
	if err == nil && len(out.Results) != len(keys) {
		err = fmt.Errorf("%w (Flink %s): %d answers to %d keys", ErrJVM, j.Version, len(out.Results), len(keys))
	}
	return out.Results, err
}

// Ranges asks computeKeyGroupRangeForOperatorIndex of every subtask and
// computeDefaultMaxParallelism of the parallelism.
func (j *JVM) Ranges(maxParallelism, parallelism int) (defaultMax int, ranges []model.KeyGroupRange, err error) {
	var out struct {
		Default int                   `json:"default_max_parallelism"`
		Ranges  []model.KeyGroupRange `json:"ranges"`
	}
	err = j.request(map[string]any{"op": "ranges", "max_parallelism": maxParallelism, "parallelism": parallelism}, &out)
	return out.Default, out.Ranges, err
}

// Mapping is SubtaskStateMapper's answer: for each new subtask, the old subtasks it reads.
type Mapping struct {
	Ambiguous bool    `json:"ambiguous"`
	Identity  bool    `json:"identity"`
	Mappings  [][]int `json:"mappings"`
}

// Mapper asks SubtaskStateMapper.getNewToOldSubtasksMapping.
func (j *JVM) Mapper(m model.SubtaskStateMapper, oldParallelism, newParallelism int) (Mapping, error) {
	var out Mapping
	err := j.request(map[string]any{"op": "mapper", "mapper": m.String(), "old": oldParallelism, "new": newParallelism}, &out)
	return out, err
}

func mathFloat64bits(f float64) uint64 { return math.Float64bits(f) }
