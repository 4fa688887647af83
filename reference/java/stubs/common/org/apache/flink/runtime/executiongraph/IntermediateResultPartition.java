package org.apache.flink.runtime.executiongraph;

/**
 * Stub of IntermediateResultPartition (restoresim): imported for javadoc by DistributionPattern and
 * IntermediateResultPartitionID only; the real one reaches the scheduler's partition groups.
 */
public class IntermediateResultPartition {}
