package restoresim.reference;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * restoresim's reference driver: one request a line on stdin, one answer a line on stdout, in the
 * JSON of ASSIGN-CASE.md. Requests: {"op":"ping"}, {"op":"assign","case":{...}}, the pure pieces of Pure.java,
 * {"op":"metadata_roundtrip","bytes":"<base64>"} (Metadata.java),
 * {"op":"load_and_validate","bytes":"<base64>","vertices":[...]} and both at once,
 * {"op":"load_checkpoint",...} (Validate.java),
 * {"op":"uid_hash","graphs":[...]} (Hasher.java), {"op":"registry","steps":[...]}
 * (Registry.java), {"op":"store","steps":[...]} (Store.java), {"op":"priority","cases":[...]}
 * (Priority.java), {"op":"sql_key","schemas":[...]} (SqlKey.java, when compiled). Anything the
 * driver itself cannot handle is answered with {"error":{"stage":"driver",...}}, never by exiting.
 */
public final class Driver {
    private Driver() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedOutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        // Flink's classes log through slf4j; with no binding it prints a warning once to stderr.
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            byte[] answer;
            try {
                answer = answer(line);
            } catch (Throwable t) {
                answer = Json.write(Assign.errorAnswer("driver", t)).getBytes(StandardCharsets.UTF_8);
            }
            out.write(answer);
            out.write('\n');
            // Flush when no further request is waiting: a client that pipelines many requests
            // gets its answers in large writes, one that waits for each answer at once.
            if (!in.ready()) {
                out.flush();
            }
        }
    }

    /** SAME is the answer to an assign request whose answer has the digest it names. */
    static final byte[] SAME = "{\"same_sha256\":true}".getBytes(StandardCharsets.UTF_8);

    /**
     * The answer line to one request. An assign request may carry "same_sha256": the hex SHA-256
     * of the answer line its sender expects (the model's); when Flink's answer line has that
     * digest, the answer is {"same_sha256":true} instead of the line itself, so that a differential
     * of many cases does not ship back the answers that agree byte for byte.
     */
    @SuppressWarnings("unchecked")
    private static byte[] answer(String line) throws Exception {
        Map<String, Object> req = (Map<String, Object>) Json.parse(line);
        Object ans = handle(req);
        Object want = req.get("same_sha256");
        if ("assign".equals(req.get("op")) && want instanceof String) {
            // The digests are taken as the line is written (Json.sha256): an answer that agrees
            // is never held as a whole line (a wide UNION state's is hundreds of MB).
            if (hex(Json.sha256(ans)).equals(want)) {
                return SAME;
            }
            // "same_without_drawn_ids": the digest is of the answer without the state-handle ids
            // Flink drew (ids no handle of the case carries: a handle Flink made, or one the case
            // gave without an id), which no expected answer can know.
            if (Boolean.TRUE.equals(req.get("same_without_drawn_ids"))) {
                Set<String> given = new HashSet<>();
                collectIds(req.get("case"), given);
                List<Map<String, Object>> dropped = new ArrayList<>();
                List<Object> ids = new ArrayList<>();
                dropDrawnIds(ans, given, dropped, ids);
                if (!dropped.isEmpty()) {
                    if (hex(Json.sha256(ans)).equals(want)) {
                        return SAME;
                    }
                    for (int i = 0; i < dropped.size(); i++) { // the line as Flink answered it
                        dropped.get(i).put(ID, ids.get(i));
                    }
                }
            }
        }
        return Json.write(ans).getBytes(StandardCharsets.UTF_8);
    }

    private static final String ID = "state_handle_id";

    /** Adds every "state_handle_id" string in o (a JSON value) to ids. */
    private static void collectIds(Object o, Set<String> ids) {
        if (o instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                if (ID.equals(e.getKey()) && e.getValue() instanceof String) {
                    ids.add((String) e.getValue());
                } else {
                    collectIds(e.getValue(), ids);
                }
            }
        } else if (o instanceof List) {
            for (Object x : (List<?>) o) {
                collectIds(x, ids);
            }
        }
    }

    /**
     * Removes from o every "state_handle_id" not in given, listing the maps it removed one from
     * (dropped) and the ids (ids), so that they can be put back. A map's "state_handle_id" is its
     * last entry (Assign.keyedAnswer), where put puts it back.
     */
    @SuppressWarnings("unchecked")
    private static void dropDrawnIds(
            Object o, Set<String> given, List<Map<String, Object>> dropped, List<Object> ids) {
        if (o instanceof Map) {
            Map<String, Object> m = (Map<String, Object>) o;
            Object id = m.get(ID);
            if (id instanceof String && !given.contains(id)) {
                m.remove(ID);
                dropped.add(m);
                ids.add(id);
            }
            for (Object v : m.values()) {
                dropDrawnIds(v, given, dropped, ids);
            }
        } else if (o instanceof List) {
            for (Object x : (List<?>) o) {
                dropDrawnIds(x, given, dropped, ids);
            }
        }
    }

    private static String hex(byte[] d) {
        StringBuilder b = new StringBuilder(2 * d.length);
        for (byte x : d) {
            b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static Object handle(Map<String, Object> req) throws Exception {
        String op = (String) req.get("op");
        if ("ping".equals(op)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ok", Boolean.TRUE);
            return m;
        }
        if ("assign".equals(op)) {
            return new Assign((Map<String, Object>) req.get("case")).run();
        }
        if ("keygroups".equals(op)) {
            return Pure.keyGroups(req);
        }
        if ("ranges".equals(op)) {
            return Pure.ranges(req);
        }
        if ("mapper".equals(op)) {
            return Pure.mapper(req);
        }
        if ("metadata_roundtrip".equals(op)) {
            return Metadata.roundTrip(req);
        }
        if ("load_and_validate".equals(op)) {
            return Validate.run(req);
        }
        if ("load_checkpoint".equals(op)) {
            return Validate.loadCheckpoint(req);
        }
        if ("uid_hash".equals(op)) {
            return Hasher.uidHash(req);
        }
        if ("registry".equals(op)) {
            return Registry.run(req);
        }
        if ("store".equals(op)) {
            return Store.run(req);
        }
        if ("priority".equals(op)) {
            return Priority.run(req);
        }
        if ("sql_key".equals(op)) {
            return sqlKey(req);
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    /**
     * The sql_key op, by reflection: SqlKey.java is compiled only when the sources hold
     * flink-table-runtime's writer package (its first line says so), so Driver must compile
     * without it.
     */
    private static Object sqlKey(Map<String, Object> req) throws Exception {
        Class<?> c;
        try {
            c = Class.forName("restoresim.reference.SqlKey");
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException(
                    "sql_key: not compiled, the sources hold no org.apache.flink.table.data.writer.BinaryRowWriter");
        }
        java.lang.reflect.Method m = c.getDeclaredMethod("run", Map.class);
        m.setAccessible(true);
        try {
            return m.invoke(null, req);
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw e;
        }
    }
}
