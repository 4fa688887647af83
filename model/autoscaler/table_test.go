package autoscaler

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var errWrite = errors.New("disk full")

// failingWriter fails every Write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// WriteTable and WriteCSV render the decisions of 1.15 at current 65, upper 100: 60 aligns to
// 64; 70 would align to 128, above the limit, and the downward search would reverse the
// scaling, so the release keeps 65 (limited and blocked).
func TestWriteTableAndCSV(t *testing.T) {
	p := Params{Release: Operator115, MaxParallelism: 128, Current: 65, Input: Hash, Lower: DefaultLower, Upper: 100}
	var ds []Decision
	for _, target := range []int{60, 70} {
		d, err := Scale(p, target)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, p, ds); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"operator 1.15 (EVENLY_SPREAD), hash vertex, max parallelism 128, current 65, limits 1..100: aligns to 128 key groups",
		"  target  clamped  parallelism  aligned  limited  blocked      skew",
		"      60       60           64      yes        -        -  1.000000",
		"      70       70           65        -      yes      yes  1.015625",
		""}, "\n")
	if b.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteCSV(&b, ds); err != nil {
		t.Fatal(err)
	}
	if want := "target,parallelism,aligned,limited,blocked,skew\n60,64,true,false,false,1.000000\n70,65,false,true,true,1.015625\n"; b.String() != want {
		t.Errorf("CSV %q, want %q", b.String(), want)
	}
	if err := WriteTable(failingWriter{}, p, ds); !errors.Is(err, errWrite) {
		t.Errorf("table to a failing writer: %v", err)
	}
	if err := WriteCSV(failingWriter{}, ds); !errors.Is(err, errWrite) {
		t.Errorf("CSV to a failing writer: %v", err)
	}
}

// The header line says what a source vertex aligns to, per release, and when nothing aligns.
func TestWriteTableUnits(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Release: OperatorMain, MaxParallelism: 128, Current: 4, Input: Source, SourcePartitions: 12, Lower: DefaultLower, Upper: DefaultUpper}, "aligns to 12 source partitions"},
		{Params{Release: Operator18, MaxParallelism: 128, Current: 4, Input: Source, SourcePartitions: 12, Lower: DefaultLower, Upper: DefaultUpper}, "aligns to 12, the smaller of the max parallelism and the source partitions"},
		{Params{Release: OperatorMain, MaxParallelism: 128, Current: 4, Input: Rebalance, Lower: DefaultLower, Upper: DefaultUpper}, "no alignment for this vertex"},
	} {
		var b bytes.Buffer
		if err := WriteTable(&b, c.p, nil); err != nil {
			t.Fatal(err)
		}
		if line, _, _ := strings.Cut(b.String(), "\n"); !strings.HasSuffix(line, ": "+c.want) {
			t.Errorf("%+v: %q, want it to end in %q", c.p, line, c.want)
		}
	}
}
