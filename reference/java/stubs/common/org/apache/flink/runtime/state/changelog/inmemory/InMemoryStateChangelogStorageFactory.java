package org.apache.flink.runtime.state.changelog.inmemory;

/**
 * Stub of InMemoryStateChangelogStorageFactory (restoresim): the real factory builds the
 * TaskManager's changelog storage (metrics, task runtime); InMemoryChangelogStateHandle reads only
 * this constant (same value as the real class).
 */
public final class InMemoryStateChangelogStorageFactory {
    public static final String IDENTIFIER = "memory";

    private InMemoryStateChangelogStorageFactory() {}
}
