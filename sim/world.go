package sim

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// Names of the simulated job's operator states.
const (
	stateSplits  = "splits"  // SPLIT_DISTRIBUTE source offsets
	stateOffsets = "offsets" // UNION source offsets (legacy consumer)
	stateRules   = "rules"   // BROADCAST map
	appliedRule  = "__applied"
)

// sourceState is the name and mode of state k of the source's Job.StateNames list states: state
// 0 is "splits" (SPLIT_DISTRIBUTE) or "offsets" (UNION) as the job's offsets mode says, later
// ones alternate the other mode and the job's ("offsets-1", "splits-2", …).
func (j *Job) sourceState(k int) (string, model.DistributionMode) {
	union := j.UnionOffsets != (k%2 == 1)
	name, mode := stateSplits, model.SplitDistribute
	if union {
		name, mode = stateOffsets, model.Union
	}
	if k > 0 {
		name += "-" + strconv.Itoa(k)
	}
	return name, mode
}

// numSourceStates is the number of the source's list states (at least one).
func (j *Job) numSourceStates() int { return max(1, j.StateNames) }

// unionSplit reports whether split s is kept in a UNION list state.
func (j *Job) unionSplit(s int) bool {
	_, mode := j.sourceState(s % j.numSourceStates())
	return mode == model.Union
}

// hasUnion reports whether some split is kept in UNION list state.
func (j *Job) hasUnion() bool {
	for s := range min(j.Splits, j.numSourceStates()) {
		if j.unionSplit(s) {
			return true
		}
	}
	return false
}

// unionPart is the part of offsets kept in UNION list states: what every source subtask
// receives at a restore.
func (j *Job) unionPart(offsets map[int]int64) map[int]int64 {
	out := make(map[int]int64, len(offsets))
	for s, o := range offsets {
		if j.unionSplit(s) {
			out[s] = o
		}
	}
	return out
}

// splitOffset is one element of the source's offset list state.
type splitOffset struct {
	Split  int
	Offset int64
}

// kv is one keyed-state entry in a snapshot file, in key-group order.
type kv struct {
	KeyGroup int
	Key      string
	Value    int64
}

// file is one file of the simulated checkpoint storage. Content is a Go value (the world never
// serialises state); Size is what the handles report.
type file struct {
	content any
	size    int64
	meta    *metaFile // a _metadata file's (nil for the others)
}

// metaFile is what memFS keeps of a _metadata file besides its bytes.
type metaFile struct {
	// unencoded is a _metadata file the simulation wrote, kept as written until its bytes or
	// its size are first asked for (memFS.load encodes it then and sets content and size):
	// most checkpoints are never read back.
	unencoded *metadata.File
	// decoded is a _metadata file's content decoded (metadata.Read), kept with the bytes it was
	// decoded from: the restore and the planner read the same file, and a fault may replace
	// the bytes.
	decoded     *metadata.File
	decodedFrom []byte
	// modeled is decoded converted for the memFS's version (modelOf), once per decode: the
	// restore and the planner take the same conversion (read only).
	modeled     model.CheckpointMetadata
	modeledFrom *metadata.File
}

// metadata decodes the _metadata bytes b file f holds, once for each content it holds until
// forgetDecoded.
func (fs *memFS) metadata(f *file, b []byte) (*metadata.File, error) {
	if m := f.meta; m != nil && m.decoded != nil && len(b) > 0 && len(b) == len(m.decodedFrom) && &b[0] == &m.decodedFrom[0] {
		return m.decoded, nil
	}
	md, err := metadata.Read(b)
	if err != nil {
		return nil, err
	}
	if f.meta == nil {
		f.meta = &metaFile{}
	}
	f.meta.decoded, f.meta.decodedFrom = md, b
	fs.decodedFiles = append(fs.decodedFiles, f)
	return md, nil
}

// modelOf is md, a decode of f's content (metadata), converted for fs's version: once per
// decode (read only).
func (fs *memFS) modelOf(f *file, md *metadata.File) model.CheckpointMetadata {
	m := f.meta
	if m.modeledFrom != md {
		m.modeled, m.modeledFrom = md.ModelFor(fs.version), md
	}
	return m.modeled
}

// forgetDecoded drops the decoded files (a restore's read and its plan are done with them):
// they would only make the live heap larger.
func (fs *memFS) forgetDecoded() {
	for _, f := range fs.decodedFiles {
		if m := f.meta; m != nil {
			m.decoded, m.decodedFrom = nil, nil
			m.modeled, m.modeledFrom = model.CheckpointMetadata{}, nil
		}
	}
	fs.decodedFiles = fs.decodedFiles[:0]
}

// memFS is the simulated checkpoint storage: a flat map of paths; directories are implied by
// the paths below them (dirs indexes them). It implements model.CheckpointFS for pointer
// resolution.
type memFS struct {
	files map[string]*file
	// dirs holds every directory, by path: each prefix of a file's path that ends before a '/'
	// (so "file:/a/b" lies in "file:/a", which lies in "file:"). A directory is there while
	// some file lies below it: removing a directory's files, or its subtree, costs what lies
	// below it, not every file of the storage.
	dirs map[string]*dirNode
	// lastDir is the directory addDir returned last.
	lastDir lastDir
	// version is the Flink version whose metadata reader rebuilds the operator-state maps.
	version model.FlinkVersion
	// scratch is the buffer _metadata files are encoded in before their bytes are stored.
	scratch []byte
	// decodedFiles are the files holding a decode (metadata).
	decodedFiles []*file
	// watched holds the files of the snapshots restored in NO_CLAIM mode (watch); removedWatched
	// lists those files deleted (remove) since takeRemovedWatched: the only deletions
	// checkNoClaimFiles must look again after (most deletions are pruned local copies and
	// subsumed checkpoints).
	watched        map[string]struct{}
	watchedDirs    map[string]watchedList // (the list last watched for each directory)
	removedWatched []string
	// slab is where newFile takes files from.
	slab []file
}

// remove deletes the file at path, if any.
func (fs *memFS) remove(path string) {
	if _, ok := fs.files[path]; ok {
		fs.drop(path)
		if dir, ok := parentDir(path); ok {
			d := fs.addDir(dir) // (there: path lies in it)
			d.n--
			switch {
			case d.empty():
				fs.dropDir(dir)
			case len(d.files) > 64 && len(d.files) > 4*d.n:
				d.files = slices.DeleteFunc(d.files, func(p string) bool { _, ok := fs.files[p]; return !ok })
				slices.Sort(d.files)
				d.files = slices.Compact(d.files)
			}
		}
	}
}

// drop deletes the file at path, which exists, leaving its directory's list to the caller.
func (fs *memFS) drop(path string) {
	f := fs.files[path]
	delete(fs.files, path)
	*f = file{} // (its slab may outlive it: let go of the content)
	if _, ok := fs.watched[path]; ok {
		fs.removedWatched = append(fs.removedWatched, path)
	}
}

// watch adds the files of the snapshot in directory dir (paths) to the watched files.
func (fs *memFS) watch(dir string, paths []string) {
	if len(paths) == 0 {
		return
	}
	if fs.watched == nil {
		fs.watched, fs.watchedDirs = map[string]struct{}{}, map[string]watchedList{}
	}
	l := watchedList{&paths[0], len(paths)}
	if fs.watchedDirs[dir] == l {
		return // (the same list again: a snapshot restored again)
	}
	fs.watchedDirs[dir] = l
	for _, p := range paths {
		fs.watched[p] = struct{}{}
	}
}

// watchedList identifies a list of paths watched (its first element and length).
type watchedList struct {
	first *string
	n     int
}

// takeRemovedWatched returns the watched files deleted since it was last called.
func (fs *memFS) takeRemovedWatched() []string {
	r := fs.removedWatched
	fs.removedWatched = nil
	return r
}

// newFile returns a zero file from fs's current slab (files come in blocks of fileSlab).
func (fs *memFS) newFile() *file {
	if len(fs.slab) == 0 {
		fs.slab = make([]file, fileSlab)
	}
	f := &fs.slab[0]
	fs.slab = fs.slab[1:]
	return f
}

// fileSlab is how many files memFS.newFile allocates at once.
const fileSlab = 64

func newMemFS(v model.FlinkVersion) *memFS {
	return &memFS{files: map[string]*file{}, dirs: map[string]*dirNode{}, version: v}
}

// dirNode is a directory of memFS: the paths of the files directly in it and of its
// subdirectories. files is appended to as files are created and not cut as they are deleted
// (a path may also come twice, deleted and created again): n counts the files there.
type dirNode struct {
	files   []string
	n       int
	subdirs map[string]struct{}
}

type lastDir struct {
	path string
	node *dirNode
}

func (d *dirNode) empty() bool { return d.n == 0 && len(d.subdirs) == 0 }

// parentDir is the directory path lies in, and false when it lies in none (no '/').
func parentDir(path string) (string, bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", false
	}
	return path[:i], true
}

// addDir returns directory dir, adding it (and the directories it lies in) when missing.
func (fs *memFS) addDir(dir string) *dirNode {
	if fs.lastDir.path == dir && fs.lastDir.node != nil {
		return fs.lastDir.node // (a snapshot writes its files into one directory)
	}
	d := fs.dirs[dir]
	if d != nil {
		fs.lastDir = lastDir{dir, d}
		return d
	}
	d = &dirNode{}
	fs.dirs[dir] = d
	if parent, ok := parentDir(dir); ok {
		pd := fs.addDir(parent)
		if pd.subdirs == nil {
			pd.subdirs = map[string]struct{}{}
		}
		pd.subdirs[dir] = struct{}{}
	}
	return d
}

// dropDir removes directory dir, now empty, and each directory it lies in that is left empty.
func (fs *memFS) dropDir(dir string) {
	fs.forgetDir(dir)
	if parent, ok := parentDir(dir); ok {
		if d := fs.dirs[parent]; d != nil {
			delete(d.subdirs, dir)
			if d.empty() {
				fs.dropDir(parent)
			}
		}
	}
}

// isDir reports whether some file lies below dir.
func (fs *memFS) isDir(dir string) bool { return fs.dirs[strings.TrimSuffix(dir, "/")] != nil }

func (fs *memFS) put(path string, content any, size int64) model.StreamHandle {
	f := fs.create(path)
	f.content, f.size = content, size
	return model.StreamHandle{Path: path, Size: size}
}

// create returns a new, empty file at path, in place of the one there (cleared).
func (fs *memFS) create(path string) *file {
	f := fs.newFile()
	if old := fs.files[path]; old != nil {
		*old = file{}
	} else if dir, ok := parentDir(path); ok {
		d := fs.addDir(dir)
		d.files = append(d.files, path)
		d.n++
	}
	fs.files[path] = f
	return f
}

// removeAll deletes dir and everything below it.
func (fs *memFS) removeAll(dir string) {
	fs.remove(dir)
	fs.removeBelow(strings.TrimSuffix(dir, "/"))
}

// removeDirs deletes everything below any of dirs but "".
func (fs *memFS) removeDirs(dirs map[string]bool) {
	for d := range dirs { // (the order of the deletions does not matter)
		if d != "" {
			fs.removeBelow(d)
		}
	}
}

// removeBelow deletes every file below dir.
func (fs *memFS) removeBelow(dir string) {
	d := fs.dirs[dir]
	if d == nil {
		return
	}
	fs.dropTree(dir, d)
	if parent, ok := parentDir(dir); ok {
		if pd := fs.dirs[parent]; pd != nil {
			delete(pd.subdirs, dir)
			if pd.empty() {
				fs.dropDir(parent)
			}
		}
	}
}

// dropTree deletes directory dir (d), its files and its subdirectories, leaving the directory
// it lies in to the caller.
func (fs *memFS) dropTree(dir string, d *dirNode) {
	for _, p := range d.files {
		if _, ok := fs.files[p]; ok { // (not deleted since, nor listed twice)
			fs.drop(p)
		}
	}
	for sub := range d.subdirs {
		fs.dropTree(sub, fs.dirs[sub])
	}
	fs.forgetDir(dir)
}

// forgetDir deletes directory dir from the index.
func (fs *memFS) forgetDir(dir string) {
	delete(fs.dirs, dir)
	if fs.lastDir.path == dir {
		fs.lastDir = lastDir{}
	}
}

func (fs *memFS) read(h model.StreamHandle) (any, error) {
	f, ok := fs.files[h.Path]
	if !ok {
		return nil, fmt.Errorf("state file %s does not exist", h.Path)
	}
	fs.load(f)
	return f.content, nil
}

// load encodes f's content if it was written unencoded (writeMetadata).
func (fs *memFS) load(f *file) {
	if f.meta == nil || f.meta.unencoded == nil {
		return
	}
	b, err := metadata.Append(fs.scratch[:0], f.meta.unencoded)
	if err != nil {
		panic("sim: internal error: writing metadata: " + err.Error())
	}
	fs.scratch = b
	f.content, f.size, f.meta.unencoded = bytes.Clone(b), int64(len(b)), nil
}

// sourceTask is a source subtask: the splits it owns and their next offsets.
type sourceTask struct {
	offsets map[int]int64
	// unionReceived is the complete union list received at the last restore (UNION mode); the
	// subtask keeps only its share (split mod parallelism) in offsets, as the legacy Kafka
	// consumer does. Kept for the oracle's union check until the next step.
	unionReceived []splitOffset
}

// entry is a key's keyed state on a keyed subtask.
type entry struct {
	hash  int32
	stamp uint32 // keyedTask.restores when restoreKeyed last restored it
	sum   int64  // managed keyed value state
	count int64  // raw keyed state
}

// keyedTask is a keyed subtask.
type keyedTask struct {
	index   int
	keyType KeyType // the type of the keys (the job's, or Integer for a keyed stage)
	kgs     model.KeyGroupRange
	values  map[string]*entry
	rules   map[string]int64 // broadcast map state; nil when the job has none
	// Incremental backend: the shared files of this backend instance, oldest first, the dirty
	// key groups since the last checkpoint, and the backend's identity.
	chain     []model.SharedFile
	dirty     map[int]bool
	backendID string
	// restores counts restoreKeyed's calls: an entry's stamp is the call that restored it last.
	restores uint32
	// offsets is, managed and raw, the key-group offsets of the last full snapshot and a
	// scratch: a snapshot with the same offsets shares the last one's (read only).
	offsets [2]struct{ last, scratch []int64 }
}

func newKeyedTask(i int, kgs model.KeyGroupRange, keyType KeyType, broadcast bool, backendID string) keyedTask {
	t := keyedTask{index: i, keyType: keyType, kgs: kgs, values: map[string]*entry{}, backendID: backendID}
	if broadcast {
		t.rules = map[string]int64{}
	}
	return t
}

func sortedInts[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// snapshotKeyGroups writes the entries of the key groups in kgs (all of the task's range for a
// full snapshot) to a file in key-group order and returns a key-groups handle with one offset per
// key group (the stream position of its first entry, entryOffset), as Flink's heap backend
// writes them.
func (t *keyedTask) snapshotKeyGroups(fs *memFS, path string, maxPar int, raw bool) *model.KeyGroupsStateHandle {
	entries := t.entriesIn(maxPar, func(int) bool { return true }, raw)
	o := &t.offsets[0]
	if raw {
		o = &t.offsets[1]
	}
	offsets := slices.Grow(o.scratch[:0], t.kgs.NumberOfKeyGroups())[:t.kgs.NumberOfKeyGroups()]
	i := 0
	for kg := t.kgs.Start; kg <= t.kgs.End; kg++ {
		for i < len(entries) && entries[i].KeyGroup < kg {
			i++
		}
		offsets[kg-t.kgs.Start] = entryOffset(i)
	}
	o.scratch = offsets
	if !slices.Equal(offsets, o.last) {
		o.last = slices.Clone(offsets)
	}
	offsets = o.last
	h := fs.put(path, entries, entryOffset(len(entries)))
	return &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: t.kgs, Offsets: offsets}, Delegate: h}
}

// entriesIn lists the task's entries whose key group passes keep, sorted by (key group, key).
func (t *keyedTask) entriesIn(maxPar int, keep func(kg int) bool, raw bool) []kv {
	out := make([]kv, 0, len(t.values))
	for k, e := range t.values {
		kg := model.ComputeKeyGroupForKeyHash(e.hash, maxPar)
		if !keep(kg) {
			continue
		}
		v := e.sum
		if raw {
			v = e.count
		}
		out = append(out, kv{KeyGroup: kg, Key: k, Value: v})
	}
	slices.SortFunc(out, func(a, b kv) int {
		if a.KeyGroup != b.KeyGroup {
			return a.KeyGroup - b.KeyGroup
		}
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return out
}

// readKeyGroups reads a key-groups handle: for every key group of the handle's (possibly cut)
// range it seeks to the group's offset and reads entries while they belong to that group, as
// Flink's heap restore does, checking the key group it finds.
func readKeyGroups(fs *memFS, h *model.KeyGroupsStateHandle) ([]kv, error) {
	c, err := fs.read(h.Delegate)
	if err != nil {
		return nil, err
	}
	entries, ok := c.([]kv)
	if !ok {
		return nil, fmt.Errorf("state file %s is not a key-groups file", h.Delegate.Path)
	}
	var out []kv
	r := h.Offsets.Range
	for kg := r.Start; kg <= r.End; kg++ {
		pos, err := h.Offsets.Offset(kg)
		if err != nil {
			return nil, err
		}
		off, ok := entryIndex(pos)
		if !ok || off > int64(len(entries)) {
			return nil, fmt.Errorf("offset %d of key group %d outside %s", pos, kg, h.Delegate.Path)
		}
		for i := off; i < int64(len(entries)) && entries[i].KeyGroup <= kg; i++ {
			if entries[i].KeyGroup != kg {
				return nil, fmt.Errorf("unexpected key group %d at offset %d of %s, want %d", entries[i].KeyGroup, i, h.Delegate.Path, kg)
			}
			out = append(out, entries[i])
		}
	}
	return out, nil
}

// incrementalFile is one shared file of the incremental backend: the complete contents of the
// key groups that changed since the previous checkpoint (later files override earlier ones).
type incrementalFile struct {
	KeyGroups []int // the key groups the file replaces, sorted
	Entries   []kv
}

// snapshotIncremental uploads the dirty key groups as a new shared file and returns a handle
// referencing every shared file of the backend's chain. Its meta state is private to the
// checkpoint: written into the checkpoint's exclusive directory dir, it goes when the checkpoint
// is discarded (IncrementalRemoteKeyedStateHandle.discardState discards the meta and private
// state, the shared files are the registry's).
func (t *keyedTask) snapshotIncremental(fs *memFS, dir string, checkpointID int64, maxPar int, fileSeq *int) *model.IncrementalKeyedStateHandle {
	if len(t.dirty) > 0 || len(t.chain) == 0 {
		dirty := t.dirty
		all := len(t.chain) == 0 // first snapshot of this backend: everything
		kgs := sortedInts(dirty)
		if all {
			kgs = kgs[:0]
			for kg := t.kgs.Start; kg <= t.kgs.End; kg++ {
				kgs = append(kgs, kg)
			}
		}
		entries := t.entriesIn(maxPar, func(kg int) bool { return all || dirty[kg] }, false)
		*fileSeq++
		name := fmt.Sprintf("%06d.sst", *fileSeq)
		h := fs.put("shared/"+t.backendID+"/"+name, incrementalFile{KeyGroups: kgs, Entries: entries}, int64(len(entries))*16+8)
		t.chain = append(t.chain, model.SharedFile{LocalPath: name, Handle: h})
		clear(t.dirty)
	}
	meta := fs.put(dir+"/meta-"+t.backendID, nil, 64)
	return &model.IncrementalKeyedStateHandle{
		BackendID: t.backendID, Range: t.kgs, CheckpointID: checkpointID,
		Shared: slices.Clone(t.chain), Meta: meta,
	}
}

// readIncremental reads a whole incremental handle: its shared files applied in order.
func readIncremental(fs *memFS, h *model.IncrementalKeyedStateHandle) ([]kv, error) {
	files := make([]incrementalFile, len(h.Shared))
	lo, hi := math.MaxInt, math.MinInt // the key groups some file replaces
	for j, f := range h.Shared {
		src := f.Handle
		if h.Local { // a local copy: the file is in the TaskManager's local directory
			src = model.StreamHandle{Path: f.LocalPath}
		}
		c, err := fs.read(src)
		if err != nil {
			return nil, fmt.Errorf("shared file of checkpoint %d: %w", h.CheckpointID, err)
		}
		inc, ok := c.(incrementalFile)
		if !ok {
			return nil, fmt.Errorf("state file %s is not an incremental file", f.Handle.Path)
		}
		files[j] = inc
		if n := len(inc.KeyGroups); n > 0 {
			lo, hi = min(lo, inc.KeyGroups[0]), max(hi, inc.KeyGroups[n-1])
		}
	}
	// A file replaces the key groups it lists: an entry counts when no later file lists its key
	// group. last[kg-lo] is the last file listing kg (-1: none).
	var last []int32
	if lo <= hi {
		last = make([]int32, hi-lo+1)
		for i := range last {
			last[i] = -1
		}
		for j, inc := range files {
			for _, kg := range inc.KeyGroups {
				last[kg-lo] = int32(j)
			}
		}
	}
	n := 0
	for _, inc := range files {
		n += len(inc.Entries)
	}
	out := make([]kv, 0, n)
	for j, inc := range files {
		for _, e := range inc.Entries {
			if kg := e.KeyGroup; kg < lo || kg > hi || int(last[kg-lo]) <= j {
				out = append(out, e)
			}
		}
	}
	// In key-group order; within a key group, in file then entry order.
	slices.SortStableFunc(out, func(a, b kv) int { return cmp.Compare(a.KeyGroup, b.KeyGroup) })
	return out, nil
}

// The simulated state streams are laid out as Flink's are: a header (the serialization proxy
// with the states' meta information, streamHeader bytes), then the elements, entryBytes each.
// Handles record stream positions, so no element is at offset 0, and an element's bytes run to
// the next element's offset (the last one's to the end of the stream).
const (
	streamHeader = 8
	entryBytes   = 16
)

// entryOffset is the stream position of element i.
func entryOffset(i int) int64 { return streamHeader + entryBytes*int64(i) }

// entryIndex is the element at stream position pos (false: no element starts there).
func entryIndex(pos int64) (int64, bool) {
	if pos < streamHeader || (pos-streamHeader)%entryBytes != 0 {
		return 0, false
	}
	return (pos - streamHeader) / entryBytes, true
}

// An operator-state file holds the elements of one subtask's named list states (listsFile),
// or its broadcast map states (mapsFile). (Maps, so that a file's content is stored in an
// interface without an allocation.)
type (
	// listsFile is, by name, a list state's elements, each with the index (in the stream's
	// element order, names sorted) of its first element.
	listsFile map[string]opList
	// mapsFile is, by name, a broadcast map state's entries.
	mapsFile map[string]map[string]int64
)

// opList is a list state's elements in an operator-state file, from stream element Start on.
type opList struct {
	Start int
	Elems []splitOffset
}

// backendIDFor names a keyed backend: vertex, job instance (epoch), in-place rescale generation
// (only when above 0) and subtask.
func backendIDFor(vertex string, epoch, generation, subtask int) string {
	if generation > 0 {
		return vertex + "-" + strconv.Itoa(epoch) + "g" + strconv.Itoa(generation) + "-" + strconv.Itoa(subtask)
	}
	return vertex + "-" + strconv.Itoa(epoch) + "-" + strconv.Itoa(subtask)
}
