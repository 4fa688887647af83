package reference

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/metadata/metagen"
	"pgregory.net/rapid"
)

// metadataVersions are the versions the metadata tests run: all with sources, or 1.18, 2.3
// and master with -short.
func metadataVersions() []model.FlinkVersion {
	if testing.Short() {
		return []model.FlinkVersion{model.Flink118, model.Flink23, model.FlinkMaster}
	}
	return Versions()
}

// placeholderID stands, in the project's bytes, for a StateHandleID that Flink draws at random
// (StateHandleID.randomStateHandleId, a UUID) when it reads a handle whose format has none:
// same length as a UUID, compared as "any UUID" (maskedEqual).
var placeholderID = strings.Repeat("~", 36)

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// maskedEqual compares the project's bytes with Flink's, where each writeUTF of placeholderID in
// want matches a UUID in got; it returns -1 when they agree, else the first differing offset.
func maskedEqual(want, got []byte) int {
	ph := append([]byte{0, 36}, placeholderID...)
	for i := 0; ; {
		j := bytes.Index(want[i:], ph)
		end := len(want)
		if j >= 0 {
			end = i + j
		}
		n := min(end, len(got))
		for k := i; k < n; k++ {
			if want[k] != got[k] {
				return k
			}
		}
		if j < 0 {
			if len(want) != len(got) {
				return n
			}
			return -1
		}
		if len(got) < end+len(ph) || got[end] != 0 || got[end+1] != 36 || !uuidPattern.Match(got[end+2:end+len(ph)]) {
			return end
		}
		i = end + len(ph)
	}
}

// flinkRewrite turns a file the project read into what Flink writes for it in a format version
// (Flink's reader builds its handle objects, its MetadataV<version>Serializer writes them):
// version 2's dead fields (chain length, duration) are dropped, and a key-groups handle of the
// old tag 3 is written with tag 12 and a StateHandleID Flink draws at random (placeholderID).
// It is the test's statement of Flink's re-encoding, checked against Flink's bytes.
func flinkRewrite(f *metadata.File, version int32) error {
	if f.Version == 2 && version > 2 {
		for i := range f.Operators {
			f.Operators[i].ChainLength = 0
			for k := range f.Operators[i].Subtasks {
				f.Operators[i].Subtasks[k].Duration = 0
			}
		}
	}
	f.Version = version
	var keyed func(h metadata.KeyedHandle)
	stream := func(s *metadata.StreamHandle) {
		if s != nil && s.KeyGroups != nil {
			keyed(s.KeyGroups)
		}
	}
	keyed = func(h metadata.KeyedHandle) {
		switch h := h.(type) {
		case *metadata.KeyGroupsHandle:
			if h.Tag == metadata.TagKeyGroups {
				h.Tag, h.StateHandleID = metadata.TagKeyGroupsV2, placeholderID
			}
			stream(h.Delegate)
		case *metadata.IncrementalHandle:
			stream(h.Meta)
			for _, l := range [][]metadata.PathHandle{h.Shared, h.Private} {
				for _, p := range l {
					stream(p.Handle)
				}
			}
		case *metadata.ChangelogBackendHandle:
			for _, m := range h.Materialized {
				keyed(m)
			}
			for _, m := range h.NonMaterialized {
				keyed(m)
			}
		}
	}
	for i := range f.Operators {
		for k := range f.Operators[i].Subtasks {
			s := &f.Operators[i].Subtasks[k]
			if len(s.Legacy) > 0 {
				return fmt.Errorf("operator %d subtask %d: legacy state", i, k)
			}
			keyed(s.ManagedKeyedState)
			keyed(s.RawKeyedState)
		}
	}
	return nil
}

func hasLegacyState(f *metadata.File) bool {
	for _, op := range f.Operators {
		for _, s := range op.Subtasks {
			if len(s.Legacy) > 0 {
				return true
			}
		}
	}
	return false
}

type metaFile struct {
	name string
	b    []byte
}

// realMetadataFiles reads shared/flink-metadata's real/ and recent/ (skipping, or failing under
// CI, when absent), sorted by folder and name.
func realMetadataFiles(t *testing.T) []metaFile {
	var files []metaFile
	for _, sub := range []string{"real", "recent"} {
		dir := realmeta.Sub(t, sub)
		names, err := filepath.Glob(filepath.Join(dir, "*.metadata"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, metaFile{sub + "/" + filepath.Base(n), b})
		}
	}
	if len(files) == 0 {
		t.Fatal("no _metadata files in shared/flink-metadata/real and recent")
	}
	return files
}

// compareRewrite has the project read b, rewrite it as Flink writes it in got's format version,
// and compares with Flink's bytes; "" when they agree, else one line.
func compareRewrite(b, got []byte) string {
	f, err := metadata.Read(b)
	if err != nil {
		return err.Error()
	}
	version := int32(binary.BigEndian.Uint32(got[4:]))
	if err := flinkRewrite(f, version); err != nil {
		return err.Error()
	}
	want, err := metadata.Marshal(f)
	if err != nil {
		return fmt.Sprintf("the project cannot write it as version %d: %v", version, err)
	}
	if at := maskedEqual(want, got); at >= 0 {
		return fmt.Sprintf("version %d differs from offset %#x (Flink %d bytes, the project %d)", version, at, len(got), len(want))
	}
	return ""
}

// TestMetadataRealFiles: every real _metadata file (shared/flink-metadata real/ and recent/) is
// read by Flink's own Checkpoints.loadCheckpointMetadata exactly when the project reads it for
// that version, and for each file both read, Flink's re-encoding — in the file's own format
// version where Flink still writes it (3 and later), and in the version it writes by default —
// equals the project's (metadata.Read, then Marshal as Flink writes it: see flinkRewrite) byte
// for byte, but for the StateHandleIDs Flink draws at random.
func TestMetadataRealFiles(t *testing.T) {
	files := realMetadataFiles(t)
	for _, v := range metadataVersions() {
		t.Run(v.String(), func(t *testing.T) {
			j := need(t, v)
			var bothRead, bothRefuse, legacyRefused, same, sameAgree, deflt, defltAgree, randomIDs int
			for _, file := range files {
				b := file.b
				head := int32(binary.BigEndian.Uint32(b[4:]))
				pf, perr := metadata.Read(b)
				// Flink 1.4 and later refuse version 2's legacy state ("Legacy state … is no
				// longer supported"); the project's reader keeps it by design (metadata.Subtask).
				legacy := perr == nil && hasLegacyState(pf)
				projectReads := perr == nil && v.ReadsMetadataVersion(head) && !legacy
				a, err := j.MetadataRoundTripAs(b, 0)
				var r *Refusal
				switch {
				case errors.As(err, &r) && r.Stage == "read":
					if projectReads {
						t.Errorf("%s (version %d): Flink refuses it, the project reads it: %v", file.name, head, err)
					} else {
						bothRefuse++
						if legacy {
							legacyRefused++
						}
					}
					continue
				case err != nil:
					t.Fatalf("%s: %v", file.name, err)
				case !projectReads:
					t.Errorf("%s (version %d): Flink reads it, the project does not (%v)", file.name, head, perr)
					continue
				}
				bothRead++
				f, _ := metadata.Read(b)
				if a.Version != head || a.CheckpointID != f.CheckpointID || a.Operators != len(f.Operators) {
					t.Errorf("%s: Flink read version %d, checkpoint %d, %d operators; the project %d, %d, %d",
						file.name, a.Version, a.CheckpointID, a.Operators, head, f.CheckpointID, len(f.Operators))
				}
				if want := v.MetadataWriteVersion(true); a.WrittenVersion != want {
					t.Errorf("%s: Flink wrote version %d, the project says %v writes %d", file.name, a.WrittenVersion, v, want)
				}
				deflt++
				if d := compareRewrite(b, a.Bytes); d != "" {
					t.Errorf("%s (version %d): Flink's re-encoding differs from the project's: %s", file.name, head, d)
				} else {
					defltAgree++
				}
				if head < 3 {
					continue // Flink writes no version 2 ("Serialization in v2 is no longer supported")
				}
				s, err := j.MetadataRoundTripAs(b, head)
				if err != nil {
					t.Errorf("%s: writing version %d: %v", file.name, head, err)
					continue
				}
				same++
				if !bytes.Equal(s.Bytes, b) {
					randomIDs++
				}
				if d := compareRewrite(b, s.Bytes); d != "" {
					t.Errorf("%s: Flink's re-encoding in the file's version differs from the project's: %s", file.name, d)
				} else {
					sameAgree++
				}
			}
			t.Logf("Flink %s: %d files; %d read by both, %d refused by both (%d of them for legacy state); re-encoded in version %d: %d of %d agree; in the file's version: %d of %d agree (%d only but for Flink's random StateHandleIDs)",
				v, len(files), bothRead, bothRefuse, legacyRefused, v.MetadataWriteVersion(true), defltAgree, deflt, sameAgree, same, randomIDs)
		})
	}
}

// TestMetadataGenerated: every file the project writes is read by Flink's own code and written
// back byte for byte. Random model metadata (metagen.Model, with checkpoint or savepoint
// properties and operator names) is written with metadata.FromModelAs in the format version
// each Flink version writes (model.FlinkVersion.MetadataWriteVersion), read by Flink's
// Checkpoints.loadCheckpointMetadata and written by its storeCheckpointMetadata: the bytes must
// be the project's, and the format version the one the project says Flink writes.
func TestMetadataGenerated(t *testing.T) {
	const perCheck = 4 // files per rapid check: 400 a version with rapid's default 100 checks
	for _, v := range metadataVersions() {
		t.Run(v.String(), func(t *testing.T) {
			j := need(t, v)
			var files, v7 int
			rapid.Check(t, func(rt *rapid.T) {
				for k := 0; k < perCheck; k++ {
					md := metagen.Model(rt)
					md.Properties = metagen.Properties(rt)
					names := metagen.Names(rt, md)
					savepoint := md.Properties != nil && md.Properties.Savepoint
					n := v.MetadataWriteVersion(savepoint)
					if n == 7 {
						// The project's master writes checkpoints in version 7 (model/doc.go); the
						// archived master has no MetadataV7Serializer and refuses them.
						if err := checkWrittenByProject(j, md, n, names); err == nil || !strings.Contains(err.Error(), "Unrecognized checkpoint version number: 7") {
							rt.Fatalf("version 7 on %s: %v, want Flink's refusal", v, err)
						}
						v7++
						n = 6
					}
					if err := checkWrittenByProject(j, md, n, names); err != nil {
						rt.Fatalf("Flink %s, format version %d: %v", v, n, err)
					}
					files++
				}
			})
			t.Logf("Flink %s: %d generated files written in version %d/%d (checkpoints/savepoints) agree byte for byte (%d checkpoints in version 7 refused, as expected, and checked in version 6)",
				v, files, v.MetadataWriteVersion(false), v.MetadataWriteVersion(true), v7)
		})
	}
}

// checkWrittenByProject writes md as the project does in a format version, has Flink read and
// re-encode it, and compares.
func checkWrittenByProject(j *JVM, md model.CheckpointMetadata, version int32, names metadata.OperatorNames) error {
	f, err := metadata.FromModelAs(md, version, names)
	if err != nil {
		return err
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		return err
	}
	a, err := j.MetadataRoundTripAs(b, 0)
	if err != nil {
		return err
	}
	if a.WrittenVersion != version {
		return fmt.Errorf("Flink wrote version %d, the project %d", a.WrittenVersion, version)
	}
	if at := maskedEqual(b, a.Bytes); at >= 0 {
		return fmt.Errorf("Flink's re-encoding differs from offset %#x (Flink %d bytes, the project %d)", at, len(a.Bytes), len(b))
	}
	return nil
}

// TestMetadataRefusal: a refusal is one line with Flink's exception, and a *Refusal.
func TestMetadataRefusal(t *testing.T) {
	j := need(t, model.Flink118)
	_, err := j.MetadataRoundTrip([]byte("not a _metadata file"))
	var r *Refusal
	if !errors.As(err, &r) || !errors.Is(err, ErrFlinkRefused) || r.Stage != "read" ||
		!strings.Contains(err.Error(), "Unexpected magic number") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line refusing at read with Flink's message", err)
	}
	if _, err := j.MetadataRoundTripAs([]byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 9}, 0); err == nil || !strings.Contains(err.Error(), "Unrecognized checkpoint version number: 9") {
		t.Fatalf("version 9: %v", err)
	}
}

// TestMaskedEqual: the comparison finds a differing byte, a length difference, and a placeholder
// facing anything but a UUID.
func TestMaskedEqual(t *testing.T) {
	uuid := "0f8fad5b-d9cb-469f-a165-70867728950e"
	utf := func(s string) string { return string([]byte{0, byte(len(s))}) + s }
	tests := []struct {
		want, got string
		at        int
	}{
		{"abc", "abc", -1},
		{"abc", "abd", 2},
		{"abc", "abcd", 3},
		{"abcd", "abc", 3},
		{"x" + utf(placeholderID) + "y", "x" + utf(uuid) + "y", -1},
		{"x" + utf(placeholderID) + "y", "x" + utf(uuid) + "z", 39},
		{"x" + utf(placeholderID) + "y", "x" + utf(strings.ToUpper(uuid)) + "y", 1},
		{"x" + utf(placeholderID), "x" + utf(placeholderID), 1},
		{"x" + utf(placeholderID), "x", 1},
	}
	for _, tt := range tests {
		if got := maskedEqual([]byte(tt.want), []byte(tt.got)); got != tt.at {
			t.Errorf("maskedEqual(%q, %q) = %d, want %d", tt.want, tt.got, got, tt.at)
		}
	}
}
