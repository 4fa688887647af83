package oracle

import (
	"slices"
	"testing"
)

// TestExpectLocalRead pins the approval rules of PrioritizedOperatorSubtaskState.Builder as
// re-read for local copies after a rescale: operator state by the name → offsets map only (so
// another subtask's stream with an equal map is swapped), keyed state by key-group range (1.18:
// one handle each; 1.19+: per handle, mixed with the JobManager's).
func TestExpectLocalRead(t *testing.T) {
	op := func(stream, m string) LocalHandle { return LocalHandle{Stream: stream, NameToOffsets: m} }
	kg := func(stream string, a, b int) LocalHandle {
		return LocalHandle{Stream: stream, Keyed: true, First: a, Last: b}
	}
	for _, c := range []struct {
		name      string
		jm, local []LocalHandle
		mixed     bool
		want      LocalRead
	}{
		{"op same subtask", []LocalHandle{op("s0", "o=SPLIT,0")}, []LocalHandle{op("s0", "o=SPLIT,0")}, false, LocalRead{[]string{"s0"}, true, false}},
		{"op swapped", []LocalHandle{op("s1", "o=SPLIT,0")}, []LocalHandle{op("s0", "o=SPLIT,0")}, false, LocalRead{[]string{"s0"}, true, true}},
		{"op other offsets", []LocalHandle{op("s1", "o=SPLIT,0,8")}, []LocalHandle{op("s0", "o=SPLIT,0")}, false, LocalRead{[]string{"s1"}, false, false}},
		{"op two handles", []LocalHandle{op("s0", "o=SPLIT,0"), op("s1", "o=SPLIT,0")}, []LocalHandle{op("s0", "o=SPLIT,0")}, false, LocalRead{[]string{"s0", "s1"}, false, false}},
		{"op no copy", []LocalHandle{op("s1", "o=SPLIT,0")}, nil, false, LocalRead{[]string{"s1"}, false, false}},
		{"keyed equal range", []LocalHandle{kg("k0", 0, 31)}, []LocalHandle{kg("k0", 0, 31)}, false, LocalRead{[]string{"k0"}, true, false}},
		{"keyed cut range", []LocalHandle{kg("k0", 0, 15)}, []LocalHandle{kg("k0", 0, 31)}, false, LocalRead{[]string{"k0"}, false, false}},
		{"keyed two handles 1.18", []LocalHandle{kg("k0", 0, 31), kg("k1", 32, 63)}, []LocalHandle{kg("k0", 0, 31)}, false, LocalRead{[]string{"k0", "k1"}, false, false}},
		{"keyed mixed 1.19", []LocalHandle{kg("k0", 0, 31), kg("k1", 32, 63)}, []LocalHandle{kg("k0", 0, 31)}, true, LocalRead{[]string{"k0", "k1"}, true, false}},
		{"keyed mixed none", []LocalHandle{kg("k2", 64, 95), kg("k3", 96, 127)}, []LocalHandle{kg("k1", 32, 63)}, true, LocalRead{[]string{"k2", "k3"}, false, false}},
	} {
		got := ExpectLocalRead(c.jm, c.local, c.mixed)
		if !slices.Equal(got.Streams, c.want.Streams) || got.Local != c.want.Local || got.Swapped != c.want.Swapped {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
