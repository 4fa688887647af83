// Package properties holds restoresim's property-based test suite (pgregory.net/rapid) over
// package model and the simulator: run it with `go test ./properties` (about 3 s; `-short`
// for smaller simulator plans, `-rapid.checks=N` for more cases, `make soak` for many more).
//
// The properties cover key groups and their ranges, MurmurHash, KeyGroupRange algebra,
// operator-state repartitioning (SPLIT_DISTRIBUTE, UNION, BROADCAST, bit-exact against a
// reference), keyed-state assignment (ownership, metamorphic rescaling, handle order),
// restore validation, the shared-state registry and completed-checkpoint store, the
// checkpoint ID counter, local recovery, the restore planner's numbers (refusals, max
// restorable parallelism, bytes read) and the version gate of every (writer format, reader
// release) pair, on generated and real files, a state-machine test over the simulator, determinism,
// and fuzz targets for the scenario parser and the _metadata reader. Every generator labels its
// cases and every property fails when a label falls significantly below its minimum share.
//
// A failure prints rapid's replay line and the shrunk case (simulator properties: the plan in
// scenario syntax); README.md explains how to replay it and commit it as a scenario file.
// docs/properties.md lists the properties, the labels and the mutant catalogue that
// `make mutants` (../model/internal/mutant/driver) runs the suite against.
package properties
