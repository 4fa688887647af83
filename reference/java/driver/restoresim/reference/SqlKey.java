// restoresim:requires org/apache/flink/table/data/writer/BinaryRowWriter.java
package restoresim.reference;

import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The key of a SQL job, written by Flink's own classes: a BinaryRowWriter of the key's fields,
 * each value written through BinaryWriter.write (the dispatch on the type root) as Flink's
 * internal data object of its type, a NULL as the planner's CodeGenUtils.binaryWriterWriteNull
 * generates it (writeDecimal(pos, null, p) for a DECIMAL that is not compact,
 * writeTimestamp(pos, null, p) for a TIMESTAMP or TIMESTAMP_LTZ that is not compact, else
 * setNullAt), then complete() and copy(), as a key selector's generated projection does. One
 * writer is reused for the rows of a schema (reset() before each), as the projection reuses its
 * writer. The answer is the row's bytes, BinaryRowData.hashCode and the key group.
 *
 * <p>The first line of this file names the Flink file it needs: the build compiles it only when
 * the sources hold flink-table-runtime's writer package (master moved it to
 * flink-table-type-utils, which the archives do not hold); Driver reaches it by reflection.
 */
final class SqlKey {
    private SqlKey() {}

    /**
     * {"op":"sql_key","max_parallelism":M,"schemas":[{"types":[{"root","length","precision",
     * "scale","nullable"}],"rows":[[value|null,..],..]}]} → {"results":[{"types":[summary,..],
     * "rows":[{"bytes":"<hex>","hash","key_group"}]}]}. Values are strings: a decimal integer
     * (BOOLEAN 0/1, TINYINT..BIGINT, DATE, TIME; DECIMAL: the unscaled value), the raw bits of a
     * FLOAT (int) or DOUBLE (long) in decimal, "millis:nanoOfMillisecond" (TIMESTAMP,
     * TIMESTAMP_LTZ), base64 bytes (CHAR, VARCHAR: the UTF-8 bytes; BINARY, VARBINARY).
     */
    @SuppressWarnings("unchecked")
    static Object run(Map<String, Object> req) {
        int maxP = ((Number) req.get("max_parallelism")).intValue();
        List<Object> results = new ArrayList<>();
        for (Object s : (List<?>) req.get("schemas")) {
            Map<String, Object> schema = (Map<String, Object>) s;
            List<LogicalType> types = new ArrayList<>();
            List<Object> summaries = new ArrayList<>();
            for (Object t : (List<?>) schema.get("types")) {
                LogicalType lt = type((Map<String, Object>) t);
                types.add(lt);
                summaries.add(lt.asSummaryString());
            }
            int arity = types.size();
            BinaryRowData row = new BinaryRowData(arity);
            BinaryRowWriter writer = new BinaryRowWriter(row);
            List<Object> rows = new ArrayList<>();
            for (Object r : (List<?>) schema.get("rows")) {
                List<?> values = (List<?>) r;
                if (values.size() != arity) {
                    throw new IllegalArgumentException(values.size() + " values for " + arity + " fields");
                }
                writer.reset();
                for (int pos = 0; pos < arity; pos++) {
                    LogicalType t = types.get(pos);
                    Object v = values.get(pos);
                    if (v == null) {
                        if (!t.isNullable()) {
                            throw new IllegalArgumentException("NULL in the NOT NULL field " + pos);
                        }
                        writeNull(writer, pos, t);
                    } else {
                        BinaryWriter.write(writer, pos, value(t, (String) v), t, null);
                    }
                }
                writer.complete();
                BinaryRowData key = row.copy();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bytes", hex(BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), key.getSizeInBytes())));
                m.put("hash", key.hashCode());
                m.put("key_group", KeyGroupRangeAssignment.assignToKeyGroup(key, maxP));
                rows.add(m);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("types", summaries);
            m.put("rows", rows);
            results.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("results", results);
        return m;
    }

    /** CodeGenUtils.binaryWriterWriteNull. */
    private static void writeNull(BinaryRowWriter writer, int pos, LogicalType t) {
        switch (t.getTypeRoot()) {
            case DECIMAL:
                if (!DecimalData.isCompact(LogicalTypeChecks.getPrecision(t))) {
                    writer.writeDecimal(pos, null, LogicalTypeChecks.getPrecision(t));
                    return;
                }
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                if (!TimestampData.isCompact(LogicalTypeChecks.getPrecision(t))) {
                    writer.writeTimestamp(pos, null, LogicalTypeChecks.getPrecision(t));
                    return;
                }
                break;
            default:
                break;
        }
        writer.setNullAt(pos);
    }

    private static int num(Map<String, Object> t, String k) {
        Object v = t.get(k);
        return v == null ? 0 : ((Number) v).intValue();
    }

    private static LogicalType type(Map<String, Object> t) {
        boolean n = Boolean.TRUE.equals(t.get("nullable"));
        int len = num(t, "length");
        int p = num(t, "precision");
        String root = (String) t.get("root");
        switch (root) {
            case "CHAR":
                return new CharType(n, len);
            case "VARCHAR":
                return new VarCharType(n, len);
            case "BOOLEAN":
                return new BooleanType(n);
            case "BINARY":
                return new BinaryType(n, len);
            case "VARBINARY":
                return new VarBinaryType(n, len);
            case "DECIMAL":
                return new DecimalType(n, p, num(t, "scale"));
            case "TINYINT":
                return new TinyIntType(n);
            case "SMALLINT":
                return new SmallIntType(n);
            case "INTEGER":
                return new IntType(n);
            case "BIGINT":
                return new BigIntType(n);
            case "FLOAT":
                return new FloatType(n);
            case "DOUBLE":
                return new DoubleType(n);
            case "DATE":
                return new DateType(n);
            case "TIME":
                return new TimeType(n, p);
            case "TIMESTAMP":
                return new TimestampType(n, p);
            case "TIMESTAMP_LTZ":
                return new LocalZonedTimestampType(n, p);
            default:
                throw new IllegalArgumentException("unknown SQL type root " + root);
        }
    }

    /** The internal data object (what a RowData holds) of a value of type t. */
    private static Object value(LogicalType t, String v) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return Integer.parseInt(v) != 0;
            case TINYINT:
                return Byte.parseByte(v);
            case SMALLINT:
                return Short.parseShort(v);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return Integer.parseInt(v);
            case BIGINT:
                return Long.parseLong(v);
            case FLOAT:
                return Float.intBitsToFloat(Integer.parseInt(v));
            case DOUBLE:
                return Double.longBitsToDouble(Long.parseLong(v));
            case CHAR:
            case VARCHAR:
                return StringData.fromBytes(Base64.getDecoder().decode(v));
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode(v);
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) t;
                    DecimalData x =
                            DecimalData.fromBigDecimal(
                                    new BigDecimal(new BigInteger(v), d.getScale()),
                                    d.getPrecision(),
                                    d.getScale());
                    if (x == null) {
                        throw new IllegalArgumentException(v + " does not fit " + t);
                    }
                    return x;
                }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    int i = v.indexOf(':');
                    return TimestampData.fromEpochMillis(
                            Long.parseLong(v.substring(0, i)), Integer.parseInt(v.substring(i + 1)));
                }
            default:
                throw new IllegalArgumentException("no key field of type " + t);
        }
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(2 * b.length);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return s.toString();
    }
}
