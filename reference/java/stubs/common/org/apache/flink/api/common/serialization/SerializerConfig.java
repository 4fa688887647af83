package org.apache.flink.api.common.serialization;

import java.io.Serializable;

/**
 * Stub of SerializerConfig (restoresim; Flink 1.19 and later): the real one reaches Kryo, which
 * Debian does not package in Flink's version. The LogicalTypes of a SQL key reach it only
 * through TypeInformation.createSerializer, called by TypeInformationRawType's
 * createSerializer; the driver (SqlKey.java) makes no RAW type, so nothing of it is reached.
 */
public interface SerializerConfig extends Serializable {}
