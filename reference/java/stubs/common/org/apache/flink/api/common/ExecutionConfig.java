package org.apache.flink.api.common;

/**
 * Stub of ExecutionConfig (restoresim): the real one reaches Kryo, which Debian does not package in
 * Flink's version. The restore path reads only these constants (same values as the real class).
 * getSerializerConfig is named by TypeInformationRawType (1.19 and later), which the SQL key driver
 * (SqlKey.java) never makes, so it throws.
 */
public class ExecutionConfig implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    public static final int PARALLELISM_AUTO_MAX = Integer.MAX_VALUE;
    public static final int PARALLELISM_DEFAULT = -1;
    public static final int PARALLELISM_UNKNOWN = -2;

    /** Configuration extends it; nothing on the restore path reads its parameters. */
    public static class GlobalJobParameters implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        public java.util.Map<String, String> toMap() {
            return java.util.Collections.emptyMap();
        }
    }

    public org.apache.flink.api.common.serialization.SerializerConfig getSerializerConfig() {
        throw new UnsupportedOperationException("restoresim: no serializer configuration");
    }
}
