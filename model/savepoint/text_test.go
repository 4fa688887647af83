package savepoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// openSynthetic opens syntheticMetadata as chk-3.
func openSynthetic(t *testing.T) *Savepoint {
	t.Helper()
	sp, err := Open(fstest.MapFS{"chk-3/_metadata": {Data: syntheticMetadata(t)}}, "/chk-3", "chk-3")
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// The inspection tree of the synthetic file: sizes per operator, subtask, handle and key group.
func TestSavepointWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := openSynthetic(t).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`chk-3/_metadata: format version 4 (Flink 1.16–1.20), checkpoint 3, 1 operators, 50 state bytes`,
		`properties: checkpoint "Checkpoint", sharing FORWARD_BACKWARD; forced false, unclaimed false; discarded when subsumed, finished, cancelled, failed, suspended`,
		`operator ` + model.OperatorIDFromUID("my-uid").String() + `: parallelism 2, max parallelism 8, 1 subtask entries, 50 state bytes`,
		`  subtask 1: 50 state bytes`,
		`    managed keyed state: KeyGroupsStateHandle, key groups 4..7, 50 bytes`,
		`      in ByteStreamStateHandle 50 bytes inline`,
		`      bytes per key group:`,
		`            4: 4 3 18 20`,
		``}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	unreadable := &Savepoint{Path: "v1", FormatVersion: 1, Unreadable: metadata.ErrUnsupportedVersion}
	b.Reset()
	if err := unreadable.WriteText(&b); !errors.Is(err, metadata.ErrUnsupportedVersion) || b.Len() != 0 {
		t.Errorf("no File: %v, %q", err, b.String())
	}
}

// The plan of the synthetic file at P=4 as text.
func TestRestorePlanWriteText(t *testing.T) {
	pl, err := PlanRestore(openSynthetic(t), Options{Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := pl.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	id := model.OperatorIDFromUID("my-uid").String()
	want := strings.Join([]string{
		`chk-3/_metadata: format version 4, checkpoint 3; Flink 1.18 restore into parallelism 4`,
		`restore: OK`,
		`max restorable parallelism: 8 (the largest --parallelism at which the whole restore succeeds)`,
		`operator ` + id + `: parallelism 2 -> 4, max parallelism 8, task "operator ` + id + `", 50 state bytes`,
		`  note: the task's max parallelism 8 is adopted from the restored state (it was not configured; default 128)`,
		`  bytes read: 55 by 4 subtasks (0..43 each), read amplification 1.10x`,
		`  subtask 0: key groups 0..1, keyed state 0 bytes, operator state 0 entries, 0 bytes`,
		`  subtask 1: key groups 2..3, keyed state 0 bytes, operator state 0 entries, 0 bytes`,
		`  subtask 2: key groups 4..5, keyed state 7 bytes, operator state 0 entries, 0 bytes`,
		`    managed keyed: old subtask 1 key groups 4..5 (KeyGroupsStateHandle), 7 bytes`,
		`  subtask 3: key groups 6..7, keyed state 38 bytes, operator state 0 entries, 0 bytes`,
		`    managed keyed: old subtask 1 key groups 6..7 (KeyGroupsStateHandle), 38 bytes`,
		``}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if err := pl.WriteText(failingWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("a failing writer: %v", err)
	}
}

var errWrite = errors.New("disk full")

// failingWriter fails every Write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// pairsText keeps twelve pairs, and elides the middle of longer lists.
func TestPairsText(t *testing.T) {
	pairs := func(n int) [][2]int {
		var l [][2]int
		for i := range n {
			l = append(l, [2]int{i % 3, i})
		}
		return l
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "[]"},
		{2, "[0:0 1:1]"},
		{12, "[0:0 1:1 2:2 0:3 1:4 2:5 0:6 1:7 2:8 0:9 1:10 2:11]"},
		{13, "[0:0 1:1 2:2 0:3 1:4 2:5 ... (1 more) 1:7 2:8 0:9 1:10 2:11 0:12]"},
		{40, "[0:0 1:1 2:2 0:3 1:4 2:5 ... (28 more) 1:34 2:35 0:36 1:37 2:38 0:39]"},
	} {
		if got := pairsText(pairs(tc.n)); got != tc.want {
			t.Errorf("%d pairs: %s, want %s", tc.n, got, tc.want)
		}
	}
}

// TestWriteTextDamagedFiles renders (text and JSON) every single-bit corruption of a small file
// that the reader still accepts: no panic, and the JSON is valid.
func TestWriteTextDamagedFiles(t *testing.T) {
	b := syntheticMetadata(t)
	accepted := 0
	c := make([]byte, len(b))
	for i := range b {
		for bit := 0; bit < 8; bit++ {
			copy(c, b)
			c[i] ^= 1 << bit
			f, err := metadata.Read(c)
			if err != nil {
				continue
			}
			accepted++
			var text bytes.Buffer
			if err := (&Savepoint{Path: "_metadata", FormatVersion: f.Version, File: f}).WriteText(&text); err != nil {
				t.Fatalf("flip %d.%d: %v", i, bit, err)
			}
			if _, err := json.Marshal(Summarize(f)); err != nil {
				t.Fatalf("flip %d.%d: %v", i, bit, err)
			}
		}
	}
	if accepted == 0 {
		t.Errorf("no corrupted variant was accepted; the test renders nothing")
	}
}
