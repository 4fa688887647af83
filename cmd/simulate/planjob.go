package main

import (
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
	jf, err := decodeJobFile(name, data)
	if err != nil {
		return nil, err
	}
	return jf.Validate(defaultParallelism)
}
