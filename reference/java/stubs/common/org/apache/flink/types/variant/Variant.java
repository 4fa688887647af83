package org.apache.flink.types.variant;

/**
 * Stub of Variant (restoresim; Flink 2.1 and later): the real interface's newBuilder reaches
 * BinaryVariantBuilder and its JSON parser in shaded Jackson, which no jar here provides. A SQL
 * key's classes name it as a type only (RowData.getVariant, BinaryWriter.writeVariant,
 * VariantType's conversion class); the driver (SqlKey.java) makes no VARIANT value, so no
 * method of it is reached.
 */
public interface Variant {}
