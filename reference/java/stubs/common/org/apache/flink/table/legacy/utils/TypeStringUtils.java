package org.apache.flink.table.legacy.utils;

import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Stub of TypeStringUtils of Flink 2.x (restoresim; 1.x has it in org.apache.flink.table.utils):
 * the real one reaches DataTypes and, through the type extraction, shaded ASM, which no Debian jar
 * provides. The LogicalTypes of a SQL key name it only for a LegacyTypeInformationType's string
 * (writeTypeInfo) and LogicalTypeParser's LEGACY type (readTypeInfo); the driver (SqlKey.java)
 * constructs atomic types only and parses none, so neither is reached.
 */
public final class TypeStringUtils {
    private TypeStringUtils() {}

    public static String writeTypeInfo(TypeInformation<?> typeInfo) {
        throw new UnsupportedOperationException("restoresim: legacy type strings are not written");
    }

    public static TypeInformation<?> readTypeInfo(String typeString) {
        throw new UnsupportedOperationException("restoresim: legacy type strings are not read");
    }
}
