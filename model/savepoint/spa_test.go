package savepoint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model/metadata"
)

// nullProps gives b with its properties replaced by a serialized Java null, as the State
// Processor API writes a savepoint.
func nullProps(t *testing.T, b []byte) []byte {
	t.Helper()
	f, err := metadata.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	f.Properties = nil
	out, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A State Processor API savepoint (null properties) is read, shown as such by inspect, and
// planned as Flink restores it: as a savepoint, with the same plan as the file with
// properties.
func TestStateProcessorAPISavepoint(t *testing.T) {
	syn := syntheticMetadata(t)
	real := filepath.Join(realmeta.Sub(t, "real"), "restore-tests.stream-exec-join_1.join-non-window-inner-join-with-null-cond.metadata")
	rb, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		p    int
	}{{"synthetic", syn, 4}, {"real", rb, 2}} {
		orig, err := Read(bytes.NewReader(c.b), c.name)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := Read(bytes.NewReader(nullProps(t, c.b)), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var text bytes.Buffer
		if err := sp.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if want := "\nproperties: null, as the State Processor API writes them (restored as a savepoint)\n"; !strings.Contains(text.String(), want) {
			t.Errorf("%s: inspect text lacks %q:\n%s", c.name, want, text.String())
		}
		j, _ := json.Marshal(Summarize(sp.File))
		if !bytes.Contains(j, []byte(`"properties":null,"null_properties":true,`)) {
			t.Errorf("%s: summary JSON %s", c.name, j)
		}
		if j, _ := json.Marshal(Summarize(orig.File)); bytes.Contains(j, []byte("null_properties")) {
			t.Errorf("%s: null_properties on a file with properties", c.name)
		}
		var a, b bytes.Buffer
		for _, x := range []struct {
			sp *Savepoint
			w  *bytes.Buffer
		}{{orig, &a}, {sp, &b}} {
			pl, err := PlanRestore(x.sp, Options{Parallelism: c.p})
			if err != nil {
				t.Fatal(err)
			}
			if pl.Error != nil {
				t.Fatalf("%s: refused: %s", c.name, *pl.Error)
			}
			if err := pl.WriteText(x.w); err != nil {
				t.Fatal(err)
			}
		}
		if a.String() != b.String() {
			t.Errorf("%s: plan with null properties differs:\n%s\nwant\n%s", c.name, b.String(), a.String())
		}
	}
}
