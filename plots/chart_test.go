package plots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
)

func skewSeriesFor(t *testing.T, ms []int, maxP int) []SkewSeries {
	t.Helper()
	var out []SkewSeries
	for _, m := range ms {
		s := SkewSeries{Label: "M=" + strconv.Itoa(m)}
		for p := 1; p <= min(m, maxP); p++ {
			sk, err := KeyGroupSkew(m, p)
			if err != nil {
				t.Fatal(err)
			}
			s.Points = append(s.Points, sk)
		}
		out = append(out, s)
	}
	return out
}

// charts builds one of every kind of chart.
func charts(t *testing.T) map[string]*Chart {
	t.Helper()
	series := skewSeriesFor(t, []int{128, 256, 720}, 300)
	mk := func(c *Chart, err error) *Chart {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	load, err := LoadPerSubtask(sampleKeys, 128, 3)
	if err != nil {
		t.Fatal(err)
	}
	var many []KeyLoad
	for i := range 2000 {
		many = append(many, KeyLoad{Hash: int32(i), Records: int64(1 + i%5)})
	}
	wide, err := LoadPerSubtask(many, 256, 100)
	if err != nil {
		t.Fatal(err)
	}
	var moved, movedLines []Moved
	for _, m := range []int{128, 256, 720} {
		r, _ := MovedFraction(m, 80, 100)
		moved = append(moved, r)
		for q := 1; q <= 20; q++ {
			r, _ := MovedFraction(m, 8, q)
			movedLines = append(movedLines, r)
		}
	}
	return map[string]*Chart{
		"lines":      mk(SkewLines(series, false)),
		"lines-log":  mk(SkewLines(series, true)),
		"heatmap":    mk(SkewHeatMap(series)),
		"one-point":  mk(SkewLines([]SkewSeries{{Label: "M=128", Points: series[0].Points[:1]}}, true)),
		"load-bars":  mk(LoadBars(load)),
		"load-steps": mk(LoadBars(wide)),
		"moved-bars": mk(MovedChart(moved)),
		"moved-line": mk(MovedChart(movedLines)),
	}
}

// TestEncodeSmoke renders every chart to a buffer in both formats and checks the headers; the
// pixels are not golden-tested (the numbers behind them are, in skew_test.go).
func TestEncodeSmoke(t *testing.T) {
	for name, c := range charts(t) {
		var png, svg, svgFonts bytes.Buffer
		if err := c.Encode(&png, PNG, EncodeOptions{}); err != nil {
			t.Fatalf("%s: PNG: %v", name, err)
		}
		if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s: PNG output starts with %q", name, png.Bytes()[:min(8, png.Len())])
		}
		if err := c.Encode(&svg, SVG, EncodeOptions{}); err != nil {
			t.Fatalf("%s: SVG: %v", name, err)
		}
		s := svg.String()
		if !strings.HasPrefix(s, "<?xml") || !strings.Contains(s, "<svg") || !strings.HasSuffix(s, "</svg>\n") {
			t.Errorf("%s: not a complete SVG document: %.80q … %q", name, s, s[max(0, len(s)-20):])
		}
		if strings.Contains(s, "@font-face") {
			t.Errorf("%s: fonts embedded without EmbedFonts", name)
		}
		if err := c.Encode(&svgFonts, SVG, EncodeOptions{EmbedFonts: true}); err != nil {
			t.Fatalf("%s: SVG with fonts: %v", name, err)
		}
		if !strings.Contains(svgFonts.String(), "@font-face") || !strings.Contains(svgFonts.String(), "base64,") {
			t.Errorf("%s: EmbedFonts did not embed a font", name)
		}
		// Titles and axis labels are present (SVG keeps the text).
		if !strings.Contains(s, "subtask") && !strings.Contains(s, "parallelism") {
			t.Errorf("%s: no axis label in the SVG", name)
		}
	}
}

// TestEncodeDeterministic: the same chart encodes to the same bytes.
func TestEncodeDeterministic(t *testing.T) {
	c1, c2 := charts(t)["heatmap"], charts(t)["heatmap"]
	for _, f := range []Format{PNG, SVG} {
		var a, b bytes.Buffer
		if err := c1.Encode(&a, f, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c2.Encode(&b, f, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%v: two encodings differ", f)
		}
	}
}

func TestChartInputErrors(t *testing.T) {
	if _, err := SkewLines(nil, false); err == nil {
		t.Error("SkewLines(nil) accepted")
	}
	if _, err := SkewHeatMap([]SkewSeries{{Label: "x"}}); err == nil {
		t.Error("SkewHeatMap with an empty series accepted")
	}
	if _, err := LoadBars(Load{}); err == nil {
		t.Error("LoadBars of an empty load accepted")
	}
	if _, err := MovedChart(nil); err == nil {
		t.Error("MovedChart(nil) accepted")
	}
	if err := (&Chart{}).Encode(&bytes.Buffer{}, Format(0), EncodeOptions{}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Encode(Format(0)) = %v", err)
	}
}

func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want Format
	}{
		{"a.png", PNG}, {"dir/b.PNG", PNG}, {"c.svg", SVG}, {"d.Svg", SVG},
		{"e.pdf", 0}, {"png", 0}, {"f.png.txt", 0}, {"", 0},
	} {
		got, err := FormatOf(c.path)
		if got != c.want || (c.want == 0) != errors.Is(err, ErrUnknownFormat) {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", c.path, got, err, c.want)
		}
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := charts(t)["lines"]
	if err := c.WriteFile(path, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("replaced file: %v, %.8q", err, b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("files left in the directory: %q", names)
	}

	// A failed write leaves no temporary file and the old target untouched: renaming a file
	// over a non-empty directory fails after the temporary file was fully written.
	target := filepath.Join(dir, "busy.svg")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile(target, EncodeOptions{}); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if names := listDir(t, dir); len(names) != 2 {
		t.Errorf("after a failed write the directory holds %q, want out.png and busy.svg only", names)
	}

	// A chart that fails while drawing (gonum panics on some bad input) is an error, and the
	// existing file is not touched: nothing is written before the image is complete.
	broken := &Chart{width: chartWidth, height: chartHeight, draw: func(draw.Canvas) { panic("boom") }}
	if err := broken.WriteFile(path, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("broken chart: %v", err)
	}
	if b2, _ := os.ReadFile(path); !bytes.Equal(b, b2) {
		t.Error("a failed draw changed the existing file")
	}

	// Missing directory, unknown extension: errors, nothing created.
	if err := c.WriteFile(filepath.Join(dir, "missing", "a.png"), EncodeOptions{}); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if err := c.WriteFile(filepath.Join(dir, "a.jpg"), EncodeOptions{}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("a.jpg: %v", err)
	}
	if names := listDir(t, dir); len(names) != 2 {
		t.Errorf("directory holds %q", names)
	}
}

func ExampleSkewLines() {
	var series []SkewSeries
	for _, m := range []int{128, 720} {
		s := SkewSeries{Label: "M=" + strconv.Itoa(m)}
		for p := 1; p <= 100; p++ {
			sk, _ := KeyGroupSkew(m, p)
			s.Points = append(s.Points, sk)
		}
		series = append(series, s)
	}
	chart, _ := SkewLines(series, false)
	var png bytes.Buffer
	if err := chart.Encode(&png, PNG, EncodeOptions{}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")))
	// Output: true
}
