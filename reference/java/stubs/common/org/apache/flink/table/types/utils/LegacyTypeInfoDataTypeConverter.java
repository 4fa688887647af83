package org.apache.flink.table.types.utils;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.types.DataType;

/**
 * Stub of LegacyTypeInfoDataTypeConverter (restoresim): the real one reaches DataTypes and,
 * through the type extraction, shaded ASM, which no Debian jar provides. The LogicalTypes of a
 * SQL key reach it only through LegacyTypeInformationType, which imports it for its
 * documentation; the driver (SqlKey.java) constructs atomic types only, so it is not reached.
 */
public final class LegacyTypeInfoDataTypeConverter {
    private LegacyTypeInfoDataTypeConverter() {}

    public static DataType toDataType(TypeInformation<?> typeInfo) {
        throw new UnsupportedOperationException("restoresim: legacy types are not converted");
    }

    public static TypeInformation<?> toLegacyTypeInfo(DataType dataType) {
        throw new UnsupportedOperationException("restoresim: legacy types are not converted");
    }
}
