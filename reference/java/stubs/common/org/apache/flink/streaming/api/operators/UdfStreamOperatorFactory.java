package org.apache.flink.streaming.api.operators;

/**
 * Stub of UdfStreamOperatorFactory (restoresim): the real one extends StreamOperatorFactory,
 * which reaches the task runtime. StreamGraphHasherV2 names it only in a debug log line.
 */
public interface UdfStreamOperatorFactory<OUT> {
    String getUserFunctionClassName();
}
