package org.apache.flink.runtime.state.storage;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageAccess;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;

/**
 * Stub of JobManagerCheckpointStorage (restoresim): the real one reaches the memory backend's
 * storage classes. Checkpoints creates it only to dispose of savepoints (never done here).
 */
public class JobManagerCheckpointStorage implements CheckpointStorage {
    private static final long serialVersionUID = 1L;

    @Override
    public CompletedCheckpointStorageLocation resolveCheckpoint(String externalPointer) {
        throw new UnsupportedOperationException("restoresim: no checkpoint storage");
    }

    @Override
    public CheckpointStorageAccess createCheckpointStorage(JobID jobId) {
        throw new UnsupportedOperationException("restoresim: no checkpoint storage");
    }
}
