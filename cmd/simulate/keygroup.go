package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "keygroup", summary: "key → Java hash, key group and subtask, as Flink routes it", run: runKeygroup})
	register(&command{name: "ranges", summary: "the key-group range of every subtask for a parallelism", run: runRanges})
}

// keyTypeUsage is the --key-type flag's usage, and sqlKeyHelp the help's paragraph on SQL keys.
const (
	keyTypeUsage = "the key's `TYPE`: int, long or string (Java), or row<T1,…,Tn> (a SQL key)"
	sqlKeyHelp   = `A SQL job's key is the row its key selector projects, hashed as Flink's BinaryRowData
(MurmurHash over the row's bytes, not a Java hashCode): --key-type 'row<T1,…,Tn>' with Flink's
type names (INT, BIGINT, SMALLINT, TINYINT, BOOLEAN, FLOAT, DOUBLE, STRING, VARCHAR(n), CHAR(n),
BYTES, VARBINARY(n), BINARY(n), DATE, TIME, TIMESTAMP(p), TIMESTAMP_LTZ(p), DECIMAL(p,s); NOT
NULL and field names allowed) and each key a JSON array, null for NULL: integers for the
integer types, DATE (days) and TIME (millis of day); true/false; FLOAT and DOUBLE as numbers or
strings such as "NaN", "-0.0", "Infinity"; DECIMAL as a string such as "12.50"; TIMESTAMP(p <= 3)
as epoch millis, TIMESTAMP(p > 3) as [epochMillis, nanoOfMillisecond]; strings as JSON strings;
bytes in hex. Example: --key-type 'row<INT,STRING,DECIMAL(10,2)>' '[7,"eu-west","12.50"]'.`
)

// parseKeyType parses --key-type.
func parseKeyType(t string) (plots.KeyType, error) {
	if t == "" {
		return plots.KeyType{}, errors.New("--key-type is required (int, long, string or a SQL key's row<T1,…,Tn>)")
	}
	return plots.ParseKeyType(t)
}

// resolveParallelism checks --parallelism and --max-parallelism as Flink would and fills in
// Flink's default max parallelism when none was given.
func resolveParallelism(p, m cliflags.Int) (int, int, error) {
	if !p.Given {
		return 0, 0, errors.New("--parallelism is required")
	}
	if err := model.CheckParallelismPreconditions(p.V); err != nil {
		return 0, 0, fmt.Errorf("--parallelism %d: %w (want 1..%d)", p.V, err, model.UpperBoundMaxParallelism)
	}
	if !m.Given {
		d, err := model.ComputeDefaultMaxParallelism(p.V)
		return p.V, d, err
	}
	if m.V <= 0 || m.V > model.UpperBoundMaxParallelism {
		return 0, 0, fmt.Errorf("--max-parallelism %d is out of bounds (want 1..%d)", m.V, model.UpperBoundMaxParallelism)
	}
	if m.V < p.V {
		return 0, 0, fmt.Errorf("--max-parallelism %d is below --parallelism %d: Flink needs max parallelism >= parallelism", m.V, p.V)
	}
	return p.V, m.V, nil
}

// readLines splits r on '\n' only, keeping every line verbatim; a final newline does not start
// another (empty) line.
func readLines(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	return strings.Split(s, "\n"), nil
}

func runKeygroup(e *env, args []string) int {
	fs := cliflags.New("keygroup", "keygroup --parallelism P [--max-parallelism M] --key-type int|long|string|row<T1,…,Tn> [--allow-empty] [KEY ...]",
		`Prints, for every key, its hashCode, its key group (murmurHash(hash) % M) and the subtask
that Flink routes it to, as CSV: key,hash,key_group,subtask (one row per key, in input order).
Keys come from the arguments or, when there are none, from stdin, one per line (split on \n
only; lines are taken verbatim, nothing is trimmed; no keys at all is an error unless
--allow-empty). M defaults to Flink's default max parallelism for P. Negative numbers are
keys, not flags; "--" ends the flags.

`+sqlKeyHelp)
	var p, m cliflags.Int
	fs.Var(&p, "parallelism", "the operator's parallelism `P` (1..32768)")
	fs.Var(&m, "max-parallelism", "the max parallelism `M` (P..32768; default: Flink's default for P)")
	keyType := fs.String("key-type", "", keyTypeUsage)
	allowEmpty := fs.Bool("allow-empty", false, "with no keys on stdin print just the header (else: an error)")
	keys, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	par, maxPar, err := resolveParallelism(p, m)
	if err != nil {
		return e.failf("keygroup", "%v", err)
	}
	kt, err := parseKeyType(*keyType)
	if err != nil {
		return e.failf("keygroup", "%v", err)
	}
	if len(keys) > 0 && *allowEmpty {
		return e.failf("keygroup", "--allow-empty applies to keys read from stdin, not to KEY arguments")
	}
	if len(keys) == 0 {
		if keys, err = readLines(e.stdin); err != nil {
			return e.failf("keygroup", "reading keys from stdin: %v", err)
		}
		if len(keys) == 0 && !*allowEmpty {
			return e.failf("keygroup", "no keys: give them as arguments or one per line on stdin (--allow-empty prints just the header)")
		}
	}
	var out bytes.Buffer // nothing reaches stdout unless every key is valid
	w := csv.NewWriter(&out)
	_ = w.Write([]string{"key", "hash", "key_group", "subtask"})
	for i, k := range keys {
		h, err := kt.Hash(k)
		if err != nil {
			return e.failf("keygroup", "key %d: %v", i+1, err)
		}
		kg := model.ComputeKeyGroupForKeyHash(h, maxPar)
		sub := model.ComputeOperatorIndexForKeyGroup(maxPar, par, kg)
		_ = w.Write([]string{k, strconv.Itoa(int(h)), strconv.Itoa(kg), strconv.Itoa(sub)})
	}
	w.Flush()
	return writeOut(e, "keygroup", out.Bytes())
}

func runRanges(e *env, args []string) int {
	fs := cliflags.New("ranges", "ranges --parallelism P [--max-parallelism M] [--subtask I]",
		`Prints the key-group range Flink gives each subtask (KeyGroupRangeAssignment.
computeKeyGroupRangeForOperatorIndex: start = ceil(i*M/P), end = ceil((i+1)*M/P) - 1, both
inclusive) as CSV: max_parallelism,parallelism,subtask,start,end,key_groups. With no
--max-parallelism it uses, and prints, Flink's default max parallelism for P.`)
	var p, m, sub cliflags.Int
	fs.Var(&p, "parallelism", "the operator's parallelism `P` (1..32768)")
	fs.Var(&m, "max-parallelism", "the max parallelism `M` (P..32768; default: Flink's default for P)")
	fs.Var(&sub, "subtask", "print only subtask `I` (0..P-1)")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("ranges", "unexpected argument %q (ranges takes only flags)", pos[0])
	}
	par, maxPar, err := resolveParallelism(p, m)
	if err != nil {
		return e.failf("ranges", "%v", err)
	}
	from, to := 0, par-1
	if sub.Given {
		if sub.V < 0 || sub.V >= par {
			return e.failf("ranges", "--subtask %d is out of range (want 0..%d for parallelism %d)", sub.V, par-1, par)
		}
		from, to = sub.V, sub.V
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	fmt.Fprintln(w, "max_parallelism,parallelism,subtask,start,end,key_groups")
	for i := from; i <= to; i++ {
		r, err := model.ComputeKeyGroupRangeForOperatorIndex(maxPar, par, i)
		if err != nil {
			return e.failf("ranges", "%v", err)
		}
		fmt.Fprintf(w, "%d,%d,%d,%d,%d,%d\n", maxPar, par, i, r.Start, r.End, r.NumberOfKeyGroups())
	}
	w.Flush()
	return writeOut(e, "ranges", out.Bytes())
}

// writeOut writes a command's complete result to stdout.
func writeOut(e *env, cmd string, b []byte) int {
	if _, err := e.stdout.Write(b); err != nil {
		fmt.Fprintf(e.stderr, "simulate %s: writing output: %v\n", cmd, err)
		return exitUsage
	}
	return exitOK
}
