package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/internal/excerpt"
)

// Exit codes shared by every command.
const (
	exitOK        = 0
	exitViolation = 1 // an invariant was violated, or (plan) Flink would refuse the restore
	exitUsage     = 2 // bad usage or bad input
)

// env is what a command may touch: its standard streams. Files are opened by path.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// stderrIsTerminal enables progress output; false in tests.
	stderrIsTerminal bool
}

// command is one subcommand of simulate. Commands register themselves from init functions in
// their own files (one file per command), so adding a command touches no shared file.
type command struct {
	name    string
	summary string // one line for `simulate help`
	run     func(e *env, args []string) int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("simulate: internal error: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// run is the whole program: it parses args, runs one command and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, stderrIsTerminal: isTerminal(stderr)}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "simulate: missing command (run 'simulate help' for the list)")
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-version", "--version":
		name = "version"
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(e, []string{"--help"})
			}
			fmt.Fprintf(stderr, "simulate: unknown command %q (run 'simulate help' for the list)\n", args[1])
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "simulate: unknown command %q (run 'simulate help' for the list)\n", name)
		return exitUsage
	}
	return c.run(e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: simulate <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Deterministic simulation and property testing of Flink's checkpoint → restore → rescale path.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'simulate <command> --help' for a command's flags, 'simulate --version' for this build and")
	fmt.Fprintln(w, "the default Flink version of each command. Exit codes: 0 ok, 1 violation/refused, 2 bad usage or input.")
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// failf prints one line "simulate <cmd>: <message>" on stderr (made safe by excerpt.OneLine) and returns
// exitUsage.
func (e *env) failf(cmd, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "simulate %s: %s\n", cmd, excerpt.OneLine(fmt.Sprintf(format, args...)))
	return exitUsage
}

// parseFlags parses flags anywhere among args (cliflags.Set.ParseArgs) and returns the
// positional arguments. On --help it prints the command's help on stdout and returns done with
// code 0; on a parse error it prints one line on stderr and returns done with code 2.
func (e *env) parseFlags(fs *cliflags.Set, args []string) (positional []string, done bool, code int) {
	positional, err := fs.ParseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.WriteHelp(e.stdout)
		return nil, true, exitOK
	}
	if err != nil {
		return nil, true, e.failf(fs.Name(), "%v (see 'simulate %s --help')", err, fs.Name())
	}
	return positional, false, 0
}
