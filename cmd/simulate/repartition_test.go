package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model/opstate"
)

// goldenRoundRobin is model/testdata/flink/roundrobin.json (SPEC §L.1), cases kept raw so that
// each can be piped into the command as it is.
func goldenRoundRobin(t *testing.T) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../../model/testdata/flink/roundrobin.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
	return f.Cases
}

type goldenOutputs struct {
	ID          int                           `json:"id"`
	Output      []map[string]opstate.Received `json:"output"`
	Differs1101 bool                          `json:"differs_in_1_10_1"`
	Output1101  []map[string]opstate.Received `json:"output_1_10_1"`
}

func runRepartitionCLI(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// Every golden case, piped in whole (id, split_name_order and the expected outputs are extra
// fields the command must ignore), gives Flink's output for both versions.
func TestRepartitionCommandGolden(t *testing.T) {
	for _, raw := range goldenRoundRobin(t) {
		var g goldenOutputs
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		for _, version := range []string{"1.18", "1.10.1"} {
			want := g.Output
			if version == "1.10.1" && g.Differs1101 {
				want = g.Output1101
			}
			code, stdout, stderr := runRepartitionCLI(string(raw), "repartition", "--flink", version)
			if code != exitOK || stderr != "" {
				t.Fatalf("case %d --flink %s: exit %d, stderr %q", g.ID, version, code, stderr)
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			dec.DisallowUnknownFields()
			var got struct {
				Output []map[string]opstate.Received `json:"output"`
			}
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("case %d --flink %s: output is not the schema: %v\n%s", g.ID, version, err, stdout)
			}
			if diff := cmp.Diff(want, got.Output); diff != "" {
				t.Errorf("case %d --flink %s (-want +got):\n%s", g.ID, version, diff)
			}
		}
	}
}

// The default version is 1.18, and the output keeps "offsets": [] and "pairs": [] (never null).
func TestRepartitionCommandDefaultsAndEmptyArrays(t *testing.T) {
	in := `{"old_parallelism": 2, "new_parallelism": 1, "input": [
		[{"handle": 0, "states": [{"name": "b", "mode": "BROADCAST", "num_offsets": 0}, {"name": "s", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 0}]}],
		[{"handle": 0, "states": [{"name": "s", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 1}]}]]}`
	code, stdout, stderr := runRepartitionCLI(in, "repartition")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `{"output": [
  {"b":{"mode":"BROADCAST","pairs":[],"handles":[{"old_subtask":0,"handle":0,"offsets":[]}]},"s":{"mode":"SPLIT_DISTRIBUTE","pairs":[[1,0]],"handles":[{"old_subtask":0,"handle":0,"offsets":[]},{"old_subtask":1,"handle":0,"offsets":[0]}]}}
]}
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	// 1.18 and 1.10.1 differ on golden case 251's shape (broadcast state missing on subtask 1).
	in = `{"old_parallelism": 2, "new_parallelism": 2, "input": [
		[{"handle": 0, "states": [{"name": "t-5", "mode": "BROADCAST", "num_offsets": 3}]}], []]}`
	_, modern, _ := runRepartitionCLI(in, "repartition")
	_, old, _ := runRepartitionCLI(in, "repartition", "--flink=1.10.1")
	if !strings.Contains(modern, `{"t-5":{"mode":"BROADCAST","pairs":[[0,0],[0,1],[0,2]]`) || !strings.HasSuffix(modern, "\n  {\"t-5\":{\"mode\":\"BROADCAST\",\"pairs\":[[0,0],[0,1],[0,2]],\"handles\":[{\"old_subtask\":0,\"handle\":0,\"offsets\":[0,1,2]}]}}\n]}\n") {
		t.Errorf("1.18: new subtask 1 should receive old subtask 0's copy:\n%s", modern)
	}
	if !strings.HasSuffix(old, ",\n  {}\n]}\n") {
		t.Errorf("1.10.1: new subtask 1 should receive nothing:\n%s", old)
	}
}

func TestRepartitionCommandBadInput(t *testing.T) {
	const good = `{"old_parallelism": 1, "new_parallelism": 2, "input": [[{"handle": 0, "states": [{"name": "s", "mode": "UNION", "num_offsets": 2}]}]]}`
	if code, _, stderr := runRepartitionCLI(good, "repartition"); code != exitOK {
		t.Fatalf("the base input fails: %s", stderr)
	}
	with := func(old, new string) string {
		if !strings.Contains(good, old) {
			panic("test bug: " + old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tooLarge := strings.Replace(with(`"new_parallelism": 2`, `"new_parallelism": 32768`), `"num_offsets": 2`, `"num_offsets": 4096`, 1)
	tests := []struct {
		name, stdin string
		args        []string
		wantErr     string
	}{
		{"empty stdin", "", nil, "no input"},
		{"malformed JSON", `{"old_parallelism": 1,`, nil, "malformed JSON"},
		{"not an object", `[1, 2]`, nil, "the case must be an object, not an array"},
		{"wrong type", with(`"new_parallelism": 2`, `"new_parallelism": "2"`), nil, `field "new_parallelism" must be an integer, not a string`},
		{"wrong type deep inside", with(`"num_offsets": 2`, `"num_offsets": 2.5`), nil, `field "input.states.num_offsets" must be an integer, not the number 2.5`},
		{"trailing garbage", good + " x", nil, "unexpected data after the case"},
		{"two values", good + good, nil, "unexpected data after the case"},
		{"missing old_parallelism", with(`"old_parallelism": 1, `, ``), nil, `missing field "old_parallelism"`},
		{"missing new_parallelism", with(`"new_parallelism": 2, `, ``), nil, `missing field "new_parallelism"`},
		{"missing input", `{"old_parallelism": 1, "new_parallelism": 2}`, nil, `missing field "input"`},
		{"null input", with(`"input": [[`, `"input": null, "x": [[`), nil, `missing field "input"`},
		{"missing handle", with(`"handle": 0, `, ``), nil, `missing field "handle"`},
		{"handle not its index", with(`"handle": 0`, `"handle": 1`), nil, `want its index 0`},
		{"missing states", with(`, "states": [{"name": "s", "mode": "UNION", "num_offsets": 2}]`, ``), nil, `missing field "states"`},
		{"missing name", with(`"name": "s", `, ``), nil, `missing field "name"`},
		{"missing mode", with(`"mode": "UNION", `, ``), nil, `missing field "mode"`},
		{"missing num_offsets", with(`, "num_offsets": 2`, ``), nil, `missing field "num_offsets"`},
		{"null subtask", with(`"input": [[{"handle": 0, "states": [{"name": "s", "mode": "UNION", "num_offsets": 2}]}]]`, `"input": [null]`), nil, "input[0] is null"},
		{"null handle", with(`"input": [[{"handle": 0, "states": [{"name": "s", "mode": "UNION", "num_offsets": 2}]}]]`, `"input": [[null]]`), nil, "input[0][0] is null"},
		{"input shorter than old_parallelism", with(`"old_parallelism": 1`, `"old_parallelism": 2`), nil, `"input" has 1 entries but old_parallelism is 2`},
		{"input longer than old_parallelism", with(`}]}]]}`, `}]}], []]}`), nil, `"input" has 2 entries but old_parallelism is 1`},
		{"unknown mode", with(`"UNION"`, `"union"`), nil, "unknown distribution mode"},
		{"old parallelism 0", with(`"old_parallelism": 1`, `"old_parallelism": 0`), nil, "old_parallelism 0 is out of bounds"},
		{"new parallelism 0", with(`"new_parallelism": 2`, `"new_parallelism": 0`), nil, "new_parallelism 0 is out of bounds"},
		{"negative new parallelism", with(`"new_parallelism": 2`, `"new_parallelism": -3`), nil, "new_parallelism -3 is out of bounds"},
		{"parallelism above Flink's bound", with(`"new_parallelism": 2`, `"new_parallelism": 32769`), nil, "out of bounds (want 1..32768)"},
		{"negative num_offsets", with(`"num_offsets": 2`, `"num_offsets": -1`), nil, `"num_offsets" is -1`},
		{"too many partitions", with(`"num_offsets": 2`, `"num_offsets": 99999999`), nil, "too many partitions"},
		{"output too large", tooLarge, nil, "output too large"},
		{"duplicate name in a handle", with(`"num_offsets": 2}`, `"num_offsets": 2}, {"name": "s", "mode": "UNION", "num_offsets": 1}`), nil, "appears twice"},
		{"one name, two modes", with(`}]}]]}`, `}]}, {"handle": 1, "states": [{"name": "s", "mode": "BROADCAST", "num_offsets": 1}]}]]}`), nil, "one mode per name"},
		{"unknown --flink", good, []string{"--flink", "1.17"}, "unknown Flink version"},
		{"empty --flink", good, []string{"--flink="}, "--flink: an empty value"},
		{"unknown flag", good, []string{"--parallelism", "3"}, "flag provided but not defined"},
		{"positional argument", good, []string{"case.json"}, `unexpected argument "case.json"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runRepartitionCLI(tt.stdin, append([]string{"repartition"}, tt.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.HasPrefix(stderr, "simulate repartition: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr %q, want one line starting with %q", stderr, "simulate repartition: ")
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q, want it to mention %q", stderr, tt.wantErr)
			}
		})
	}
}

func TestRepartitionCommandHelp(t *testing.T) {
	code, stdout, stderr := runRepartitionCLI("", "repartition", "--help")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"usage: simulate repartition", "what Flink will do with your operator", "--flink", "SPLIT_DISTRIBUTE", "(default 1.18)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help does not mention %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runRepartitionCLI("", "help")
	if code != exitOK || !strings.Contains(stdout, "repartition") {
		t.Errorf("simulate help does not list repartition:\n%s", stdout)
	}
}

// The output guard counts handle entries, not only partitions: UNION state with no partition
// still gives every new subtask one entry per old handle (quadratic in the parallelism), while a
// BROADCAST state at Flink's largest parallelism hands each new subtask a single copy and must
// pass.
func TestRepartitionCommandOutputGuard(t *testing.T) {
	caseOf := func(oldP, newP int, state string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"old_parallelism": %d, "new_parallelism": %d, "input": [`, oldP, newP)
		for s := range oldP {
			if s > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `[{"handle": 0, "states": [%s]}]`, state)
		}
		b.WriteString("]}")
		return b.String()
	}
	code, stdout, stderr := runRepartitionCLI(caseOf(4096, 4095, `{"name": "u", "mode": "UNION", "num_offsets": 0}`), "repartition")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "output too large") {
		t.Errorf("4096 → 4095 zero-partition UNION entries: exit %d, stdout %d bytes, stderr %q; want exit 2 and \"output too large\"", code, len(stdout), stderr)
	}
	if testing.Short() {
		return
	}
	code, stdout, stderr = runRepartitionCLI(caseOf(32768, 32767, `{"name": "b", "mode": "BROADCAST", "num_offsets": 4}`), "repartition")
	if code != exitOK {
		t.Fatalf("32768 → 32767 BROADCAST: exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(stdout, `"b":{"mode":"BROADCAST","pairs":[`); n != 32767 {
		t.Errorf("32768 → 32767 BROADCAST: %d new subtasks received the state, want 32767", n)
	}
}
