package properties

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/metadata/metagen"
	"github.com/restoresim/restoresim/model/savepoint"
	"pgregory.net/rapid"
)

// The version gate: which _metadata format versions each Flink release reads. The rule is the
// test's own (gateReads, from SPEC-VERSIONS.md §7 and Flink's MetadataSerializers.getSerializer,
// which knows versions up to the release's newest serializer and throws "Unrecognized
// checkpoint version number" for any other): a release reads format n iff 2 ≤ n ≤ its newest.
// A refusal is the plan's check metadata-version, its message naming the oldest release that
// reads the format (gateOldest).

// gateOldest gives the oldest release that reads format n, and whether it is a release (not
// master); "" when none does.
func gateOldest(n int32) (string, bool) {
	for _, r := range gateOrder {
		if n >= 2 && n <= gateReads[r] {
			return r, r != "master"
		}
	}
	return "", false
}

// gateMessage is the part of a refusal's message that names who reads format n.
func gateMessage(n int32) string {
	switch o, released := gateOldest(n); {
	case o == "":
		return ""
	case released:
		return fmt.Sprintf("Flink %s is the oldest modelled release that reads it", o)
	default:
		return fmt.Sprintf("of the modelled versions only Flink %s reads it", o)
	}
}

// metadataBytes writes md in format n with the project's writer: formats 4 to 7 as the
// releases writing them do (FromModelAs), 2 and 3 as FromModel's file with the version of
// Flink 1.10 (2) or 1.11–1.15 (3), which carry no checkpoint properties.
func metadataBytes(t interface{ Fatalf(string, ...any) }, md model.CheckpointMetadata, n int32, names metadata.OperatorNames) []byte {
	var f *metadata.File
	var err error
	if n >= 4 {
		f, err = metadata.FromModelAs(md, n, names)
	} else {
		if f, err = metadata.FromModel(md); err == nil {
			f.Version, f.Properties = n, nil
		}
	}
	if err != nil {
		t.Fatalf("writing format %d: %v", n, err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatalf("metadata.Marshal (format %d): %v", n, err)
	}
	return b
}

// headerOnly is a file of format n that no writer of the project writes (1: long unsupported,
// 8: no release yet): Flink's magic number and the version, then an empty body.
func headerOnly(n int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x4960672d)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	return append(b, make([]byte, 16)...)
}

// checkGate plans the restore of the file b (format n) at parallelism 1 under the release
// reader and checks the gate's verdict and message.
func checkGate(t interface{ Fatalf(string, ...any) }, what string, b []byte, n int32, reader string) {
	v := parseVersion(t, reader)
	sp, err := savepoint.Read(bytes.NewReader(b), "_metadata")
	if err != nil {
		// A format no release reads may be refused by the reader already, for every release.
		if gateMessage(n) != "" || !errors.Is(err, metadata.ErrUnsupportedVersion) {
			t.Fatalf("%s: savepoint.Read: %v", what, err)
		}
		return
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: v, Parallelism: 1})
	if err != nil {
		t.Fatalf("%s read by Flink %s: PlanRestore: %v", what, reader, err)
	}
	want := n >= 2 && n <= gateReads[reader]
	refused := pl.Check != nil && *pl.Check == model.CheckMetadataVersion
	switch {
	case want && refused:
		t.Fatalf("%s (format %d): Flink %s reads formats up to %d, but refused it: %s", what, n, reader, gateReads[reader], deref(pl.Error))
	case !want && !refused:
		t.Fatalf("%s (format %d): Flink %s reads formats up to %d, but accepted it (check %v)", what, n, reader, gateReads[reader], deref(pl.Check))
	case refused && pl.Restorable:
		t.Fatalf("%s (format %d): Flink %s refused it, but the plan is restorable", what, n, reader)
	case refused:
		msg := deref(pl.Error).(string)
		if m := gateMessage(n); m != "" && !strings.Contains(msg, m) {
			t.Fatalf("%s (format %d) refused by Flink %s: the message does not say %q:\n%s", what, n, reader, m, msg)
		}
		if gateMessage(n) == "" && strings.Contains(msg, "reads it") {
			t.Fatalf("%s (format %d), which no release reads, refused by Flink %s naming a release: %s", what, n, reader, msg)
		}
	}
}

// TestVersionGateMatrix: every (writer release, reader release) pair, a savepoint written as the
// writer writes it (its format, gateWrites; master's checkpoints in format 7 too, and formats
// 1 and 8 that no modelled release writes) read by the reader: accepted iff the reader reads the
// format, else refused by check metadata-version naming the oldest release that reads it.
func TestVersionGateMatrix(t *testing.T) {
	md := model.CheckpointMetadata{CheckpointID: 3, Operators: []model.OperatorState{withState(model.OperatorIDFromUID("op"), 2, 128)}}
	formats := map[int32]string{1: "no release (format 1)", 7: "Flink master's checkpoints", 8: "no release yet (format 8)"}
	for _, w := range gateOrder {
		formats[gateWrites[w]] += "+" + w
	}
	ns := make([]int32, 0, len(formats))
	for n := range formats {
		ns = append(ns, n)
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	for _, n := range ns {
		b := headerOnly(n)
		if n >= 2 && n <= 7 {
			b = metadataBytes(t, md, n, nil)
		}
		for _, r := range gateOrder {
			checkGate(t, fmt.Sprintf("a savepoint of %s", strings.TrimPrefix(formats[n], "+")), b, n, r)
		}
	}
}

// TestVersionGateProperty: random checkpoints (metagen.Model, names and uids drawn) written by
// the project's writer in each format version 2 to 7, each read by every modelled release: the
// gate as in TestVersionGateMatrix.
func TestVersionGateProperty(t *testing.T) {
	cov := newCoverage(t)
	for n := 2; n <= 7; n++ {
		cov.require(fmt.Sprintf("format-%d", n), 0.08)
	}
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		md := metagen.Model(t)
		n := rapid.Int32Range(2, 7).Draw(t, "format")
		cov.label(fmt.Sprintf("format-%d", n))
		var names metadata.OperatorNames
		if n >= 5 {
			names = metagen.Names(t, md)
		}
		b := metadataBytes(t, md, n, names)
		for _, r := range gateOrder {
			checkGate(t, "a generated checkpoint", b, n, r)
		}
	})
}

// TestVersionGateRealFiles: the real files Flink wrote (shared/flink-metadata real/ and recent/,
// formats 2 to 6), each read by a release drawn: the gate as in TestVersionGateMatrix, the
// format taken from the file's own header.
func TestVersionGateRealFiles(t *testing.T) {
	var files []string
	for _, sub := range []string{"real", "recent"} {
		dir := realmeta.Sub(t, sub)
		m, err := filepath.Glob(filepath.Join(dir, "*.metadata"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no files in %s", dir)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	cov := newCoverage(t)
	cov.require("refused", 0.05)
	cov.require("accepted", 0.15)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		path := rapid.SampledFrom(files).Draw(t, "file")
		reader := rapid.SampledFrom(gateOrder).Draw(t, "reader")
		b, err := os.ReadFile(path)
		if err != nil || len(b) < 8 {
			t.Fatalf("%s: %v", path, err)
		}
		n := int32(binary.BigEndian.Uint32(b[4:8]))
		cov.labelIf(n > gateReads[reader], "refused")
		cov.labelIf(n <= gateReads[reader], "accepted")
		checkGate(t, filepath.Base(path), b, n, reader)
	})
}

// TestVersionGateTables: the model's own tables of what each release writes and reads agree with
// the test's (the property above checks the behaviour; this names the release on a mismatch).
func TestVersionGateTables(t *testing.T) {
	for _, r := range gateOrder {
		v := parseVersion(t, r)
		if got := v.MetadataWriteVersion(true); got != gateWrites[r] {
			t.Errorf("Flink %s writes savepoints in format %d, want %d", r, got, gateWrites[r])
		}
		if got := v.MetadataReadVersion(); got != gateReads[r] {
			t.Errorf("Flink %s reads formats up to %d, want %d", r, got, gateReads[r])
		}
	}
}
