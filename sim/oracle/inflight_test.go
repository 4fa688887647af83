package oracle

import (
	"strings"
	"testing"
)

// TestProcessedAfter: of each split read in a step, the last 1 + n mod 3 records (all, when
// fewer were read) are in flight; a split not read has nothing in flight.
func TestProcessedAfter(t *testing.T) {
	before := map[int]int64{0: 10, 1: 4, 2: 7}
	after := map[int]int64{0: 20, 1: 5, 2: 7}
	got := ProcessedAfter(4, before, after) // hold 2
	want := map[int]int64{0: 18, 1: 4, 2: 7}
	for s, o := range want {
		if got[s] != o {
			t.Errorf("split %d: processed up to %d, want %d", s, got[s], o)
		}
	}
	if n := InFlightPerSplit(3); n != 1 {
		t.Errorf("InFlightPerSplit(3) = %d, want 1", n)
	}
}

// TestCheckReplay: a replay of exactly the records in flight, each on its key's owner, passes;
// a dropped, a duplicated, an extra and a misrouted record are each reported.
func TestCheckReplay(t *testing.T) {
	const maxPar, p = 128, 4
	owner := func(key string) int {
		_, o, err := Route(Int, key, maxPar, p)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	want := []InFlightRecord{{0, 5, "1"}, {0, 6, "2"}, {1, 3, "3"}}
	good := []Replayed{{want[2], owner("3")}, {want[0], owner("1")}, {want[1], owner("2")}}
	if got := CheckReplay(Int, maxPar, p, want, good, 0); len(got) != 0 {
		t.Fatalf("a faithful replay is reported: %v", got)
	}
	for name, c := range map[string]struct {
		got  []Replayed
		word string
	}{
		"dropped":    {good[1:], "dropped"},
		"duplicated": {append(append([]Replayed{}, good...), good[0]), "duplicated"},
		"extra":      {append(append([]Replayed{}, good...), Replayed{InFlightRecord{2, 9, "4"}, owner("4")}), "not in flight"},
		"misrouted":  {[]Replayed{{want[2], (owner("3") + 1) % p}, good[1], good[2]}, "its key's owner"},
	} {
		got := CheckReplay(Int, maxPar, p, want, c.got, 0)
		if len(got) != 1 || !strings.Contains(got[0], c.word) {
			t.Errorf("%s: problems %q, want one saying %q", name, got, c.word)
		}
	}
}
