package sim

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// Stat implements model.CheckpointFS over the simulated storage: a path is a file if stored, a
// directory if some file lies below it.
func (m *memFS) Stat(path string) (model.FileInfo, error) {
	if f, ok := m.files[path]; ok {
		return model.FileInfo{Len: f.size}, nil
	}
	prefix := strings.TrimSuffix(path, "/") + "/"
	for p := range m.files {
		if strings.HasPrefix(p, prefix) {
			return model.FileInfo{IsDir: true}, nil
		}
	}
	return model.FileInfo{}, fs.ErrNotExist
}

// coordinator is the simulated JobManager's CheckpointCoordinator: it holds the model's
// checkpoint ID counter, completed-checkpoint store and shared-state registry, and runs every
// restore through the model (resolve → load & validate → store → counter → assignment).
type coordinator struct {
	version  model.FlinkVersion
	next     int64 // checkpoint ID counter: the next ID handed out
	retained int   // state.checkpoints.num-retained
	store    []*model.CompletedCheckpoint
}

func newCoordinator(v model.FlinkVersion) *coordinator {
	return &coordinator{version: v, next: 1, retained: 1}
}

func (c *coordinator) nextID() int64 {
	id := c.next
	c.next++
	return id
}

func (c *coordinator) setRetained(n int) { c.retained = max(1, n) }

func checkpointProperties(savepoint bool) model.CheckpointProperties {
	if savepoint {
		return model.CheckpointProperties{Savepoint: true, Forced: true, Sharing: model.NoSharing}
	}
	return model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward}
}

// complete adds a completed checkpoint or savepoint to the store (if it enters it) and returns
// the files to delete.
func (c *coordinator) complete(md model.CheckpointMetadata, savepoint bool, pointer string) ([]model.StreamHandle, error) {
	if savepoint && c.version != model.Flink1101 {
		return nil, nil // modern: savepoints taken while running do not enter the store
	}
	cp := &model.CompletedCheckpoint{CheckpointID: md.CheckpointID, Operators: md.Operators,
		Properties: checkpointProperties(savepoint), ExternalPointer: pointer}
	c.store = append(c.store, cp)
	for len(c.store) > c.retained {
		c.store = c.store[1:]
	}
	return nil, nil
}

func (c *coordinator) describeStore() string {
	ids := make([]string, len(c.store))
	for i, cp := range c.store {
		ids[i] = fmt.Sprint(cp.CheckpointID)
	}
	return " store=[" + strings.Join(ids, ",") + "]"
}

// retainedFiles lists every file the retained checkpoints reference.
func (c *coordinator) retainedFiles() []model.StreamHandle {
	var out []model.StreamHandle
	for _, cp := range c.store {
		for _, os := range cp.Operators {
			for _, st := range os.Subtasks {
				if st == nil {
					continue
				}
				for _, h := range st.ManagedKeyedState {
					if inc, ok := h.(*model.IncrementalKeyedStateHandle); ok {
						for _, f := range inc.Shared {
							out = append(out, f.Handle)
						}
					}
				}
			}
		}
	}
	return out
}

func (c *coordinator) assign(cp *model.CompletedCheckpoint, vertices []model.JobVertex, allowNonRestored bool) (*model.Assignment, error) {
	return model.AssignStates(model.AssignmentInput{Version: c.version, CheckpointID: cp.CheckpointID,
		Vertices: vertices, Operators: cp.Operators, AllowNonRestoredState: allowNonRestored})
}

// restoreSavepoint models CheckpointCoordinator.restoreSavepoint (SPEC §H.1).
func (c *coordinator) restoreSavepoint(fsys *memFS, pointer string, vertices []model.JobVertex, allowNonRestored bool, mode model.RestoreMode) (*model.Assignment, error) {
	loc, err := model.ResolveCheckpointPointer(fsys, pointer)
	if err != nil {
		return nil, err
	}
	raw, err := fsys.read(loc.Metadata)
	if err != nil {
		return nil, err
	}
	md, ok := raw.(model.CheckpointMetadata)
	if !ok {
		return nil, fmt.Errorf("%s is not a checkpoint metadata file", loc.Metadata.Path)
	}
	props := checkpointProperties(true)
	props.Unclaimed = mode == model.NoClaim
	cp, err := model.LoadAndValidateCheckpoint(model.LoadInput{Version: c.version, Metadata: md, Vertices: vertices,
		AllowNonRestoredState: allowNonRestored, Properties: props, ExternalPointer: loc.ExternalPointer})
	if err != nil {
		return nil, err
	}
	c.store = append(c.store, cp)
	c.next = cp.CheckpointID + 1
	return c.assign(cp, vertices, allowNonRestored)
}

// restoreLatest models restoreLatestCheckpointedStateToAll for a failover: ok is false when the
// store is empty.
func (c *coordinator) restoreLatest(vertices []model.JobVertex) (*model.Assignment, int64, bool, error) {
	if len(c.store) == 0 {
		return nil, 0, false, nil
	}
	cp := c.store[len(c.store)-1]
	a, err := c.assign(cp, vertices, true)
	return a, cp.CheckpointID, true, err
}
