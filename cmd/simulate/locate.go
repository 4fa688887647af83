package main

import (
	"bytes"
	"encoding/json"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

func init() {
	register(&command{name: "locate", summary: "where a key's state lives in a savepoint, and which subtask owns it at P", run: runLocate})
	register(&command{name: "diff", summary: "compare two snapshots of one job: operators, parallelism, bytes", run: runDiff})
}

func runLocate(e *env, args []string) int {
	fs := cliflags.New("locate", "locate KEY PATH [--latest] --key-type int|long|string|row<T1,…,Tn> [--operator ID|uid:NAME] [--parallelism P] [--format text|json]",
		`Prints, for every operator with keyed state (or only --operator), the key's hashCode and
key group, the old subtask and the keyed-state handles holding that key group, the key group's
byte range in each handle (from its offset to the next larger offset of the handle, the last to
the stream's end; offset 0 is an empty key group, 0 bytes; incremental and changelog handles
have no offsets and are read whole) and, with --parallelism, the new subtask that owns it at P. An
operator of max parallelism 1 is non-parallel: it stays at parallelism 1 whatever P (as plan
plans it; JSON "non_parallel": true).
For a SQL job, KEY is a JSON array with --key-type 'row<T1,…,Tn>' (see 'simulate keygroup --help').

`+pathHelp)
	keyType := fs.String("key-type", "", keyTypeUsage)
	operator := fs.String("operator", "", "only the operator `ID` (32 hex digits or uid:NAME)")
	var p cliflags.Int
	fs.Var(&p, "parallelism", "the new parallelism `P` (1..the operator's max parallelism)")
	format := fs.String("format", "text", "output format: text or json")
	latest := fs.Bool("latest", false, latestUsage)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return e.failf("locate", "unknown --format %q (want text or json)", *format)
	}
	if len(pos) != 2 {
		return e.failf("locate", "want KEY and PATH, got %d arguments", len(pos))
	}
	kt, err := parseKeyType(*keyType)
	if err != nil {
		return e.failf("locate", "%v", err)
	}
	h, err := kt.Hash(pos[0])
	if err != nil {
		return e.failf("locate", "key: %v", err)
	}
	var id *model.OperatorID
	if *operator != "" {
		v, err := savepoint.ParseOperatorRef(*operator)
		if err != nil {
			return e.failf("locate", "--operator: %v", err)
		}
		id = &v
	}
	if p.Given && p.V < 1 {
		return e.failf("locate", "--parallelism %d is out of bounds (want 1..the operator's max parallelism)", p.V)
	}
	sp, err := openSavepoint(e, pos[1], *latest)
	if err != nil {
		return e.failf("locate", "%v", err)
	}
	locs, err := savepoint.Locate(sp.File, h, id, p.V)
	if err != nil {
		return e.failf("locate", "%v", err)
	}
	var out bytes.Buffer
	if *format == "json" {
		b, _ := json.MarshalIndent(locs, "", "  ") // plain values: cannot fail
		out.Write(append(b, '\n'))
	} else {
		_ = savepoint.WriteLocationText(&out, pos[0], locs) // a bytes.Buffer does not fail
	}
	return writeOut(e, "locate", out.Bytes())
}

func runDiff(e *env, args []string) int {
	fs := cliflags.New("diff", "diff A B [--format text|json]",
		`Compares two snapshots (checkpoints or savepoints) of one job: operators added and removed, and
for every operator of both its parallelism, max parallelism and state bytes, per subtask and
per key group (when both have per-key-group offsets), with the growth in bytes and percent.
Text lists only what changed (the 5 key groups that changed most); JSON lists everything.`)
	format := fs.String("format", "text", "output format: text or json")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return e.failf("diff", "unknown --format %q (want text or json)", *format)
	}
	if len(pos) != 2 {
		return e.failf("diff", "want two snapshots A and B, got %d arguments", len(pos))
	}
	if pos[0] == stdinName && pos[1] == stdinName {
		return e.failf("diff", "A and B cannot both be stdin")
	}
	var sps [2]*savepoint.Savepoint
	for i, p := range pos {
		sp, err := openSavepoint(e, p, false)
		if err != nil {
			return e.failf("diff", "%v", err)
		}
		sps[i] = sp
	}
	d := savepoint.Diff(sps[0], sps[1])
	var out bytes.Buffer
	if *format == "json" {
		b, _ := json.MarshalIndent(d, "", "  ") // plain values: cannot fail
		out.Write(append(b, '\n'))
	} else {
		_ = d.WriteText(&out) // a bytes.Buffer does not fail
	}
	return writeOut(e, "diff", out.Bytes())
}
