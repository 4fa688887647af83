//go:build mutants

package mutant

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUnknownMutantStops (go test -tags mutants ./model/internal/mutant): a mutants build with
// an unknown RESTORESIM_MUTANT stops at start-up with one line on stderr and exit status 2.
func TestUnknownMutantStops(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvVar+"=range-flor")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2", err)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, `RESTORESIM_MUTANT="range-flor": no such mutant`) {
		t.Errorf("stderr %q, want one line naming the unknown mutant", msg)
	}
}

// TestOnFollowsTheEnvironment: the mutant RESTORESIM_MUTANT names is on, no other.
func TestOnFollowsTheEnvironment(t *testing.T) {
	want, _ := Lookup(os.Getenv(EnvVar))
	for _, m := range All() {
		if On(m.ID) != (m.ID == want.ID) {
			t.Errorf("On(%s) = %v with %s=%q", m.Name, On(m.ID), EnvVar, os.Getenv(EnvVar))
		}
	}
}
