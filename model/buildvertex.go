package model

import (
	"errors"
	"math"
	"strconv"
)

// This file models the checks Flink makes when it builds the new job's ExecutionJobVertex, before
// any state is assigned (the "build" stage of an assignment case): DefaultVertexParallelismInfo
// bounds the parallelism and the max parallelism, and the ExecutionJobVertex constructor refuses a
// parallelism above the max parallelism. AssignStates does not make them (a vertex that fails them
// is refused there by the restore path's own checks, e.g. CheckMaxParallelismBelowParallelism);
// CheckJobVertex does.

// ErrVertexParallelism matches every refusal of CheckJobVertex: *VertexParallelismAboveMaxError
// and *VertexParallelismOutOfBoundsError.
var ErrVertexParallelism = errors.New("cannot build the job vertex")

// ErrVertexParallelismAboveMax matches every *VertexParallelismAboveMaxError: the JobException of
// the ExecutionJobVertex constructor.
var ErrVertexParallelismAboveMax = errors.New("vertex parallelism is higher than its max parallelism")

// VertexParallelismAboveMaxError is a vertex whose parallelism is above its max parallelism.
type VertexParallelismAboveMaxError struct {
	Vertex                      string
	Parallelism, MaxParallelism int
}

// Error gives Flink's message.
func (e *VertexParallelismAboveMaxError) Error() string {
	return "Vertex " + e.Vertex + "'s parallelism (" + strconv.Itoa(e.Parallelism) + ") is higher than the max parallelism (" +
		strconv.Itoa(e.MaxParallelism) + "). Please lower the parallelism or increase the max parallelism."
}

// Is reports whether target is ErrVertexParallelismAboveMax or ErrVertexParallelism.
func (e *VertexParallelismAboveMaxError) Is(target error) bool {
	return target == ErrVertexParallelismAboveMax || target == ErrVertexParallelism
}

// ErrVertexParallelismOutOfBounds matches every *VertexParallelismOutOfBoundsError: the
// IllegalArgumentException of DefaultVertexParallelismInfo.checkBounds.
var ErrVertexParallelismOutOfBounds = errors.New("vertex parallelism not within bounds")

// VertexParallelismOutOfBoundsError is a vertex parallelism or max parallelism outside
// 1..UpperBoundMaxParallelism.
type VertexParallelismOutOfBoundsError struct {
	// What is "parallelism" or "max parallelism".
	What  string
	Value int
}

// Error gives Flink's message.
func (e *VertexParallelismOutOfBoundsError) Error() string {
	return "Setting " + e.What + " is not in valid bounds (1.." + strconv.Itoa(UpperBoundMaxParallelism) + "), found: " + strconv.Itoa(e.Value)
}

// Is reports whether target is ErrVertexParallelismOutOfBounds or ErrVertexParallelism.
func (e *VertexParallelismOutOfBoundsError) Is(target error) bool {
	return target == ErrVertexParallelismOutOfBounds || target == ErrVertexParallelism
}

// CheckJobVertex models building the ExecutionJobVertex of vx: new
// DefaultVertexParallelismInfo(parallelism, maxParallelism) bounds the parallelism (1..32768) and
// the max parallelism (Integer.MAX_VALUE, PARALLELISM_AUTO_MAX, stands for 32768 from 1.18 on),
// then the ExecutionJobVertex constructor refuses a parallelism above the max parallelism. A
// refusal is a *RefusalError of check CheckVertexParallelism naming the vertex, wrapping a
// *VertexParallelismOutOfBoundsError or *VertexParallelismAboveMaxError. The 1.10.1 checks are
// taken to be the same (not verified: no 1.10 source is at hand).
func CheckJobVertex(v FlinkVersion, vx JobVertex) error {
	if vx.Parallelism < 1 || vx.Parallelism > UpperBoundMaxParallelism {
		return refuseVertex(&VertexParallelismOutOfBoundsError{What: "parallelism", Value: vx.Parallelism}, vx.Name)
	}
	maxPar := vx.MaxParallelism
	if v != Flink1101 && maxPar == math.MaxInt32 {
		maxPar = UpperBoundMaxParallelism
	}
	if maxPar < 1 || maxPar > UpperBoundMaxParallelism {
		return refuseVertex(&VertexParallelismOutOfBoundsError{What: "max parallelism", Value: vx.MaxParallelism}, vx.Name)
	}
	if vx.Parallelism > maxPar {
		return refuseVertex(&VertexParallelismAboveMaxError{Vertex: vx.Name, Parallelism: vx.Parallelism, MaxParallelism: maxPar}, vx.Name)
	}
	return nil
}
