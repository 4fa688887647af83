package properties

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/sim"
	"pgregory.net/rapid"
)

// Fuzz targets (rapid.MakeFuzz): `go test ./properties -run '^$' -fuzz FuzzParsePlan`. As
// plain tests they run the seed corpus in testdata/fuzz/<name>/, where findings are committed
// as regression cases.

// scenarioText draws scenario-like text: lines of known keywords with fragments of arguments.
var scenarioText = rapid.Custom(func(t *rapid.T) string {
	words := []string{"seed", "flink", "job", "process", "broadcast", "checkpoint", "savepoint", "fail", "restart",
		"retain", "tm-restart", "tm-loss", "jm-failover", "fault", "resume", "#", "->", "abort", "claim", "n=", "n=-1",
		"n=99999999999999999999", "keys=int/uniform/10", "keys=string/zipf/0", "splits=1", "splits=0", "source=p1/uid:s",
		"keyed=p1/m0/uid:k", "keyed=p2/m1/uid:k/hash:zz", "kind=delete-file", "vertex=1", "subtask=-3", "tm=7",
		"unaligned=true", "1.18", "1.10.1", "=", "/", ":", "\t", "\u00e9", "\xff"}
	lines := rapid.SliceOfN(rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(words), rapid.String()), 0, 8), 0, 12).Draw(t, "lines")
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.Join(l, " "))
		b.WriteByte('\n')
	}
	return b.String()
})

// parsePlanProperty: ParsePlan never panics; an error wraps sim.ErrScenario; a parsed plan
// renders to text that parses back to the same plan.
func parsePlanProperty(t *rapid.T) {
	text := rapid.OneOf(scenarioText, rapid.String()).Draw(t, "text")
	p, err := sim.ParsePlan(text)
	if err != nil {
		if !errors.Is(err, sim.ErrScenario) {
			t.Fatalf("ParsePlan(%q): error %v does not wrap sim.ErrScenario", text, err)
		}
		return
	}
	q, err := sim.ParsePlan(p.Render())
	if err != nil {
		t.Fatalf("ParsePlan(%q) = a plan whose rendering does not parse: %v\n%s", text, err, p.Render())
	}
	if d := cmp.Diff(p, q); d != "" {
		t.Fatalf("ParsePlan(%q): render/parse round trip differs (-want +got):\n%s", text, d)
	}
}

func TestParsePlanProperty(t *testing.T) { rapid.Check(t, parsePlanProperty) }

func FuzzParsePlan(f *testing.F) { f.Fuzz(rapid.MakeFuzz(parsePlanProperty)) }

// readMetadataProperty: the _metadata reader `simulate inspect` uses never panics on damaged
// input: a real file (written by the simulator's writer) cut short or with a flipped byte is
// read or refused with an error.
func readMetadataProperty(t *rapid.T) {
	var b []byte
	if rapid.Bool().Draw(t, "damage a real file") {
		md := incCheckpoint(7, []string{"1.sst", "2.sst"})
		ops := append([]model.OperatorState{withState(model.OperatorIDFromUID("op"), 2, 128)}, md.Operators...)
		f, err := metadata.FromModel(model.CheckpointMetadata{CheckpointID: 7, Operators: ops})
		if err != nil {
			t.Fatalf("metadata.FromModel: %v", err)
		}
		if b, err = metadata.Marshal(f); err != nil {
			t.Fatalf("metadata.Marshal: %v", err)
		}
		if _, err := metadata.ReadFrom(bytes.NewReader(b), 1<<16); err != nil {
			t.Fatalf("an undamaged file does not read back: %v", err)
		}
		b = b[:rapid.IntRange(0, len(b)).Draw(t, "cut at")]
		if len(b) > 0 {
			i := rapid.IntRange(0, len(b)-1).Draw(t, "flip at")
			b[i] ^= rapid.Byte().Draw(t, "flip")
		}
	} else {
		b = rapid.SliceOfN(rapid.Byte(), 0, 512).Draw(t, "bytes")
	}
	_, _ = metadata.ReadFrom(bytes.NewReader(b), 1<<16)
}

func TestReadMetadataProperty(t *testing.T) { rapid.Check(t, readMetadataProperty) }

func FuzzReadMetadata(f *testing.F) { f.Fuzz(rapid.MakeFuzz(readMetadataProperty)) }
