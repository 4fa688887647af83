package reference

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/restoresim/restoresim/model"
)

// Options configure Start.
type Options struct {
	// FlinkSrc is a Flink source tree to compile instead of the version's archive ("" = the
	// archive, or $RESTORESIM_FLINK_SRC).
	FlinkSrc string
	// CacheDir holds the builds ("" = DefaultCacheDir()).
	CacheDir string
	// Timeout bounds one case (default 60 s; the first case also pays the JVM's start).
	Timeout time.Duration
}

// JVM is one long-lived Java process running the reference driver for one Flink version. Its
// methods are safe for use by one goroutine at a time.
type JVM struct {
	Version model.FlinkVersion
	Build   *Build
	timeout time.Duration

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *tail
	dead   error
}

// Start compiles (or finds in the cache) the reference of a version and starts its JVM.
func Start(v model.FlinkVersion, opt Options) (*JVM, error) {
	src, err := FindSource(v, opt.FlinkSrc)
	if err != nil {
		return nil, err
	}
	b, err := Compile(src, opt.CacheDir)
	if err != nil {
		return nil, err
	}
	j := &JVM{Version: v, Build: b, timeout: opt.Timeout}
	if j.timeout <= 0 {
		j.timeout = 60 * time.Second
	}
	if err := j.start(); err != nil {
		return nil, err
	}
	return j, nil
}

func (j *JVM) start() error {
	args := []string{"-Xss8m", "-XX:+UseSerialGC"}
	args = append(args, strings.Fields(os.Getenv(JVMOptsEnv))...)
	args = append(args, "-cp", j.Build.ClassPath, "restoresim.reference.Driver")
	cmd := exec.Command("java", args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	j.stderr = &tail{}
	cmd.Stderr = j.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: starting java: %v", ErrNoJava, err)
	}
	lines := make(chan []byte, 256)
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			l, err := r.ReadBytes('\n')
			if len(l) > 0 && err == nil {
				lines <- bytes.TrimRight(l, "\r\n")
				continue
			}
			close(lines)
			return
		}
	}()
	j.cmd, j.stdin, j.lines, j.dead = cmd, stdin, lines, nil
	return nil
}

// JVMOptsEnv names the environment variable whose words are added to the reference JVM's
// options (after the driver's own), e.g. -XX:StartFlightRecording=filename=/tmp/ref.jfr to
// profile Flink's side of a run.
const JVMOptsEnv = "RESTORESIM_JVM_OPTS"

// ErrJVM reports a JVM that crashed, timed out or answered something that is not a line of JSON.
var ErrJVM = errors.New("reference JVM")

// call sends one request line and returns the answer line. A JVM that died or timed out is
// killed and started again on the next call.
func (j *JVM) call(req []byte) ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cmd == nil || j.dead != nil {
		if j.cmd != nil {
			j.kill()
		}
		if err := j.start(); err != nil {
			return nil, err
		}
	}
	if bytes.IndexByte(req, '\n') >= 0 {
		req = bytes.ReplaceAll(req, []byte("\n"), []byte(" "))
	}
	if _, err := j.stdin.Write(append(req, '\n')); err != nil {
		j.dead = j.crashed("writing a case")
		return nil, j.dead
	}
	timer := time.NewTimer(j.timeout)
	defer timer.Stop()
	select {
	case l, ok := <-j.lines:
		if !ok {
			j.dead = j.crashed("reading the answer")
			return nil, j.dead
		}
		return l, nil
	case <-timer.C:
		j.dead = fmt.Errorf("%w (Flink %s): no answer within %s; the JVM is restarted for the next case", ErrJVM, j.Version, j.timeout)
		j.kill()
		return nil, j.dead
	}
}

func (j *JVM) crashed(doing string) error {
	_ = j.cmd.Wait()
	last := j.stderr.lastLine()
	if last == "" {
		last = "no message on stderr"
	}
	return fmt.Errorf("%w (Flink %s) exited while %s: %s", ErrJVM, j.Version, doing, last)
}

func (j *JVM) kill() {
	if j.cmd != nil && j.cmd.Process != nil {
		_ = j.cmd.Process.Kill()
		_ = j.cmd.Wait()
	}
	j.cmd = nil
}

// Assign runs one assignment case (one JSON object in the format of ASSIGN-CASE.md) through
// Flink's StateAssignmentOperation and returns Flink's answer line, as the driver prints it:
// refusals carry "stage", "class", "message" and "at" (the top stack frame).
func (j *JVM) Assign(caseJSON []byte) ([]byte, error) {
	req := make([]byte, 0, len(caseJSON)+32)
	req = append(req, `{"op":"assign","case":`...)
	req = append(req, bytes.TrimSpace(caseJSON)...)
	req = append(req, '}')
	return j.call(req)
}

// AssignSame is Assign with the answer line the caller expects (e.g. the model's answer): the
// request carries its SHA-256, and when Flink's own answer line has that digest the driver answers
// Same in its place, so that an answer that agrees is neither shipped back nor read. Unlike
// AssignAllSame's, the digest is also compared with that of Flink's answer line without the
// state-handle ids Flink drew at random (the "state_handle_id" of a keyed handle that no handle
// of the case carries: one Flink made, e.g. a key-group range's intersection, or one the case gave
// without an id) — ids the caller cannot know. Same thus means: Flink's answer line is the
// expected one, but for the keyed handles' drawn ids the expected line leaves out. Any other
// answer line is Flink's, as Assign gives it.
func (j *JVM) AssignSame(caseJSON, expect []byte) ([]byte, error) {
	return j.call(sameRequest(caseJSON, expect, true))
}

func sameRequest(caseJSON, expect []byte, withoutDrawnIDs bool) []byte {
	d := sha256.Sum256(expect)
	c := bytes.TrimSpace(caseJSON)
	req := make([]byte, 0, len(c)+128)
	req = append(req, `{"op":"assign","same_sha256":"`...)
	req = hex.AppendEncode(req, d[:])
	req = append(req, '"', ',')
	if withoutDrawnIDs {
		req = append(req, `"same_without_drawn_ids":true,`...)
	}
	req = append(req, `"case":`...)
	req = append(req, c...)
	return append(req, '}')
}

// AssignAll runs many assignment cases through Flink's StateAssignmentOperation and returns
// Flink's answer lines in the order of the cases, as Assign would one by one. The cases are
// pipelined: all are written to the JVM while its answers are read, so that the JVM never waits
// for the next case and the caller pays one round trip, not one a case. The timeout bounds the
// wait for each answer. An error (a crash, a timeout) leaves the JVM to be restarted on the next
// call, as Assign's do.
func (j *JVM) AssignAll(cases [][]byte) ([][]byte, error) {
	reqs := make([][]byte, len(cases))
	for i, c := range cases {
		req := make([]byte, 0, len(c)+32)
		req = append(req, `{"op":"assign","case":`...)
		req = append(req, bytes.TrimSpace(c)...)
		req = append(req, '}')
		reqs[i] = req
	}
	return j.callAll(reqs)
}

// Same is the answer line of AssignAllSame to a case whose Flink answer line has the digest the
// caller sent with it.
var Same = []byte(`{"same_sha256":true}`)

// AssignAllSame is AssignAll where each case goes with the SHA-256 of the answer line its caller
// expects (expect[i], e.g. the model's answer): Flink's driver computes its own answer line as
// AssignAll's, and answers Same in its place when that line's SHA-256 is the expected one, so that
// the answers that agree byte for byte are neither shipped back nor read. Any other answer line is
// Flink's, as AssignAll gives it.
func (j *JVM) AssignAllSame(cases, expect [][]byte) ([][]byte, error) {
	if len(expect) != len(cases) {
		return nil, fmt.Errorf("%d expected answers for %d cases", len(expect), len(cases))
	}
	reqs := make([][]byte, len(cases))
	for i, c := range cases {
		reqs[i] = sameRequest(c, expect[i], false)
	}
	return j.callAll(reqs)
}

// callAll sends request lines while reading their answers (see AssignAll).
func (j *JVM) callAll(reqs [][]byte) ([][]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cmd == nil || j.dead != nil {
		if j.cmd != nil {
			j.kill()
		}
		if err := j.start(); err != nil {
			return nil, err
		}
	}
	stdin := j.stdin
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<16)
		for _, req := range reqs {
			if bytes.IndexByte(req, '\n') >= 0 {
				req = bytes.ReplaceAll(req, []byte("\n"), []byte(" "))
			}
			if _, err := w.Write(req); err != nil {
				written <- err
				return
			}
			if err := w.WriteByte('\n'); err != nil {
				written <- err
				return
			}
		}
		written <- w.Flush()
	}()
	out := make([][]byte, 0, len(reqs))
	timer := time.NewTimer(j.timeout)
	defer timer.Stop()
	for len(out) < len(reqs) {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(j.timeout)
		select {
		case l, ok := <-j.lines:
			if !ok {
				j.dead = j.crashed("reading the answers")
				<-written
				return nil, j.dead
			}
			out = append(out, l)
		case <-timer.C:
			j.dead = fmt.Errorf("%w (Flink %s): no answer within %s; the JVM is restarted for the next case", ErrJVM, j.Version, j.timeout)
			j.kill()
			<-written
			return nil, j.dead
		}
	}
	if err := <-written; err != nil {
		j.dead = j.crashed("writing the cases")
		return nil, j.dead
	}
	return out, nil
}

// Ping checks that the JVM answers.
func (j *JVM) Ping() error {
	l, err := j.call([]byte(`{"op":"ping"}`))
	if err != nil {
		return err
	}
	if string(l) != `{"ok":true}` {
		return fmt.Errorf("%w (Flink %s): unexpected answer to ping: %.200s", ErrJVM, j.Version, l)
	}
	return nil
}

// Close stops the JVM.
func (j *JVM) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cmd == nil {
		return nil
	}
	_ = j.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- j.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = j.cmd.Process.Kill()
		<-done
	}
	j.cmd = nil
	return nil
}

// tail keeps the last few KB a JVM wrote to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = t.buf[len(t.buf)-8192:]
	}
	return len(p), nil
}

// lastLine is the most telling line: the last exception line, else the last non-empty one
// (SLF4J's no-binding warning is skipped).
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(t.buf), "\n")
	last := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "SLF4J:") || strings.HasPrefix(l, "at ") {
			continue
		}
		if strings.Contains(l, "Exception") || strings.Contains(l, "Error") {
			return l
		}
		last = l
	}
	return last
}
