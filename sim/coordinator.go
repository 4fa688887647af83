package sim

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// Stat implements model.CheckpointFS over the simulated storage: a path is a file if stored, a
// directory if some file lies below it.
func (m *memFS) Stat(path string) (model.FileInfo, error) {
	if f, ok := m.files[path]; ok {
		m.load(f)
		return model.FileInfo{Len: f.size}, nil
	}
	if m.isDir(path) {
		return model.FileInfo{IsDir: true}, nil
	}
	return model.FileInfo{}, fs.ErrNotExist
}

// coordinator is the simulated JobManager's side of checkpointing: the model's Coordinator
// (checkpoint ID counter, completed-checkpoint store, shared-state registry) plus the restore mode
// the running job was started with. Every restore goes through the model.
type coordinator struct {
	*model.Coordinator
	mode model.RestoreMode
}

func newCoordinator(v model.FlinkVersion, retained int) *coordinator {
	c, err := model.NewCoordinator(v, max(1, retained))
	if err != nil {
		panic("sim: internal error: " + err.Error())
	}
	return &coordinator{Coordinator: c}
}

// newCoordinator is newCoordinator for the world's system under test.
func (w *World) newCoordinator() *coordinator {
	c := newCoordinator(w.plan.Version, w.retained)
	c.Assign = w.assignWith()
	c.LoadAndValidate = w.loadWith()
	return c
}

func (c *coordinator) nextID() int64 { return c.Counter.GetAndIncrement() }

func checkpointProperties(savepoint bool) model.CheckpointProperties {
	if savepoint {
		return model.CheckpointProperties{Savepoint: true, Forced: true, Sharing: model.NoSharing}
	}
	return model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward}
}

// writeMetadata stores md as a real Flink _metadata file at path, in the format version the
// modelled Flink writes (SPEC-VERSIONS.md §7: 4 for 1.18–1.20, 5 for 2.0, 6 for 2.1 and later,
// 7 for master's checkpoints; the 1.10.1 simulation writes version 4 too, see model/doc.go),
// with each operator's name and uid from version 5 on.
func writeMetadata(fsys *memFS, path string, md model.CheckpointMetadata, savepoint bool, names metadata.OperatorNames) error {
	f, err := metadata.FromModelAs(md, writeFormat(fsys.version, savepoint), names)
	if err != nil {
		return err
	}
	fsys.create(path).meta = &metaFile{unencoded: f} // (encoded when first read: memFS.load)
	return nil
}

// writeFormat is the metadata format version the simulation of v writes.
func writeFormat(v model.FlinkVersion, savepoint bool) int32 {
	if v == model.Flink1101 {
		return metadata.WriteVersion
	}
	return v.MetadataWriteVersion(savepoint)
}

// ReadMetadata implements model.CheckpointStorage: the _metadata file of a resolved location,
// read with the metadata reader.
func (m *memFS) ReadMetadata(loc model.CheckpointLocation) (model.CheckpointMetadata, error) {
	raw, err := m.read(loc.Metadata)
	if err != nil {
		return model.CheckpointMetadata{}, err
	}
	b, ok := raw.([]byte)
	if !ok {
		return model.CheckpointMetadata{}, fmt.Errorf("%s is not a metadata file", loc.Metadata.Path)
	}
	file := m.files[loc.Metadata.Path]
	f, err := m.metadata(file, b)
	if err != nil {
		return model.CheckpointMetadata{}, err
	}
	if m.version != model.Flink1101 && !m.version.ReadsMetadataVersion(f.Version) {
		return model.CheckpointMetadata{}, fmt.Errorf("metadata format version %d: Flink %v refuses it (\"Unrecognized checkpoint version number: %d\")", f.Version, m.version, f.Version)
	}
	return m.modelOf(file, f), nil
}

// complete hands a completed checkpoint or savepoint to the store; it returns what Flink deletes
// as a consequence.
func (c *coordinator) complete(md model.CheckpointMetadata, savepoint bool, pointer string) (model.StoreUpdate, error) {
	cp := &model.CompletedCheckpoint{CheckpointID: md.CheckpointID, Operators: md.Operators,
		Properties: checkpointProperties(savepoint), ExternalPointer: pointer}
	return c.Store.CompleteCheckpoint(cp)
}

func (c *coordinator) describeStore() string {
	cps := c.Store.Checkpoints()
	ids := make([]string, len(cps))
	for i, cp := range cps {
		ids[i] = fmt.Sprint(cp.CheckpointID)
	}
	return " store=[" + strings.Join(ids, ",") + "]"
}

// retainedFiles lists every shared file the retained checkpoints reference.
func (c *coordinator) retainedFiles() []model.StreamHandle {
	var out []model.StreamHandle
	for _, cp := range c.Store.Checkpoints() {
		for h := range checkpointFiles(cp) {
			if strings.HasPrefix(h.Path, "shared/") {
				out = append(out, h)
			}
		}
	}
	return out
}
