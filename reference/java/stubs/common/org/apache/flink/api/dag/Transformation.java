package org.apache.flink.api.dag;

/**
 * Stub of Transformation (restoresim): the real one reaches the type system and Kryo;
 * KeyGroupRangeAssignment reads only this constant (same value as the real class).
 */
public abstract class Transformation<T> {
    public static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;
}
