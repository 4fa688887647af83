package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// InvNoLeak: by the end of the run, every file of the checkpoint storage belongs to a snapshot
// that is still alive — retained by the running job's store, left retained by a job that was
// replaced (cancelled with its checkpoints retained) and not claimed since, or a savepoint no job
// claimed (the user's; a snapshot restored in NO_CLAIM or LEGACY mode stays the user's too).
// Anything else Flink must have deleted: subsumed checkpoints' directories, with their private
// state (incremental meta files included), and shared files no alive snapshot references.
const InvNoLeak = "no-leak"

// liveness is the oracle's record of who owns which snapshot, by directory (unique, where
// checkpoint IDs repeat across jobs).
type liveness struct {
	files     map[string][]string // directory → the snapshot's files (snapshotFiles)
	userOwned map[string]bool     // savepoints no job claimed
	leftBy    map[string]bool     // retained by a replaced job's store, not claimed since
	// preserved are shared files Flink ≥ 1.15 never deletes: those of the checkpoints a new
	// JobManager recovered in a job whose restore mode is not CLAIM (registerAllAfterRestored
	// raises highestNotClaimedCheckpointID to them; a job started without a savepoint has
	// SavepointRestoreSettings.none(), whose mode is NO_CLAIM).
	preserved map[string]bool
}

func newLiveness() liveness {
	return liveness{files: map[string][]string{}, userOwned: map[string]bool{}, leftBy: map[string]bool{}, preserved: map[string]bool{}}
}

// recordSnapshot notes a completed snapshot's files; a savepoint is the user's.
func (w *World) recordSnapshot(f snapshotFacts) {
	w.live.files[f.pointer] = f.files
	if f.savepoint {
		w.live.userOwned[f.pointer] = true
	}
}

// leaveBehind is called when the running job is replaced by a new one (its coordinator goes):
// the snapshots its store retains stay, as a cancelled job leaves its retained checkpoints.
func (w *World) leaveBehind() {
	for _, id := range w.store.Retained() {
		if f, ok := w.facts[id]; ok {
			w.live.leftBy[f.pointer] = true
		}
	}
}

// claimed moves snapshot f to the job that restored it in CLAIM mode (1.10.1 knows no claim:
// its restored savepoints are never discarded).
func (w *World) claimed(f snapshotFacts) {
	if w.plan.Version == model.Flink1101 {
		return
	}
	delete(w.live.userOwned, f.pointer)
	delete(w.live.leftBy, f.pointer)
}

// recovered is called when a new JobManager recovers the retained checkpoints of a job
// restored in mode (SPEC §H.3: for a mode other than CLAIM their shared files become the
// restored, not-claimed state no checkpoint of the job deletes).
func (w *World) recovered(mode model.RestoreMode) {
	if w.plan.Version == model.Flink1101 || mode == model.Claim {
		return
	}
	for _, id := range w.store.Retained() {
		if f, ok := w.facts[id]; ok {
			for _, p := range f.files {
				if strings.HasPrefix(p, "shared/") {
					w.live.preserved[p] = true
				}
			}
		}
	}
}

// checkNoLeak checks, after the last step, that the checkpoint storage holds only files of alive
// snapshots (TaskManagers' local copies, under local/, are not checkpoint storage). A file a
// storage fault damaged is still judged: faults delete, they never add. One violation, naming up
// to three files.
func (w *World) checkNoLeak(step int) {
	alive := maps.Clone(w.live.userOwned)
	maps.Copy(alive, w.live.leftBy)
	for _, id := range w.store.Retained() {
		if f, ok := w.facts[id]; ok {
			alive[f.pointer] = true
		}
	}
	n := len(w.live.preserved)
	for dir := range alive {
		n += len(w.live.files[dir])
	}
	keep := make(map[string]bool, n)
	maps.Copy(keep, w.live.preserved)
	for dir := range alive {
		for _, p := range w.live.files[dir] {
			keep[p] = true
		}
	}
	var leaked []string
	for p := range w.fs.files {
		if !keep[p] && !strings.HasPrefix(p, "local/") {
			leaked = append(leaked, p)
		}
	}
	if len(leaked) == 0 {
		return
	}
	slices.Sort(leaked)
	shown := leaked[:min(3, len(leaked))]
	w.violate(step, InvNoLeak, fmt.Sprintf("%d files no alive snapshot owns are left at the end, e.g. %s", len(leaked), strings.Join(shown, ", ")), "")
}
