package model

// Mutant is one known bug the model can be built with (build tag mutants, environment variable
// RESTORESIM_MUTANT=<Name>) to show that the property suite catches it.
type Mutant struct {
	// Name is the kebab-case name RESTORESIM_MUTANT selects.
	Name string
	// Bug says what the mutant gets wrong, and where.
	Bug string
}

// Mutants lists the mutant catalogue, in a fixed order. The normal build ignores it: the hooks
// (`if mutant(name)`) are compiled away unless the build tag mutants is set.
func Mutants() []Mutant {
	return []Mutant{
		{"range-floor", "ComputeKeyGroupRangeForOperatorIndex: the textbook floor formula [⌊i·M/p⌋, ⌊(i+1)·M/p⌋−1] instead of Flink's ceiling"},
		{"keygroup-plain-hash", "ComputeKeyGroupForKeyHash: |hashCode| mod M without murmur"},
		{"split-insertion-order", "RepartitionOperatorState: SPLIT_DISTRIBUTE names in insertion order instead of java.util.HashMap order"},
		{"union-as-split", "RepartitionOperatorState: UNION state split round-robin like list state"},
		{"broadcast-subtask-zero", "RepartitionOperatorState: BROADCAST state given to new subtask 0 only"},
		{"roundrobin-drop-remainder", "RepartitionOperatorState: the remainder T mod P_new of SPLIT_DISTRIBUTE partitions dropped"},
		{"maxpar-change-accepted", "LoadAndValidateCheckpoint: a changed configured max parallelism accepted"},
		{"allow-non-restored-ignored", "LoadAndValidateCheckpoint: unmatched state silently dropped without allowNonRestoredState"},
		{"registry-discard-first-release", "shared-state registries: a shared file discarded on its first release (1.18: when its creating checkpoint is subsumed; 1.10.1: on the first unregistration)"},
		{"counter-not-reset", "Coordinator.RestoreSavepoint: the checkpoint ID counter not reset to the restored ID + 1"},
		{"range-end-exclusive", "KeyGroupRange.Contains: the end key group treated as exclusive"},
		{"local-stale-preferred", "PrioritizeTaskRestore: a local copy of another checkpoint preferred over the assigned state"},
		{"uid-ignored", "AssignStates: the operator's user-defined ID (setUidHash) ignored when matching state"},
		{"blocking-as-pipelined", "NewFailoverTopology: BLOCKING partitions joined into pipelined regions, so a failure behind one restarts the producer's region too"},
		{"stateless-vertex-repartitioned", "AssignStates (1.18): a vertex whose matched operator states have no subtask entries (stateless) repartitioned, so its max-parallelism preconditions apply"},
	}
}
