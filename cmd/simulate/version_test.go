package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersion: --version (and 'simulate version') prints the module's version and VCS state and
// the default Flink version of each kind of command, on stdout, exit 0 (issue 28: there was no
// --version).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "simulate ") || !strings.Contains(out, defaultsLine) {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, errs, out)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/restoresim/restoresim", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}, {Key: "-tags", Value: "mutants"}}}
	want := "simulate v1.2.3 (github.com/restoresim/restoresim, commit 0123456789ab of 2026-12-01T10:00:00Z, modified; tags mutants; go1.26.1)\n" +
		"Flink versions modelled: 1.10.1, 1.18, 1.19, 1.20, 2.0, 2.1, 2.2, 2.3, master\n" + defaultsLine + "\n"
	if got := versionText(bi, true); got != want {
		t.Errorf("versionText:\n%s\nwant:\n%s", got, want)
	}
	if got := versionText(nil, false); !strings.HasPrefix(got, "simulate (unknown version: no build information)\n") {
		t.Errorf("versionText without build info:\n%s", got)
	}
}

// defaultsLine is the last line of --version: what --flink defaults to, and why.
const defaultsLine = "default --flink: 1.18 for run, sweep and repartition (the reference model: 1.18 is modelled bit-exact, the other versions as their differences from it); 2.3 for plan and moved --from-savepoint (the newest modelled release: a savepoint is restored by the Flink you run)"

// TestFlinkDefaultsExplained: each command with a default Flink version says which and why in
// its --help (issue 28: plan defaulted to 2.3 and run to 1.18, and nothing said so).
func TestFlinkDefaultsExplained(t *testing.T) {
	for cmd, want := range map[string]string{
		"run":         "--flink defaults to 1.18, " + simFlinkReason,
		"sweep":       "--flink defaults to 1.18, " + simFlinkReason,
		"repartition": "--flink defaults to 1.18, " + simFlinkReason,
		"plan":        "--flink defaults to 2.3, " + savepointFlinkReason,
		"moved":       "--from-savepoint runs Flink 2.3, " + savepointFlinkReason,
	} {
		_, out, _ := runCLI(t, "", cmd, "--help")
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("%s --help does not say %q:\n%s", cmd, want, out)
		}
	}
}
