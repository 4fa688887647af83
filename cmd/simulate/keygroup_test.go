package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runCLI runs the program in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// wantUsageError checks the contract for bad input: exit 2, exactly one line on stderr that
// mentions want, and nothing on stdout.
func wantUsageError(t *testing.T, want string, code int, stdout, stderr string) {
	t.Helper()
	if code != 2 {
		t.Errorf("exit code %d, want 2 (stderr %q)", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr %q, want exactly one line", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not mention %q", stderr, want)
	}
}

func TestKeygroupArgs(t *testing.T) {
	code, out, errs := runCLI(t, "", "keygroup", "--parallelism", "3", "--max-parallelism", "128", "--key-type", "int", "0", "1", "42", "-1")
	want := "key,hash,key_group,subtask\n0,0,94,2\n1,1,86,2\n42,42,29,0\n-1,-1,80,1\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("got (%d, %q, %q), want (0, %q, \"\")", code, out, errs, want)
	}
}

func TestKeygroupStdinVerbatim(t *testing.T) {
	// Lines split on \n only: the empty line is the key "", "a b " keeps its spaces, "x\r" its CR,
	// a comma or quote is CSV-quoted; the final newline does not add a key.
	code, out, _ := runCLI(t, "hello\n\na b \nx\r\n\"q\",\n", "keygroup", "--parallelism", "7", "--key-type", "string")
	want := "key,hash,key_group,subtask\nhello,99162322,35,1\n,0,94,5\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("got (%d, %q), want prefix %q", code, out, want)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[3], "a b ,") || !strings.HasPrefix(lines[4], "\"x\r\",") || !strings.HasPrefix(lines[5], `"""q"",",`) {
		t.Errorf("rows %q", lines)
	}
}

func TestKeygroupLongAndDefaultMaxParallelism(t *testing.T) {
	// 4294967296L hashes like 1; default max parallelism for p=3 is 128.
	code, out, _ := runCLI(t, "", "keygroup", "--parallelism", "3", "--key-type", "long", "4294967296")
	if code != 0 || out != "key,hash,key_group,subtask\n4294967296,1,86,2\n" {
		t.Errorf("got (%d, %q)", code, out)
	}
}

func TestRanges(t *testing.T) {
	code, out, _ := runCLI(t, "", "ranges", "--parallelism", "3", "--max-parallelism", "128")
	want := "max_parallelism,parallelism,subtask,start,end,key_groups\n128,3,0,0,42,43\n128,3,1,43,85,43\n128,3,2,86,127,42\n"
	if code != 0 || out != want {
		t.Errorf("got (%d, %q), want %q", code, out, want)
	}
	code, out, _ = runCLI(t, "", "ranges", "--parallelism", "200", "--subtask", "199")
	if code != 0 || out != "max_parallelism,parallelism,subtask,start,end,key_groups\n512,200,199,510,511,2\n" {
		t.Errorf("default M: got (%d, %q)", code, out)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name, stdin, want string
		args              []string
	}{
		{"p zero", "", "not within bounds", []string{"ranges", "--parallelism", "0"}},
		{"p negative", "", "not within bounds", []string{"ranges", "--parallelism", "-3"}},
		{"p too big", "", "not within bounds", []string{"ranges", "--parallelism", "32769"}},
		{"p missing", "", "--parallelism is required", []string{"ranges"}},
		{"p not a number", "", "not an integer", []string{"ranges", "--parallelism", "x"}},
		{"M below p", "", "below --parallelism", []string{"ranges", "--parallelism", "5", "--max-parallelism", "4"}},
		{"M too big", "", "out of bounds", []string{"ranges", "--parallelism", "5", "--max-parallelism", "32769"}},
		{"M zero", "", "out of bounds", []string{"keygroup", "--parallelism", "1", "--max-parallelism", "0", "--key-type", "int", "1"}},
		{"subtask out of range", "", "--subtask 3 is out of range", []string{"ranges", "--parallelism", "3", "--subtask", "3"}},
		{"subtask negative", "", "--subtask -1 is out of range", []string{"ranges", "--parallelism", "3", "--subtask", "-1"}},
		{"unknown flag", "", "flag provided but not defined", []string{"ranges", "--parallelism", "3", "--bogus"}},
		{"stray argument", "", "unexpected argument", []string{"ranges", "--parallelism", "3", "extra"}},
		{"int key not a number", "", `"x" is not an int`, []string{"keygroup", "--parallelism", "3", "--key-type", "int", "1", "x"}},
		{"int key overflow", "", "is not an int", []string{"keygroup", "--parallelism", "3", "--key-type", "int", "2147483648"}},
		{"long key not a number", "", "is not a long", []string{"keygroup", "--parallelism", "3", "--key-type", "long", "1.5"}},
		{"int key from stdin with CR", "1\r\n", "is not an int", []string{"keygroup", "--parallelism", "3", "--key-type", "int"}},
		{"empty line as int", "1\n\n2\n", `key 2: key "" is not an int`, []string{"keygroup", "--parallelism", "3", "--key-type", "int"}},
		{"no keys on stdin", "", "no keys: give them as arguments or one per line on stdin (--allow-empty prints just the header)", []string{"keygroup", "--parallelism", "3", "--key-type", "int"}},
		{"huge key", strings.Repeat("9", 3800) + "\n", `key 1: key "9999999999999999999999999999999999999999"… (3800 bytes) is not an int`, []string{"keygroup", "--parallelism", "3", "--key-type", "int"}},
		{"huge long key", "", `… (3800 bytes) is not a long`, []string{"keygroup", "--parallelism", "3", "--key-type", "long", strings.Repeat("x", 3800)}},
		{"binary key", "", `key "\x00\xff" is not an int`, []string{"keygroup", "--parallelism", "3", "--key-type", "int", "\x00\xff"}},
		{"allow-empty with keys", "", "--allow-empty applies to keys read from stdin", []string{"keygroup", "--parallelism", "3", "--key-type", "int", "--allow-empty", "1"}},
		{"unknown key type", "", "unknown key type", []string{"keygroup", "--parallelism", "3", "--key-type", "double", "1"}},
		{"missing key type", "", "--key-type is required", []string{"keygroup", "--parallelism", "3", "1"}},
		{"unknown command", "", "unknown command", []string{"bogus"}},
		{"no command", "", "missing command", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.stdin, c.args...)
			wantUsageError(t, c.want, code, out, errs)
		})
	}
}

// TestKeygroupAllowEmpty: with --allow-empty, no keys on stdin prints just the header.
func TestKeygroupAllowEmpty(t *testing.T) {
	code, out, errs := runCLI(t, "", "keygroup", "--parallelism", "3", "--key-type", "int", "--allow-empty")
	if code != 0 || out != "key,hash,key_group,subtask\n" || errs != "" {
		t.Errorf("got (%d, %q, %q)", code, out, errs)
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"keygroup", "ranges"} {
		code, out, errs := runCLI(t, "", cmd, "--help")
		if code != 0 || !strings.HasPrefix(out, "usage: simulate "+cmd) || errs != "" {
			t.Errorf("%s --help: (%d, %q, %q)", cmd, code, out, errs)
		}
	}
	code, out, _ := runCLI(t, "", "help")
	if code != 0 || !strings.Contains(out, "keygroup") || !strings.Contains(out, "ranges") {
		t.Errorf("help: (%d, %q)", code, out)
	}
}

// docExample returns what the doc at docPath shows right after the line cmdLine, up to the end of
// its code block: the pasted output a test compares with the command's real output.
func docExample(t *testing.T, docPath, cmdLine string) string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), cmdLine)
	if i < 0 {
		t.Fatalf("%s lacks the line %q", docPath, cmdLine)
	}
	rest := string(doc)[i+len(cmdLine):]
	end := strings.Index(rest, "```")
	if end < 0 {
		t.Fatalf("%s: no end of the code block after %q", docPath, cmdLine)
	}
	return rest[:end]
}

// checkDocExample runs the command args and checks that its output, with the temporary directory
// dir removed from paths, is what the doc shows after cmdLine.
func checkDocExample(t *testing.T, docPath, cmdLine, dir string, args ...string) {
	t.Helper()
	want := docExample(t, docPath, cmdLine)
	code, out, errs := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got := strings.ReplaceAll(out, dir+string(os.PathSeparator), "")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s is out of date (-doc +%s):\n%s", docPath, args[0], diff)
	}
}
