package main

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model/savepoint"
)

func init() {
	register(&command{name: "inspect", summary: "decode a Flink _metadata file (format v2–v7) as a tree or JSON", run: runInspect})
}

func runInspect(e *env, args []string) int {
	fset := cliflags.New("inspect", "inspect PATH [--latest] [--format text|json] [--uid NAME]... [--uids FILE]",
		`Decodes a Flink checkpoint/savepoint metadata file (format versions 2 to 7: Flink 1.3 to 2.x)
and prints it. PATH is the _metadata file or a checkpoint directory holding one (any existing file
is taken as the metadata file). The text form is a tree with state sizes per operator, subtask,
handle and key group; the JSON form lists every operator and subtask with its operator-state
names, modes and offsets and its keyed-state handles. A damaged file is reported on one line
naming the byte offset and the field; format version 1 (Flink 1.2) is refused.

`+pathHelp+`

Operators print with the name and uid the file stores (format version 5+). --uid NAME
(repeatable) and --uids FILE (the uid,operator_id lines of 'simulate uid', or one uid per line)
name the operators whose ID is the hash of a uid (JSON: "uid"); uids that match no operator are
ignored.`)
	format := fset.String("format", "text", "output format: text or json")
	latest := fset.Bool("latest", false, latestUsage)
	var uf uidFlags
	uf.register(fset)
	pos, done, code := e.parseFlags(fset, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return e.failf("inspect", "unknown --format %q (want text or json)", *format)
	}
	if len(pos) != 1 {
		return e.failf("inspect", "want exactly one PATH (a _metadata file or a checkpoint directory), got %d arguments", len(pos))
	}
	if slices.Contains(uf.files, stdinName) && pos[0] == stdinName {
		return e.failf("inspect", "--uids - and PATH - both read stdin: give one of them as a file")
	}
	uids, err := uf.load(e)
	if err != nil {
		return e.failf("inspect", "%v", err)
	}
	sp, err := openSavepoint(e, pos[0], *latest)
	if err != nil {
		return e.failf("inspect", "%v", err)
	}
	uids.Label(sp.File)
	var out bytes.Buffer
	if *format == "json" {
		b, err := json.MarshalIndent(savepoint.Summarize(sp.File), "", "  ")
		if err != nil {
			return e.failf("inspect", "encoding JSON: %v", err)
		}
		out.Write(b)
		out.WriteByte('\n')
	} else {
		_ = sp.WriteText(&out) // a bytes.Buffer does not fail
	}
	return writeOut(e, "inspect", out.Bytes())
}
