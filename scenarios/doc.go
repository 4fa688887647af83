// Package scenarios runs scenario files (cockroachdb/datadriven form, under testdata/) through
// the simulator: hand-written regressions and Flink test shapes, replayable from a failing run.
package scenarios
