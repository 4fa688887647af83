package main

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/internal/strictdecode"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// This file turns the text of a --job file into savepoint.JobFile. YAML and JSON are first read
// into the same tree of values with their lines (internal/strictdecode), which is then checked
// against the job file's fields: every error names the file's field path and line (never a Go
// type), numbers must be integers in both formats, and unknown or repeated fields are refused.

// maxJobFileBytes bounds a job file (or stdin given as --job -): it is read whole.
const maxJobFileBytes = 16 << 20

// decodeJobFile decodes a job file's text (JSON when the name ends in .json or the text starts
// with '{', else YAML) into savepoint.JobFile.
func decodeJobFile(name string, data []byte) (savepoint.JobFile, error) {
	root, err := strictdecode.Decode(name, data, "job")
	if errors.Is(err, strictdecode.ErrEmpty) {
		return savepoint.JobFile{}, errors.New("the job file is empty (want a 'vertices' list)")
	}
	if err != nil {
		return savepoint.JobFile{}, err
	}
	var jf savepoint.JobFile
	text, integer := strictdecode.Text, func(set func(int)) func(*strictdecode.Value, string) error {
		return strictdecode.Int32(fmt.Sprintf("1..%d", model.UpperBoundMaxParallelism), set)
	}
	operator := func(item *strictdecode.Value, at string) error {
		var jo savepoint.JobFileOperator
		err := strictdecode.Mapping(item, at, []strictdecode.Field{
			{Name: "name", Set: text(func(s string) { jo.Name = s })},
			{Name: "uid", Set: text(func(s string) { jo.UID = &s })},
			{Name: "id", Set: text(func(s string) { jo.ID = &s })},
			{Name: "uid_hash", Set: text(func(s string) { jo.UIDHash = &s })},
		})
		jf.Vertices[len(jf.Vertices)-1].Operators = append(jf.Vertices[len(jf.Vertices)-1].Operators, jo)
		return err
	}
	input := func(item *strictdecode.Value, at string) error {
		var in savepoint.JobFileInput
		err := strictdecode.Mapping(item, at, []strictdecode.Field{{Name: "from", Set: text(func(s string) { in.From = s })}, {Name: "partitioner", Set: text(func(s string) { in.Partitioner = s })}})
		jf.Vertices[len(jf.Vertices)-1].Inputs = append(jf.Vertices[len(jf.Vertices)-1].Inputs, in)
		return err
	}
	vertex := func(item *strictdecode.Value, at string) error {
		jf.Vertices = append(jf.Vertices, savepoint.JobFileVertex{})
		jv := &jf.Vertices[len(jf.Vertices)-1]
		return strictdecode.Mapping(item, at, []strictdecode.Field{
			{Name: "name", Set: text(func(s string) { jv.Name = s })},
			{Name: "parallelism", Set: integer(func(n int) { jv.Parallelism = &n })},
			{Name: "max_parallelism", Set: integer(func(n int) { jv.MaxParallelism = &n })},
			{Name: "operators", Set: func(v *strictdecode.Value, at string) error { return strictdecode.Items(v, at, operator) }},
			{Name: "inputs", Set: func(v *strictdecode.Value, at string) error { return strictdecode.Items(v, at, input) }},
		})
	}
	err = strictdecode.Fill(root, "the job file", []strictdecode.Field{
		{Name: "vertices", Set: func(v *strictdecode.Value, at string) error { return strictdecode.Items(v, at, vertex) }},
	})
	return jf, err
}
