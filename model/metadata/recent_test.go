package metadata

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
)

// TestReadRecentFiles: every file of shared/flink-metadata/recent (written by Flink 1.20, 2.1
// and 2.2) parses to its last byte and re-encodes byte for byte, and the format version is the
// one its Flink writes (SPEC-VERSIONS.md §7).
func TestReadRecentFiles(t *testing.T) {
	dir := realmeta.Sub(t, "recent")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	perVersion := map[int32]int{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".metadata" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Read(b)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		if head := int32(binary.BigEndian.Uint32(b[4:])); f.Version != head {
			t.Errorf("%s: version %d, header says %d", e.Name(), f.Version, head)
		}
		perVersion[f.Version]++
		out, err := Marshal(f)
		if err != nil {
			t.Errorf("%s: re-encode: %v", e.Name(), err)
			continue
		}
		if !bytes.Equal(out, b) {
			i := 0
			for i < len(out) && i < len(b) && out[i] == b[i] {
				i++
			}
			t.Errorf("%s: re-encoding differs from offset %#x (len %d, want %d)", e.Name(), i, len(out), len(b))
		}
		for _, w := range []struct {
			tag string
			v   model.FlinkVersion
		}{{"flink1.20", model.Flink120}, {"flink2.1", model.Flink21}, {"flink2.2", model.Flink22}} {
			if bytes.Contains([]byte(e.Name()), []byte(w.tag)) {
				if want := w.v.MetadataWriteVersion(true); f.Version != want {
					t.Errorf("%s: format version %d, but Flink %v writes %d", e.Name(), f.Version, w.v, want)
				}
			}
		}
	}
	if perVersion[4] == 0 || perVersion[6] == 0 {
		t.Errorf("files per version %v: want versions 4 and 6", perVersion)
	}
	t.Logf("files per version: %v", perVersion)
}

// TestFromModelAs: the metadata the simulator writes for each version round-trips through the
// reader in that version's format, with names and uids from version 5 on.
func TestFromModelAs(t *testing.T) {
	id := model.OperatorIDFromUID("op")
	md := model.CheckpointMetadata{CheckpointID: 7, Operators: []model.OperatorState{{OperatorID: id, Parallelism: 2, MaxParallelism: 128,
		Subtasks: []*model.OperatorSubtaskState{{InputChannelState: []model.ChannelStateHandle{{SubtaskIndex: 0, Delegate: model.StreamHandle{Path: "file:/ch", Size: 3}}}}, {}}}}}
	names := func(model.OperatorID) (string, string) { return "Map", "op" }
	for _, v := range model.FlinkVersions() {
		if v == model.Flink1101 {
			continue
		}
		for _, savepoint := range []bool{false, true} {
			n := v.MetadataWriteVersion(savepoint)
			f, err := FromModelAs(md, n, names)
			if err != nil {
				t.Fatalf("%v: %v", v, err)
			}
			b, err := Marshal(f)
			if err != nil {
				t.Fatalf("%v: %v", v, err)
			}
			g, err := Read(b)
			if err != nil {
				t.Fatalf("%v (format %d): %v", v, n, err)
			}
			if g.Version != n || !v.ReadsMetadataVersion(g.Version) {
				t.Errorf("%v: wrote version %d, read %d", v, n, g.Version)
			}
			wantName := ""
			if n >= 5 {
				wantName = "Map"
			}
			if op := g.Operators[0]; op.Name != wantName || (n >= 5) != (op.UID == "op") {
				t.Errorf("%v (format %d): name %q uid %q", v, n, op.Name, op.UID)
			}
			if len(g.Operators[0].Subtasks[0].InputChannels) != 1 {
				t.Errorf("%v: channel state lost", v)
			}
		}
	}
	if _, err := FromModelAs(md, 3, nil); err == nil {
		t.Errorf("format version 3: no error")
	}
}
