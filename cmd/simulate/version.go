package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
)

// The default Flink versions. The simulator's commands (run, sweep; replay reads the version
// from its file) and repartition model 1.18 by default, the savepoint commands (plan, moved
// --from-savepoint) the newest modelled release; each command's --help and --version say why.
const (
	simFlinkDefault       = model.Flink118
	savepointFlinkDefault = model.NewestFlinkRelease
)

// simFlinkReason and savepointFlinkReason say why each default is what it is.
const (
	simFlinkReason       = "the reference model: 1.18 is modelled bit-exact, the other versions as their differences from it"
	savepointFlinkReason = "the newest modelled release: a savepoint is restored by the Flink you run"
)

// simFlinkNote is the paragraph of the --help of run, sweep and repartition on --flink's default.
var simFlinkNote = fmt.Sprintf("--flink defaults to %s, %s ('simulate plan' defaults to %s, the newest release: see 'simulate --version').",
	simFlinkDefault, simFlinkReason, savepointFlinkDefault)

// savepointFlinkNote is the paragraph of plan's --help on --flink's default.
var savepointFlinkNote = fmt.Sprintf("--flink defaults to %s, %s ('simulate run' and 'sweep' default to %s, the simulator's reference model: see 'simulate --version').",
	savepointFlinkDefault, savepointFlinkReason, simFlinkDefault)

func init() {
	register(&command{name: "version", summary: "the version of this build and the Flink versions it models (also --version)", run: runVersion})
}

func runVersion(e *env, args []string) int {
	fs := cliflags.New("version", "version (or --version)", "Prints the module's version and the commit it was built from (runtime/debug.ReadBuildInfo), the\nFlink versions modelled, and the default --flink of each command and why.")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("version", "unexpected argument %q (version takes none)", pos[0])
	}
	bi, ok := debug.ReadBuildInfo()
	return writeOut(e, "version", []byte(versionText(bi, ok)))
}

// versionText renders the build information: "simulate VERSION (module, commit C of TIME,
// modified; tags T; goX)", the Flink versions modelled and the default --flink of each kind of
// command with its reason.
func versionText(bi *debug.BuildInfo, ok bool) string {
	var b strings.Builder
	if !ok || bi == nil {
		b.WriteString("simulate (unknown version: no build information)\n")
	} else {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		v := bi.Main.Version
		if v == "" {
			v = "(devel)"
		}
		parts := []string{bi.Main.Path}
		if rev := settings["vcs.revision"]; rev != "" {
			c := "commit " + rev[:min(len(rev), 12)]
			if t := settings["vcs.time"]; t != "" {
				c += " of " + t
			}
			if settings["vcs.modified"] == "true" {
				c += ", modified"
			}
			parts[0] += ", " + c
		}
		if tags := settings["-tags"]; tags != "" {
			parts = append(parts, "tags "+tags)
		}
		parts = append(parts, bi.GoVersion)
		fmt.Fprintf(&b, "simulate %s (%s)\n", v, strings.Join(parts, "; "))
	}
	fmt.Fprintf(&b, "Flink versions modelled: %s\n", model.FlinkVersionNames())
	fmt.Fprintf(&b, "default --flink: %s for run, sweep and repartition (%s); %s for plan and moved --from-savepoint (%s)\n",
		simFlinkDefault, simFlinkReason, savepointFlinkDefault, savepointFlinkReason)
	return b.String()
}
