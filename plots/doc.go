// Package plots computes key-group skew analytics from package model and draws them with
// gonum.org/v1/plot: skew per max parallelism, heat maps, per-subtask load of a key sample and
// the share of state moved by a rescale.
package plots
