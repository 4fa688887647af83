package autoscaler

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// skew6 formats a skew with 6 decimals, as printf's %.6f does.
func skew6(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }

// WriteCSV writes the decisions, one row per target, as the CSV of `simulate autoscale --csv`:
// target,parallelism,aligned,limited,blocked,skew (skew with 6 decimals). It returns the write
// error.
func WriteCSV(w io.Writer, ds []Decision) error {
	var b bytes.Buffer
	b.WriteString("target,parallelism,aligned,limited,blocked,skew\n")
	for _, d := range ds {
		b.WriteString(strconv.Itoa(d.Target) + "," + strconv.Itoa(d.Parallelism) + "," + strconv.FormatBool(d.Aligned) + "," +
			strconv.FormatBool(d.Limited) + "," + strconv.FormatBool(d.Blocked) + "," + skew6(d.Skew) + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteTable writes the text form of `simulate autoscale`: a line naming the release (and the
// effective mode), the vertex, its limits and what it aligns to, then an aligned table with one
// row per decision (target, clamped target, parallelism, aligned, limited, blocked, skew). ds
// are the decisions Scale gave for p. The text is written with one Write, whose error it
// returns.
func WriteTable(w io.Writer, p Params, ds []Decision) error {
	var out bytes.Buffer
	mode := ""
	if em := p.EffectiveMode(); em != ModeUnset {
		mode = " (" + em.String() + ")"
	}
	units := "no alignment for this vertex"
	switch n := p.AlignmentUnits(); {
	case n == 0:
	case p.Input == Source && p.SourcePartitions > 0 && p.Release >= Operator110:
		units = "aligns to " + strconv.Itoa(n) + " source partitions"
	case p.Input == Source && p.SourcePartitions > 0:
		units = "aligns to " + strconv.Itoa(n) + ", the smaller of the max parallelism and the source partitions"
	default:
		units = "aligns to " + strconv.Itoa(n) + " key groups"
	}
	fmt.Fprintf(&out, "operator %s%s, %s vertex, max parallelism %d, current %d, limits %d..%d: %s\n",
		p.Release, mode, p.Input, p.MaxParallelism, p.Current, min(p.Current, p.Lower), max(p.Current, p.Upper), units)
	tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tclamped\tparallelism\taligned\tlimited\tblocked\tskew\t")
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "-"
	}
	for _, d := range ds {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", d.Target, d.Clamped, d.Parallelism, yes(d.Aligned), yes(d.Limited), yes(d.Blocked), skew6(d.Skew))
	}
	tw.Flush()
	_, err := w.Write(out.Bytes())
	return err
}
