package plots

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/restoresim/restoresim/model/autoscaler"
)

// The text forms of the analytics, as 'simulate skew' and 'simulate advise' print them. Every
// ratio and share is printed with 6 decimals (ffmt). A report is built in memory and written
// with one Write; a CSV is written through a buffer. Each returns the first write error.

// ffmt formats a ratio or share with 6 decimals, as printf's %.6f does (correctly rounded from
// the float64, ties to even on its exact binary value).
func ffmt(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }

// writeAll writes b to w in one Write.
func writeAll(w io.Writer, b *bytes.Buffer) error {
	_, err := w.Write(b.Bytes())
	return err
}

// WriteSkewCSV writes every point of the series (in order: M ascending, then p ascending, as
// KeyGroupSkews gives them) as CSV with the header
// max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean.
func WriteSkewCSV(w io.Writer, series []SkewSeries) error {
	out := bufio.NewWriterSize(w, 1<<16)
	out.WriteString("max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean\n")
	for _, s := range series {
		for _, pt := range s.Points {
			out.WriteString(strconv.Itoa(pt.MaxParallelism))
			out.WriteByte(',')
			out.WriteString(strconv.Itoa(pt.Parallelism))
			out.WriteByte(',')
			out.WriteString(strconv.Itoa(pt.MinKeyGroups))
			out.WriteByte(',')
			out.WriteString(strconv.Itoa(pt.MaxKeyGroups))
			out.WriteByte(',')
			out.WriteString(ffmt(pt.MaxOverMean))
			out.WriteByte('\n')
		}
	}
	return out.Flush()
}

// WriteSkewSummary writes one line per series (SummarizeSkew: its worst pair, how many
// parallelisms divide M, the mean; the series of Flink's default max parallelism is labelled
// "default" and its worst pair names its M) as an aligned table, then how many pairs with
// p > M were skipped, if any: parallelisms is how many parallelisms each series was asked for.
func WriteSkewSummary(w io.Writer, series []SkewSeries, parallelisms int) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "max_parallelism\tparallelisms\tbalanced\tworst_max_over_mean\tat_parallelism\tmean_max_over_mean")
	for _, s := range series {
		sum := SummarizeSkew(s.Points)
		label, at := strconv.Itoa(s.MaxParallelism), strconv.Itoa(sum.Worst.Parallelism)
		if s.MaxParallelism == 0 {
			label = "default"
			at += fmt.Sprintf(" (M=%d)", sum.Worst.MaxParallelism)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", label, len(s.Points), sum.Balanced, ffmt(sum.Worst.MaxOverMean), at, ffmt(sum.MeanMaxOverMean))
	}
	tw.Flush()
	skipped := 0
	for _, s := range series {
		skipped += parallelisms - len(s.Points)
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "(%d pairs with parallelism > max parallelism skipped)\n", skipped)
	}
	return writeAll(w, &b)
}

// WriteCSV writes one row per subtask with the header
// subtask,key_groups,records,distinct_keys,records_share (records_share = records / all
// records).
func (l Load) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("subtask,key_groups,records,distinct_keys,records_share\n")
	for _, s := range l.Subtasks {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%s\n", s.Subtask, s.KeyGroups, s.Records, s.DistinctKeys, ffmt(float64(s.Records)/float64(l.Records)))
	}
	return writeAll(w, &b)
}

// WriteReport writes the load of the key sample ks (l is ks.Keys spread by LoadPerSubtask): a
// table per subtask, the key-group (layout), record and distinct-key skews, the busiest
// subtask's record skew split into layout × key skew (Hotspot), the heaviest key, and a verdict
// saying which of the two dominates.
func (l Load) WriteReport(w io.Writer, ks KeySample) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "max parallelism %d, parallelism %d: %d records, %d distinct keys, %d lines\n\n", l.MaxParallelism, l.Parallelism, l.Records, l.DistinctKeys, ks.Lines)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "subtask\tkey_groups\trecords\tdistinct_keys\trecords_share\t")
	for _, s := range l.Subtasks {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t\n", s.Subtask, s.KeyGroups, s.Records, s.DistinctKeys, ffmt(float64(s.Records)/float64(l.Records)))
	}
	tw.Flush()
	fmt.Fprintln(&b)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	peakLine := func(name string, pk Peak) {
		fmt.Fprintf(tw, "%s\tmax/mean %s\t(subtask %d: %s, mean %s)\n", name, ffmt(pk.MaxOverMean), pk.Subtask, strconv.FormatFloat(pk.Max, 'f', -1, 64), ffmt(pk.Mean))
	}
	peakLine("key-group skew (layout):", l.KeyGroupPeak())
	peakLine("record skew:", l.RecordPeak())
	peakLine("distinct-key skew:", l.DistinctKeyPeak())
	tw.Flush()
	h := l.Hotspot()
	fmt.Fprintf(&b, "busiest subtask %d: %s x the mean records = %s x the mean key groups (layout) x %s x the mean records per key group (key skew)\n",
		h.Subtask, ffmt(h.RecordsOverMean), ffmt(h.KeyGroupsOverMean), ffmt(h.DensityOverMean))
	hk := ks.Heaviest()
	meanPerSubtask := float64(l.Records) / float64(l.Parallelism)
	heavy := ks.Keys[hk].Records
	fmt.Fprintf(&b, "heaviest key: %q with %d record%s (%s of all records, %s x a subtask's mean)\n",
		ks.Names[hk], heavy, plural(heavy), ffmt(float64(heavy)/float64(l.Records)), ffmt(float64(heavy)/meanPerSubtask))
	var verdict string
	switch {
	case h.RecordsOverMean < 1.05:
		verdict = "balanced: the busiest subtask carries less than 5% above the mean"
	case h.DensityOverMean >= h.KeyGroupsOverMean:
		verdict = "mostly key skew: the busiest subtask's key groups hold more records per key group than average; " +
			"another max parallelism or parallelism only regroups whole key groups and cannot split a key"
	default:
		verdict = "mostly key-group skew: the busiest subtask owns more key groups than average; " +
			"a max parallelism that the parallelism divides removes this part (see 'simulate advise')"
	}
	fmt.Fprintf(&b, "verdict: %s\n", verdict)
	if float64(heavy) > meanPerSubtask {
		fmt.Fprintf(&b, "note: the heaviest key alone exceeds a subtask's fair share, so no parallelism can balance this sample\n")
	}
	return writeAll(w, &b)
}

// plural is "s" unless n is 1.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteAdviseCSV writes the ranked candidates as CSV with the header
// rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,
// mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes, followed by
// sample_worst_max_over_mean,sample_worst_parallelism when opts has Keys, and by
// worst_target,moved_targets,highest_parallelism when opts has Autoscaler (worst_parallelism and
// balanced_parallelisms are then about the autoscaler's picks).
func WriteAdviseCSV(w io.Writer, cands []Candidate, opts AdviseOptions) error {
	var b bytes.Buffer
	sample := opts.Keys != nil
	head := "rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes"
	if sample {
		head += ",sample_worst_max_over_mean,sample_worst_parallelism"
	}
	if opts.Autoscaler != 0 {
		head += ",worst_target,moved_targets,highest_parallelism"
	}
	fmt.Fprintln(&b, head)
	for i, c := range cands {
		fmt.Fprintf(&b, "%d,%d,%d,%s,%d,%d,%s,%s,%d", i+1, c.MaxParallelism, c.Step, ffmt(c.Worst.MaxOverMean), c.Worst.Parallelism,
			c.Balanced, ffmt(c.MeanMaxOverMean), ffmt(c.KeyGroupsPerSubtaskAtN), c.RocksDBPrefixBytes)
		if sample {
			fmt.Fprintf(&b, ",%s,%d", ffmt(c.Sample.MaxOverMean), c.Sample.Parallelism)
		}
		if opts.Autoscaler != 0 {
			fmt.Fprintf(&b, ",%d,%d,%d", c.WorstTarget, c.Moved, c.HighestPick)
		}
		fmt.Fprintln(&b)
	}
	return writeAll(w, &b)
}

// WriteAdviseReport writes what Advise(opts) found (cands, not empty): a line naming the
// parallelisms ranked over and the tolerance, a table of the candidates in rank order (the
// tolerance step each is within, its worst case and where, the balanced parallelisms, the
// mean, M/N and the RocksDB prefix bytes; the sample's worst record skew with Keys), the
// candidates dropped below N, the per-key-group overhead, and the recommendation: why the
// first candidate is first. With Autoscaler the table adds, per candidate, the target of the
// worst pick, the targets moved and the highest pick.
func WriteAdviseReport(w io.Writer, cands []Candidate, opts AdviseOptions) error {
	var b bytes.Buffer
	n := opts.MaxExpectedParallelism
	if opts.Autoscaler != 0 {
		lo := max(1, opts.MinExpectedParallelism)
		fmt.Fprintf(&b, "operator %s autoscaler (keyed vertex, %s, limits %d..%d, scaled from p=%d): worst max/mean key groups per subtask at the parallelisms it picks for targets %s",
			opts.Autoscaler, adviseMode(opts.Autoscaler), lo, n, opts.current(lo), adviseRange(opts))
	} else if opts.MinExpectedParallelism > 1 {
		fmt.Fprintf(&b, "expected parallelism L=%d..N=%d: worst max/mean key groups per subtask over p=%s", opts.MinExpectedParallelism, n, adviseRange(opts))
	} else {
		fmt.Fprintf(&b, "max expected parallelism N=%d: worst max/mean key groups per subtask over p=%s", n, adviseRange(opts))
	}
	if opts.Tolerance > 0 {
		fmt.Fprintf(&b, ", compared in steps of %s", strconv.FormatFloat(opts.Tolerance, 'f', -1, 64))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "rank\tM\twithin\tworst\tat p\tbalanced p\tmean\tM/N\tprefix bytes\t"
	if opts.Keys != nil {
		head += "sample worst\tat p\t"
	}
	if opts.Autoscaler != 0 {
		head += "for target\tmoved\thighest p\t"
	}
	fmt.Fprintln(tw, head)
	for i, c := range cands {
		within := "-"
		if opts.Tolerance > 0 {
			within = "<=" + strconv.FormatFloat(math.Round((1+float64(c.Step)*opts.Tolerance)*1e9)/1e9, 'f', -1, 64)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t", i+1, c.MaxParallelism, within, ffmt(c.Worst.MaxOverMean), c.Worst.Parallelism,
			c.Balanced, ffmt(c.MeanMaxOverMean), strconv.FormatFloat(c.KeyGroupsPerSubtaskAtN, 'f', 1, 64), c.RocksDBPrefixBytes)
		if c.Sample != nil {
			fmt.Fprintf(tw, "%s\t%d\t", ffmt(c.Sample.MaxOverMean), c.Sample.Parallelism)
		}
		if opts.Autoscaler != 0 {
			fmt.Fprintf(tw, "%d\t%d\t%d\t", c.WorstTarget, c.Moved, c.HighestPick)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(&b)
	var dropped []string
	for _, m := range opts.Dropped() {
		dropped = append(dropped, strconv.Itoa(m))
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "dropped (below N=%d): %s\n", n, strings.Join(dropped, ", "))
	}
	fmt.Fprintln(&b, "overhead per key group (grows with M): an 8-byte offset in every keyed-state checkpoint handle; on the heap backend a state map per state and a timer deduplication map; RocksDB keys carry a 2-byte key-group prefix when M > 128 (1 byte up to 128)")
	if opts.Keys != nil {
		var records int64
		for _, k := range opts.Keys {
			records += k.Records
		}
		fmt.Fprintf(&b, "sample: %d records, %d distinct keys; its worst record skew is mostly key skew when it is far above the key-group worst\n", records, len(opts.Keys))
	}
	if opts.Autoscaler != 0 {
		fmt.Fprintf(&b, "autoscaler: 'at p' is the parallelism picked for 'for target', 'moved' counts the targets %s picked differently, 'highest p' is the most subtasks any target gets (see 'simulate autoscale')\n", adviseRange(opts))
	}
	fmt.Fprintln(&b, recommendation(cands, opts))
	return writeAll(w, &b)
}

// adviseRange is the parallelisms advise ranks over, "L..N".
func adviseRange(opts AdviseOptions) string {
	return fmt.Sprintf("%d..%d", max(1, opts.MinExpectedParallelism), opts.MaxExpectedParallelism)
}

// recommendation explains the first choice: lowest worst case, or the smallest M within the
// same tolerance step as the lowest; with Autoscaler, also how the picks move the targets.
func recommendation(cands []Candidate, opts AdviseOptions) string {
	rng := adviseRange(opts)
	first, lowest := cands[0], Lowest(cands)
	over, every := "over p="+rng, "every parallelism "+rng
	if opts.Autoscaler != 0 {
		over, every = "over the parallelisms picked for targets "+rng, "every parallelism picked for targets "+rng
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recommendation: M=%d because ", first.MaxParallelism)
	switch {
	case first.Worst.MaxOverMean == 1:
		fmt.Fprintf(&b, "%s divides it, so every subtask always gets the same number of key groups (max/mean 1.000000), and no smaller candidate does", every)
		if opts.Autoscaler != 0 {
			return b.String() + autoscalerNote(cands, opts)
		}
	case lowest.MaxParallelism == first.MaxParallelism:
		fmt.Fprintf(&b, "its worst max/mean key groups per subtask %s is %s (at p=%d), the lowest of all candidates", over, ffmt(first.Worst.MaxOverMean), first.Worst.Parallelism)
	default:
		fmt.Fprintf(&b, "its worst max/mean key groups per subtask %s is %s (at p=%d), in the same %s step as the lowest (M=%d: %s), with %s× fewer key groups to pay overhead for",
			over, ffmt(first.Worst.MaxOverMean), first.Worst.Parallelism, strconv.FormatFloat(opts.Tolerance, 'f', -1, 64),
			lowest.MaxParallelism, ffmt(lowest.Worst.MaxOverMean), strconv.FormatFloat(float64(lowest.MaxParallelism)/float64(first.MaxParallelism), 'f', 1, 64))
	}
	if opts.Autoscaler != 0 {
		return b.String() + fmt.Sprintf("; %d of the picks divide it evenly", first.Balanced) + autoscalerNote(cands, opts)
	}
	fmt.Fprintf(&b, "; %d of the parallelisms %s divide it evenly", first.Balanced, rng)
	return b.String()
}

// autoscalerNote is the end of the recommendation with Autoscaler: how many targets the first
// candidate moves and, if its picks never reach N, the first candidate whose picks do.
func autoscalerNote(cands []Candidate, opts AdviseOptions) string {
	n, lo := opts.MaxExpectedParallelism, max(1, opts.MinExpectedParallelism)
	first := cands[0]
	s := fmt.Sprintf("; the autoscaler moves %d of the %d targets, the highest pick is p=%d", first.Moved, n-lo+1, first.HighestPick)
	if first.HighestPick >= n {
		return s
	}
	s += fmt.Sprintf(", so the job never runs at N=%d", n)
	for _, c := range cands {
		if c.HighestPick >= n {
			return s + fmt.Sprintf(" (the first candidate whose picks reach N is M=%d)", c.MaxParallelism)
		}
	}
	return s + " (under no candidate do the picks reach N)"
}

// adviseMode names the alignment mode Advise runs release r in: its default ("no modes" for a
// release without).
func adviseMode(r autoscaler.Release) string {
	if m := r.DefaultMode(); m != autoscaler.ModeUnset {
		return "mode " + m.String()
	}
	return "no modes"
}
