package oracle

import "slices"

// LocalHandle is one state handle as the local-recovery approval sees it: the stream whose data
// it holds (a local copy's is the remote stream it copies, so a copy and its original name the
// same data), and what PrioritizedOperatorSubtaskState.Builder's approvers compare: a keyed
// handle's key-group range (Keyed, First, Last), an operator-state handle's
// getStateNameToPartitionOffsets map (NameToOffsets, rendered in a canonical order by the caller).
type LocalHandle struct {
	Stream        string
	Keyed         bool
	First, Last   int
	NameToOffsets string
}

// LocalRead is what Flink's restore reads for one state kind of one subtask.
type LocalRead struct {
	// Streams are the data the task reads (sorted): the approved local copies' originals and
	// the JobManager handles no local copy replaces.
	Streams []string
	// Local reports that a local copy was approved for some handle.
	Local bool
	// Swapped reports that an approved local copy holds other data than the JobManager handle it
	// replaces: the state of another subtask (the local-copy-after-rescale hazard).
	Swapped bool
}

// ExpectLocalRead is what a task restores for one state kind, given the JobManager's handles jm
// and the TaskManager's local copy local for the restored checkpoint (nil: none offered), by the
// rules of PrioritizedOperatorSubtaskState.Builder read again from Flink's source
// (flink-runtime, org.apache.flink.runtime.checkpoint):
//   - resolvePrioritizedAlternatives (operator state with eqStateApprover over
//     getStateNameToPartitionOffsets; keyed state before 1.19 with the key-group range): the local
//     copy is used only when the JobManager has exactly one handle and the copy exactly one
//     handle, and the approver says they match;
//   - keyed state from 1.19 on (mixedKeyed, FLINK-33341, tryComputeMixedLocalAndRemoteAlternative):
//     every JobManager handle whose key-group range equals a local handle's range is replaced by
//     that local handle.
//
// The approvers never look at the stream: Swapped is where that matters.
func ExpectLocalRead(jm, local []LocalHandle, mixedKeyed bool) LocalRead {
	read := make([]string, len(jm))
	var r LocalRead
	replace := func(j int, l LocalHandle) {
		read[j] = l.Stream
		r.Local = true
		if l.Stream != jm[j].Stream {
			r.Swapped = true
		}
	}
	for j, h := range jm {
		read[j] = h.Stream
	}
	keyed := len(jm) > 0 && jm[0].Keyed
	switch {
	case len(local) == 0 || len(jm) == 0:
	case keyed && mixedKeyed:
		taken := make([]bool, len(jm))
		for _, l := range local {
			for j, h := range jm {
				if !taken[j] && h.First == l.First && h.Last == l.Last {
					taken[j] = true
					replace(j, l)
					break
				}
			}
		}
	case len(jm) == 1 && len(local) == 1:
		h, l := jm[0], local[0]
		if keyed && h.First == l.First && h.Last == l.Last || !keyed && h.NameToOffsets == l.NameToOffsets {
			replace(0, l)
		}
	}
	slices.Sort(read)
	r.Streams = read
	return r
}
