package restoresim.reference;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * restoresim's reference driver: one request a line on stdin, one answer a line on stdout, in the
 * JSON of ASSIGN-CASE.md. Requests: {"op":"ping"}, {"op":"assign","case":{...}}, the pure pieces of Pure.java,
 * {"op":"metadata_roundtrip","bytes":"<base64>"} (Metadata.java),
 * {"op":"load_and_validate","bytes":"<base64>","vertices":[...]} (Validate.java),
 * {"op":"uid_hash","graphs":[...]} (Hasher.java), {"op":"registry","steps":[...]}
 * (Registry.java), {"op":"store","steps":[...]} (Store.java), {"op":"priority","cases":[...]}
 * (Priority.java). Anything the
 * driver itself cannot handle is answered with {"error":{"stage":"driver",...}}, never by exiting.
 */
public final class Driver {
    private Driver() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        // Flink's classes log through slf4j; with no binding it prints a warning once to stderr.
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            Object answer;
            try {
                answer = handle(line);
            } catch (Throwable t) {
                answer = Assign.errorAnswer("driver", t);
            }
            out.println(Json.write(answer));
            // Flush when no further request is waiting: a client that pipelines many requests
            // gets its answers in large writes, one that waits for each answer at once.
            if (!in.ready()) {
                out.flush();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Object handle(String line) throws Exception {
        Map<String, Object> req = (Map<String, Object>) Json.parse(line);
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
        throw new IllegalArgumentException("unknown op " + op);
    }
}
