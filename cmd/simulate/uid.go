package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model/savepoint"
)

func init() {
	register(&command{name: "uid", summary: "the operator ID Flink derives from each uid (murmur3 x64-128), as uid,operator_id lines", run: runUID})
}

func runUID(e *env, args []string) int {
	fset := cliflags.New("uid", "uid NAME...",
		`Prints, for each uid NAME (the .uid(...) of a DataStream operator), the operator ID Flink
derives from it (StreamGraphHasherV2.generateUserSpecifiedHash: the 128-bit MurmurHash3, x64
variant, seed 0, of the uid's UTF-8 bytes), one "uid,operator_id" line per NAME in the order
given, the uid CSV-quoted when it holds a comma, a quote or a line break. The output is a
--uids FILE for 'simulate inspect' and 'simulate plan', which then name the operators of files
that store no uid (format versions before 5).`)
	pos, done, code := e.parseFlags(fset, args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return e.failf("uid", "want at least one uid NAME")
	}
	var out bytes.Buffer
	for _, s := range pos {
		if s == "" {
			return e.failf("uid", "empty uid (Flink refuses an empty uid)")
		}
		out.WriteString(savepoint.UIDLine(s))
		out.WriteByte('\n')
	}
	return writeOut(e, "uid", out.Bytes())
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// uidFlags are the --uid and --uids flags of inspect and plan.
type uidFlags struct {
	uids  stringList
	files stringList
}

func (u *uidFlags) register(fs *cliflags.Set) {
	fs.Var(&u.uids, "uid", "name the operator whose ID is the hash of uid `NAME` (repeatable)")
	fs.Var(&u.files, "uids", "read uids from `FILE`: one per line, or the uid,operator_id lines 'simulate uid' prints (repeatable; - reads stdin)")
}

// load reads the uids the flags give.
func (u *uidFlags) load(e *env) (*savepoint.UIDs, error) {
	var out savepoint.UIDs
	for _, s := range u.uids {
		if err := out.Add(s); err != nil {
			return nil, fmt.Errorf("--uid: %v", err)
		}
	}
	for _, path := range u.files {
		b, err := readInput(e, path, maxJobFileBytes)
		if err != nil {
			return nil, fmt.Errorf("--uids: %v", err)
		}
		l, err := savepoint.ReadUIDs(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("--uids %s: %v", path, err)
		}
		if err := out.Add(l...); err != nil {
			return nil, fmt.Errorf("--uids %s: %v", path, err)
		}
	}
	return &out, nil
}
