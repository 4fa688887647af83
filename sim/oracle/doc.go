// Package oracle is the simulator's independent judge: what Flink must do, computed from plain
// values (keys, uids, parallelisms, the shape of a job at a snapshot) without package model, the
// code under test. It has its own Java hashCode for every key type the generator makes (int,
// long, String over UTF-16 code units), its own MathUtils.murmurHash and key-group assignment,
// its own key-group ranges (Flink's ceiling formula) and routing, its own uid → operator ID
// (MurmurHash3 x64-128 through github.com/spaolacci/murmur3, as StreamGraphHasherV2 derives it),
// its own default max parallelism, and its own expectation of which restores Flink accepts
// (ExpectRestore). Package sim drives the model through a world and feeds this package what the
// world holds; a bug shared by the model and the oracle would be invisible, so nothing here may
// import a package under model (TestNoModelImport and internal/lint enforce it).
package oracle
