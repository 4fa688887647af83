package differential

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestUIDHashAgainstFlink: the operator IDs of random uids (ASCII, other BMP characters, surrogate
// pairs, unpaired surrogates, '?', U+FFFD, NUL), the model's OperatorIDFromUID against Flink's
// StreamGraphHasherV2 hashing a stream graph of nodes with those uids, on every version with
// sources. A graph whose uids the model gives equal IDs must be refused by Flink as a hash
// collision, and only such a graph.
func TestUIDHashAgainstFlink(t *testing.T) {
	const graphs, rounds = 100, 10
	for _, v := range versions(t) {
		j := jvm(t, v)
		r := rand.New(rand.NewPCG(27, uint64(v)))
		var nodes, refused int
		for round := 0; round < rounds; round++ {
			gs := make([]reference.UIDGraph, graphs)
			for i := range gs {
				n := 1 + r.IntN(8)
				for k := 0; k < n; k++ {
					if k > 0 && r.IntN(10) == 0 {
						// A uid again, or one that encodes like it.
						gs[i].UIDs = append(gs[i].UIDs, lookalike(r, gs[i].UIDs[r.IntN(k)]))
					} else {
						gs[i].UIDs = append(gs[i].UIDs, randomUID(r))
					}
					for from := 0; from < k; from++ {
						if r.IntN(3) == 0 {
							gs[i].Edges = append(gs[i].Edges, [2]int{from, k})
						}
					}
				}
			}
			answers, err := j.UIDHashes(gs)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			for i, g := range gs {
				ids := make([]model.OperatorID, len(g.UIDs))
				seen := map[model.OperatorID]bool{}
				collision := false
				for k, u := range g.UIDs {
					ids[k] = model.OperatorIDFromUID(javaString(u))
					collision = collision || seen[ids[k]]
					seen[ids[k]] = true
				}
				nodes += len(ids)
				a := answers[i]
				switch {
				case collision != (a.Refusal != nil):
					t.Errorf("%s: uids %q: model collision %v, Flink %v (IDs %v)", v, quoted(g.UIDs), collision, a.Refusal, a.IDs)
				case a.Refusal != nil:
					refused++
					if !strings.Contains(a.Refusal.Message, "Hash collision on user-specified ID") {
						t.Errorf("%s: uids %q: Flink refused otherwise: %v", v, quoted(g.UIDs), a.Refusal)
					}
				default:
					for k := range ids {
						if ids[k] != a.IDs[k] {
							t.Errorf("%s: uid %q: model %s, Flink %s", v, quoted(g.UIDs[k:k+1]), ids[k], a.IDs[k])
						}
					}
				}
			}
		}
		t.Logf("%s: %d graphs, %d uids, %d refused as collisions", v, graphs*rounds, nodes, refused)
	}
}

// randomUID draws a Java string as UTF-16 code units.
func randomUID(r *rand.Rand) []uint16 {
	n := r.IntN(14)
	var u []uint16
	for i := 0; i < n; i++ {
		switch r.IntN(9) {
		case 0, 1, 2:
			u = append(u, uint16(0x20+r.IntN(0x5f)))
		case 3:
			u = append(u, uint16(0xa0+r.IntN(0x7000)))
		case 4:
			hi, lo := utf16.EncodeRune(rune(0x10000 + r.IntN(0x100000)))
			u = append(u, uint16(hi), uint16(lo))
		case 5:
			u = append(u, uint16(0xD800+r.IntN(0x400))) // unpaired high (unless a low follows)
		case 6:
			u = append(u, uint16(0xDC00+r.IntN(0x400))) // unpaired low
		case 7:
			u = append(u, []uint16{'?', 0xFFFD, 0}[r.IntN(3)])
		default:
			u = append(u, uint16(0xE000+r.IntN(0x2000)))
		}
	}
	return u
}

// lookalike is u itself, or u with its unpaired surrogates replaced by '?' (the same UTF-8 in
// Java, so the same operator ID), or with a character appended.
func lookalike(r *rand.Rand, u []uint16) []uint16 {
	out := append([]uint16(nil), u...)
	switch r.IntN(3) {
	case 0:
		return out
	case 1:
		for i := 0; i < len(out); i++ {
			switch c := out[i]; {
			case c >= 0xD800 && c < 0xDC00 && i+1 < len(out) && out[i+1] >= 0xDC00 && out[i+1] < 0xE000:
				i++
			case c >= 0xD800 && c < 0xE000:
				out[i] = '?'
			}
		}
		return out
	}
	return append(out, uint16(0xD800+r.IntN(0x800)))
}

// javaString is the project's Go string for a Java string (as model/metadata reads one): UTF-8,
// pairs joined, an unpaired surrogate kept as its 3-byte generalized UTF-8 form.
func javaString(u []uint16) string {
	var b []byte
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		switch {
		case c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			b = utf8.AppendRune(b, utf16.DecodeRune(c, rune(u[i+1])))
			i++
		case c >= 0xD800 && c < 0xE000:
			b = append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6)&0x3F, 0x80|byte(c)&0x3F)
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return string(b)
}

func quoted(us [][]uint16) []string {
	var s []string
	for _, u := range us {
		s = append(s, javaString(u))
	}
	return s
}
