package org.apache.flink.runtime.state;

/**
 * Stub of StateBackend (restoresim): the real interface creates keyed and operator backends, which
 * reaches the whole task runtime. The metadata path only names the type (Checkpoints' disposal).
 */
public interface StateBackend extends java.io.Serializable {
    default String getName() {
        return this.getClass().getSimpleName();
    }
}
