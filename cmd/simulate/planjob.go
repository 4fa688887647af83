package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restoresim/restoresim/model/savepoint"
)

// This file reads the --job file of 'simulate plan': a small description of the new job's
// vertices (operator chains) in YAML or JSON.

const planJobHelp = `Job file (--job FILE; YAML, or JSON when the name ends in .json or the text starts with '{'):

  vertices:                     # the new job's tasks (operator chains), in any order
    - name: source              # optional; names the task in Flink's messages (default "vertex <i>")
      parallelism: 2            # optional only when --parallelism P is given (then P, as flink run -p)
      max_parallelism: 128      # optional: omitted = Flink's default for the parallelism, NOT
                                #   configured (a restore may adopt the state's max parallelism);
                                #   given = configured (a different state max parallelism is refused)
      operators:                # the chain, head first (the operator reading the task's input)
        - uid: kafka-source-operator-uid          # .uid(...): ID = murmur3_128(uid)
        - id: 0123456789abcdef0123456789abcdef     # or the raw generated operator ID (32 hex digits)
          uid_hash: cb16aa5adb311e8ac72482def19accbe  # optional .setUidHash(...) (user-defined ID)

Each operator needs exactly one of uid and id; name is an optional label. Unknown fields,
missing or non-positive parallelism, a max_parallelism outside 1..32768 or below the
parallelism, bad hex, an empty chain and an operator ID used twice are bad input (exit 2).`

// parseJobFile decodes and validates a job file. defaultParallelism is --parallelism (0 when
// not given). The result's operators are in Flink's order (tail first).
func parseJobFile(name string, data []byte, defaultParallelism int) ([]savepoint.Vertex, error) {
	var jf savepoint.JobFile
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the job file is empty (want a 'vertices' list)")
	}
	if strings.EqualFold(filepath.Ext(name), ".json") || trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&jf); err != nil {
			return nil, fmt.Errorf("JSON: %v", err)
		}
		if dec.More() {
			return nil, errors.New("JSON: more than one value in the file")
		}
		var extra json.RawMessage
		if err := dec.Decode(&extra); err != io.EOF {
			return nil, errors.New("JSON: trailing data after the job")
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&jf); err != nil {
			return nil, fmt.Errorf("YAML: %v", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		var extra any
		if err := dec.Decode(&extra); err != io.EOF {
			return nil, errors.New("YAML: more than one document in the file")
		}
	}
	return jf.Validate(defaultParallelism)
}
