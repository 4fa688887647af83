package metadata

import (
	"bytes"
	"testing"
)

// Savepoints written by the State Processor API store their CheckpointProperties as a
// serialized Java null (SavepointWriter builds CheckpointMetadata without properties and
// MetadataV4Serializer writes the null). Every real version 4+ file, with its properties
// nulled by the project's writer, reads back with nil Properties, ends in ac ed 00 05 70 and
// re-encodes byte for byte.
func TestNullPropertiesRoundTrip(t *testing.T) {
	files := realFiles(t)
	n := 0
	for _, name := range sortedNames(files) {
		f, err := Read(files[name])
		if err != nil || f.Version < 4 {
			continue
		}
		f.Properties = nil
		b, err := Marshal(f)
		if err != nil {
			t.Fatalf("%s: Marshal: %v", name, err)
		}
		if !bytes.HasSuffix(b, []byte{0xac, 0xed, 0x00, 0x05, 0x70}) {
			t.Fatalf("%s: null properties end in % x", name, b[len(b)-5:])
		}
		g, err := Read(b)
		if err != nil {
			t.Fatalf("%s: Read of the null-properties file: %v", name, err)
		}
		if g.Properties != nil {
			t.Fatalf("%s: Properties %+v, want nil", name, g.Properties)
		}
		if md := g.Model(); md.Properties != nil {
			t.Fatalf("%s: model properties %+v, want nil", name, md.Properties)
		}
		c, err := Marshal(g)
		if err != nil || !bytes.Equal(b, c) {
			t.Fatalf("%s: re-encoding differs (err %v)", name, err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no version 4+ real file")
	}
	// A null followed by anything is trailing bytes; a truncated null is an error.
	f := &File{Version: 4, CheckpointID: 1}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(append(b, 0)); err == nil {
		t.Error("trailing byte after a null accepted")
	}
	if _, err := Read(b[:len(b)-1]); err == nil {
		t.Error("truncated null accepted")
	}
}
