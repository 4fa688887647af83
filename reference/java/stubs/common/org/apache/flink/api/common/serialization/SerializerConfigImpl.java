package org.apache.flink.api.common.serialization;

import org.apache.flink.api.common.ExecutionConfig;

/**
 * Stub of SerializerConfigImpl (restoresim; Flink 1.19 and 1.20): the real one reaches Kryo.
 * Only TypeInformation.createSerializer(SerializerConfig) names it, which the driver
 * (SqlKey.java) never calls (see SerializerConfig).
 */
public final class SerializerConfigImpl implements SerializerConfig {
    private static final long serialVersionUID = 1L;

    public ExecutionConfig getExecutionConfig() {
        throw new UnsupportedOperationException("restoresim: no serializer configuration");
    }
}
