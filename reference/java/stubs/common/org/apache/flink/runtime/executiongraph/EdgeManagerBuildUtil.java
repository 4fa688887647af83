package org.apache.flink.runtime.executiongraph;

/** Stub of EdgeManagerBuildUtil (restoresim): imported for javadoc by DistributionPattern only. */
public final class EdgeManagerBuildUtil {
    private EdgeManagerBuildUtil() {}
}
