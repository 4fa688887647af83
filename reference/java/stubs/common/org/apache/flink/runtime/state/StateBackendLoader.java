package org.apache.flink.runtime.state;

import org.apache.flink.configuration.ReadableConfig;

import org.slf4j.Logger;

/**
 * Stub of StateBackendLoader (restoresim): the real one loads every state backend, which reaches
 * the task runtime. Checkpoints calls it only to dispose of savepoints, which the driver never does.
 */
public final class StateBackendLoader {
    private StateBackendLoader() {}

    public static StateBackend loadStateBackendFromConfig(
            ReadableConfig config, ClassLoader classLoader, Logger logger) {
        throw new UnsupportedOperationException("restoresim: state backends are not loaded");
    }
}
