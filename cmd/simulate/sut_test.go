package main

import (
	"os"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestSUTFlagErrors: a bad --sut, --flink-src or --flink-mutant is one line on stderr and exit 2,
// on run, replay and sweep.
func TestSUTFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--seed", "1", "--sut", "flonk"}, `--sut flonk: unknown system under test "flonk" (want model, flink, both)`},
		{[]string{"sweep", "--seeds", "1", "--sut", "flonk"}, `--sut flonk: unknown system under test "flonk"`},
		{[]string{"run", "--seed", "1", "--flink-src", dir}, "--flink-src and --flink-mutant need --sut flink or both"},
		{[]string{"run", "--seed", "1", "--sut", "flink", "--flink-src", dir}, "has no flink-runtime/src/main/java"},
		{[]string{"run", "--seed", "1", "--sut", "flink", "--flink-mutant", "nope"}, `--flink-mutant: no Flink mutant "nope"`},
		{[]string{"run", "--seed", "1", "--sut", "flink", "--flink-mutant", "kgr-intersection", "--flink-src", dir}, "--flink-mutant patches a version's archive"},
		{[]string{"run", "--seed", "1", "--sut", "flink", "--flink", "1.10.1"}, "1.10.1"},
		{[]string{"replay", "--sut", "flonk", "x.txt"}, `unknown system under test "flonk"`},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("simulate %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// TestRunSUTFlink: a seed through Flink's classes (restores included) names the SUT in its
// trace, and is otherwise the model's run, byte for byte.
func TestRunSUTFlink(t *testing.T) {
	if _, err := reference.FindSource(model.Flink118, ""); err != nil && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	code, out, errs := runCLI(t, "", "run", "--seed", "4", "--steps", "20", "--sut", "flink")
	if code != exitOK {
		if os.Getenv("CI") == "" && strings.Contains(errs, "java") {
			t.Skip(errs)
		}
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	_, model, _ := runCLI(t, "", "run", "--seed", "4", "--steps", "20")
	if !strings.Contains(out, " (sut flink)\n") {
		t.Errorf("the output does not name the SUT:\n%s", out)
	}
	if strings.ReplaceAll(out, " (sut flink)", "") != model {
		t.Errorf("Flink's run differs from the model's:\n%s\nmodel:\n%s", out, model)
	}
}
