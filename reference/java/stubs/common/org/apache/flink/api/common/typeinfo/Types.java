package org.apache.flink.api.common.typeinfo;

/**
 * Stub of Types (restoresim): the real one reaches every TypeInformation (POJOs, generic types
 * serialized by Kryo, which no jar here provides). Of the LogicalTypes of a SQL key only
 * TypeInformationRawType names it, for its default (Types.GENERIC(Object.class), a static field
 * set when that class is initialized); the driver (SqlKey.java) never makes a RAW type, so it is
 * not reached.
 */
public class Types {
    private Types() {}

    public static <T> TypeInformation<T> GENERIC(Class<T> genericClass) {
        throw new UnsupportedOperationException("restoresim: no generic type information");
    }
}
