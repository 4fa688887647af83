// Package plots computes key-group skew analytics from package model and draws them with
// gonum.org/v1/plot: skew per max parallelism, heat maps, per-subtask load of a key sample and
// the share of state moved by a rescale.
//
// The numbers and the pictures are separate. The numeric half is plain functions over ints:
//
//	KeyGroupSkew(M, p)            min/max key groups per subtask and max/mean, in O(1)
//	MovedFraction(M, from, to)    key groups whose subtask changes in a rescale
//	LoadPerKeyGroup, PerSubtask   a key sample (hash, records per distinct key) per key group / subtask
//	LoadPerSubtask                both at once; Load.RecordPeak, KeyGroupPeak, DistinctKeyPeak, Hotspot
//	KeyGroupLoads.WorstRecordSkew the worst record skew of a sample over parallelisms 1..N
//	Advise                        candidate max parallelisms ranked by worst-case skew over L..N
//	ReadKeySample, KeyType        a key file (a key, or key,weight, per line) as KeyLoads
//	CountSkewPairs, CountRescales the size of a KeyGroupSkews or MovedFractions run, before it
//
// All of it follows Flink's KeyGroupRangeAssignment as modelled in package model: subtask i owns
// key groups ⌈i·M/p⌉ … ⌈(i+1)·M/p⌉−1 (the ceiling formula, SPEC §C.6), so every subtask owns
// ⌊M/p⌋ or ⌈M/p⌉ key groups and exactly M mod p of them own the larger number. The tests check
// the closed form against model.ComputeKeyGroupRangeForOperatorIndex and against ranges
// computed by Flink itself.
//
// The text half writes them as 'simulate skew' and 'simulate advise' print them:
// WriteSkewSummary and WriteSkewCSV (KeyGroupSkews), Load.WriteReport and Load.WriteCSV (a key
// sample's load), WriteAdviseReport (with its recommendation) and WriteAdviseCSV (Advise).
//
// The drawing half turns those values into a *Chart (SkewLines, SkewHeatMap, LoadBars,
// MovedChart, and PlanChart.Chart for a savepoint.RestorePlan: NewPlanChart gives one panel
// per task of bytes read per new subtask, LayOutPlan its geometry, ByteUnit and TickStep its
// axes) that encodes to PNG or SVG (Chart.Encode; fonts are built in, SVG can embed
// them) or is written atomically to a file (Chart.WriteFile: temporary file in the same
// directory, fsync, rename). No network is needed. Tests golden the numbers, not the pixels.
package plots
