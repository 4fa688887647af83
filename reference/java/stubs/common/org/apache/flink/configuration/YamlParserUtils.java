package org.apache.flink.configuration;

import java.io.File;
import java.util.List;
import java.util.Map;

/**
 * Stub of YamlParserUtils (restoresim, Flink 1.19+): the real one needs snakeyaml-engine, which
 * Debian does not package. Configuration reaches it only when rendering or loading YAML, which the
 * restore path never does: every body throws.
 */
public final class YamlParserUtils {
    private YamlParserUtils() {}

    public static Map<String, Object> loadYamlFile(File file) throws Exception {
        throw new UnsupportedOperationException("restoresim: YAML is not supported by the stub");
    }

    public static String toYAMLString(Object value) {
        throw new UnsupportedOperationException("restoresim: YAML is not supported by the stub");
    }

    public static List<String> convertAndDumpYamlFromFlatMap(Map<String, Object> flattenMap) {
        throw new UnsupportedOperationException("restoresim: YAML is not supported by the stub");
    }

    public static <T> T convertToObject(String value, Class<T> type) {
        throw new UnsupportedOperationException("restoresim: YAML is not supported by the stub");
    }
}
