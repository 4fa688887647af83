package model

import (
	"errors"
	"strconv"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

const (
	// UpperBoundMaxParallelism is KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM (1 << 15).
	UpperBoundMaxParallelism = 1 << 15
	// DefaultLowerBoundMaxParallelism is KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM
	// (1 << 7).
	DefaultLowerBoundMaxParallelism = 1 << 7
)

// ErrParallelismOutOfBounds matches (errors.Is) every *ParallelismOutOfBoundsError: Flink's
// IllegalArgumentException from KeyGroupRangeAssignment.checkParallelismPreconditions.
var ErrParallelismOutOfBounds = errors.New("operator parallelism not within bounds")

// ErrMaxParallelismBelowParallelism matches (errors.Is) every *MaxParallelismBelowParallelismError:
// Flink's IllegalArgumentException from computeKeyGroupRangeForOperatorIndex when the maximum
// parallelism is smaller than the parallelism.
var ErrMaxParallelismBelowParallelism = errors.New("maximum parallelism must not be smaller than parallelism")

// ParallelismOutOfBoundsError is returned for a parallelism (or a max parallelism checked with
// the same precondition) outside 1..UpperBoundMaxParallelism.
type ParallelismOutOfBoundsError struct {
	Parallelism int
}

func (e *ParallelismOutOfBoundsError) Error() string {
	return "Operator parallelism not within bounds: " + strconv.Itoa(e.Parallelism)
}

// Is reports whether target is ErrParallelismOutOfBounds.
func (e *ParallelismOutOfBoundsError) Is(target error) bool {
	return target == ErrParallelismOutOfBounds
}

// MaxParallelismBelowParallelismError is returned when MaxParallelism < Parallelism.
type MaxParallelismBelowParallelismError struct {
	MaxParallelism, Parallelism int
}

func (e *MaxParallelismBelowParallelismError) Error() string {
	return "Maximum parallelism must not be smaller than parallelism: max parallelism " +
		strconv.Itoa(e.MaxParallelism) + " < parallelism " + strconv.Itoa(e.Parallelism)
}

// Is reports whether target is ErrMaxParallelismBelowParallelism.
func (e *MaxParallelismBelowParallelismError) Is(target error) bool {
	return target == ErrMaxParallelismBelowParallelism
}

// CheckParallelismPreconditions models KeyGroupRangeAssignment.checkParallelismPreconditions:
// 0 < parallelism <= UpperBoundMaxParallelism.
func CheckParallelismPreconditions(parallelism int) error {
	if parallelism <= 0 || parallelism > UpperBoundMaxParallelism {
		return &ParallelismOutOfBoundsError{Parallelism: parallelism}
	}
	return nil
}

// ComputeKeyGroupForKeyHash models KeyGroupRangeAssignment.computeKeyGroupForKeyHash:
// MurmurHash(keyHash) % maxParallelism. Like Flink it does not validate maxParallelism; it must
// be positive.
func ComputeKeyGroupForKeyHash(keyHash int32, maxParallelism int) int {
	if mutant.On(mutant.KeyGroupPlainHash) {
		return int(murmurSign(keyHash)) % maxParallelism
	}
	return int(MurmurHash(keyHash)) % maxParallelism
}

// ComputeOperatorIndexForKeyGroup models KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup:
// keyGroup * parallelism / maxParallelism. Not validated, as in Flink.
func ComputeOperatorIndexForKeyGroup(maxParallelism, parallelism, keyGroup int) int {
	return keyGroup * parallelism / maxParallelism
}

// AssignKeyToParallelOperator models KeyGroupRangeAssignment.assignKeyToParallelOperator for a
// key whose Java hashCode is keyHash: the index of the subtask that receives the key. This is
// the hot path of routing; it does not allocate.
func AssignKeyToParallelOperator(keyHash int32, maxParallelism, parallelism int) int {
	return ComputeOperatorIndexForKeyGroup(maxParallelism, parallelism, ComputeKeyGroupForKeyHash(keyHash, maxParallelism))
}

// ComputeKeyGroupRangeForOperatorIndex models
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: the inclusive range
// [⌈i·M/p⌉, ⌈(i+1)·M/p⌉−1]. As in Flink, the parallelism and the max parallelism must both be
// within 1..32768 and the max parallelism must not be below the parallelism; operatorIndex is
// not validated (an index ≥ p gives a range beyond M−1, as Flink does).
func ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, operatorIndex int) (KeyGroupRange, error) {
	if err := CheckParallelismPreconditions(parallelism); err != nil {
		return EmptyKeyGroupRange, err
	}
	if err := CheckParallelismPreconditions(maxParallelism); err != nil {
		return EmptyKeyGroupRange, err
	}
	if maxParallelism < parallelism {
		return EmptyKeyGroupRange, &MaxParallelismBelowParallelismError{MaxParallelism: maxParallelism, Parallelism: parallelism}
	}
	start := (operatorIndex*maxParallelism + parallelism - 1) / parallelism
	end := ((operatorIndex+1)*maxParallelism - 1) / parallelism
	if mutant.On(mutant.RangeFloor) {
		start, end = operatorIndex*maxParallelism/parallelism, (operatorIndex+1)*maxParallelism/parallelism-1
	}
	return NewKeyGroupRange(start, end)
}

// ComputeDefaultMaxParallelism models KeyGroupRangeAssignment.computeDefaultMaxParallelism:
// min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768), after checking the parallelism bounds.
func ComputeDefaultMaxParallelism(parallelism int) (int, error) {
	if err := CheckParallelismPreconditions(parallelism); err != nil {
		return 0, err
	}
	m := roundUpToPowerOfTwo(int32(parallelism + parallelism/2))
	if mutant.On(mutant.DefaultMaxParNoHalf) {
		m = roundUpToPowerOfTwo(int32(parallelism))
	}
	if mutant.On(mutant.DefaultMaxParShortMax) {
		return min(max(int(m), DefaultLowerBoundMaxParallelism), UpperBoundMaxParallelism-1), nil
	}
	return min(max(int(m), DefaultLowerBoundMaxParallelism), UpperBoundMaxParallelism), nil
}

// roundUpToPowerOfTwo models MathUtils.roundUpToPowerOfTwo with Java int arithmetic.
func roundUpToPowerOfTwo(x int32) int32 {
	x--
	x |= x >> 1
	x |= x >> 2
	x |= x >> 4
	x |= x >> 8
	x |= x >> 16
	return x + 1
}
