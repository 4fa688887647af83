package sim

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/sim/oracle"
)

// InvVersionGate: at the first snapshot of a run (a checkpoint or a savepoint), the world writes
// it as every modelled release writes a savepoint (format versions 4 to 6; 7, master's
// checkpoints, too) and hands each file to every modelled release's restore (the metadata
// reader and the release's format gate, as the coordinator's restore reads a _metadata file):
// each accepts it iff the oracle's table says the release reads that format
// (oracle.ReadsFormat). One of the refused pairs, drawn by the seed, is also planned
// (savepoint.PlanRestore, what `simulate plan --flink R` does): refused by the check
// metadata-version with a message naming the oldest release that reads the format
// (oracle.OldestReading). So every run that takes a snapshot hands its version every other
// version's files and every other version its own; a sweep over --flink A,B hands A B's files
// and B A's in each such run.
const InvVersionGate = "version-gate"

// probeVersions checks the version gate on snapshot id, the run's first (see InvVersionGate).
func (w *World) probeVersions(step int, id int64, md model.CheckpointMetadata) {
	if w.gateProbed {
		return // (once a run: every pair costs a write and a read of the whole savepoint)
	}
	w.gateProbed = true
	fail := func(detail string) { w.violate(step, InvVersionGate, fmt.Sprintf("snapshot %d: %s", id, detail), "") }
	type refusedPair struct {
		reader model.FlinkVersion
		writer string
		b      []byte
		n      int32
	}
	var refused []refusedPair
	written := map[int32]bool{}
	for _, wr := range model.FlinkVersions() {
		for _, sp := range []bool{true, false} {
			if wr == model.Flink1101 || (!sp && wr != model.FlinkMaster) {
				continue // (1.10.1's format 2 is not written by the simulation; only master's checkpoints differ)
			}
			n := wr.MetadataWriteVersion(sp)
			if written[n] {
				continue
			}
			written[n] = true
			writer := "Flink " + wr.String()
			if !sp {
				writer += "'s checkpoints"
			}
			f, err := metadata.FromModelAs(md, n, w.operatorNames())
			if err != nil {
				fail(fmt.Sprintf("writing it as %s does (format %d): %v", writer, n, err))
				return
			}
			b, err := metadata.Marshal(f)
			if err != nil {
				fail(fmt.Sprintf("writing it as %s does (format %d): %v", writer, n, err))
				return
			}
			read, err := metadata.Read(b)
			if err != nil {
				fail(fmt.Sprintf("reading it as %s wrote it (format %d): %v", writer, n, err))
				return
			}
			for _, r := range model.FlinkVersions() {
				want, known := oracle.ReadsFormat(r.String(), n)
				if !known {
					fail("the oracle does not know Flink " + r.String())
					return
				}
				got := r.ReadsMetadataVersion(read.Version)
				switch {
				case got && !want:
					fail(fmt.Sprintf("Flink %v accepts it as %s writes it (format %d), which the oracle says it does not read", r, writer, n))
					return
				case !got && want:
					fail(fmt.Sprintf("Flink %v refuses it as %s writes it (format %d), which the oracle says it reads", r, writer, n))
					return
				case !got:
					refused = append(refused, refusedPair{r, writer, b, n})
				}
			}
		}
	}
	if len(refused) == 0 {
		return
	}
	p := refused[w.plan.Seed%uint64(len(refused))]
	sp, err := savepoint.Read(bytes.NewReader(p.b), "_metadata")
	if err != nil {
		fail(fmt.Sprintf("opening it as %s wrote it for Flink %v's plan: %v", p.writer, p.reader, err))
		return
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: p.reader, Parallelism: 1})
	if err != nil {
		fail(fmt.Sprintf("Flink %v's plan of it as %s wrote it: %v", p.reader, p.writer, err))
		return
	}
	_, words := oracle.OldestReading(p.n)
	switch {
	case pl.Check == nil || *pl.Check != model.CheckMetadataVersion:
		fail(fmt.Sprintf("Flink %v's plan of it as %s wrote it (format %d) is not refused by the check %v (check %v)", p.reader, p.writer, p.n, model.CheckMetadataVersion, pl.Check))
	case words != "" && !strings.Contains(*pl.Error, words):
		fail(fmt.Sprintf("Flink %v's refusal of it as %s wrote it (format %d) does not say %q: %s", p.reader, p.writer, p.n, words, *pl.Error))
	}
}
