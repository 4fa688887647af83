package org.apache.flink.runtime.state;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;

import org.slf4j.Logger;

/**
 * Stub of CheckpointStorageLoader (restoresim): the real one reaches the state backends and the
 * task runtime. Checkpoints calls it only to dispose of savepoints, which the driver never does.
 * Both signatures: 1.x (with the default savepoint directory) and 2.x (job and cluster config).
 */
public final class CheckpointStorageLoader {
    private CheckpointStorageLoader() {}

    public static CheckpointStorage load(
            CheckpointStorage fromApplication,
            Path defaultSavepointDirectory,
            StateBackend configuredStateBackend,
            Configuration config,
            ClassLoader classLoader,
            Logger logger) {
        throw new UnsupportedOperationException("restoresim: checkpoint storage is not loaded");
    }

    public static CheckpointStorage load(
            CheckpointStorage fromApplication,
            StateBackend configuredStateBackend,
            Configuration jobConfig,
            Configuration clusterConfig,
            ClassLoader classLoader,
            Logger logger) {
        throw new UnsupportedOperationException("restoresim: checkpoint storage is not loaded");
    }
}
