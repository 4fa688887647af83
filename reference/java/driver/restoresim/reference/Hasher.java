package restoresim.reference;

import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Operator IDs from uids, answered by Flink's own StreamGraphHasherV2: each graph's nodes (all
 * with a uid) are hashed by traverseStreamGraphAndGenerateHashes, the user-specified path
 * (MurmurHash3 x64 128 of the uid's UTF-8 bytes, and the collision check).
 */
final class Hasher {
    private Hasher() {}

    /**
     * {"op":"uid_hash","graphs":[{"uids":[[utf16 units..],..],"edges":[[from,to],..]}]} →
     * {"graphs":[{"ids":["<hex>",..]} | {"error":{..}}]}. Node i has ID i+1 and the i-th uid
     * (sent as UTF-16 code units, so unpaired surrogates survive); edges name node indexes.
     */
    static Object uidHash(Map<String, Object> req) {
        List<Object> out = new ArrayList<>();
        for (Object go : (List<?>) req.get("graphs")) {
            Map<?, ?> g = (Map<?, ?>) go;
            List<?> uids = (List<?>) g.get("uids");
            StreamGraph sg = new StreamGraph();
            for (int i = 0; i < uids.size(); i++) {
                List<?> units = (List<?>) uids.get(i);
                char[] cs = new char[units.size()];
                for (int k = 0; k < cs.length; k++) {
                    cs[k] = (char) ((Number) units.get(k)).intValue();
                }
                sg.addNode(i + 1, new String(cs));
            }
            Object edges = g.get("edges");
            if (edges != null) {
                for (Object eo : (List<?>) edges) {
                    List<?> e = (List<?>) eo;
                    sg.addEdge(
                            ((Number) e.get(0)).intValue() + 1, ((Number) e.get(1)).intValue() + 1);
                }
            }
            Map<Integer, byte[]> hashes;
            try {
                hashes = new StreamGraphHasherV2().traverseStreamGraphAndGenerateHashes(sg);
            } catch (RuntimeException e) {
                out.add(Assign.errorAnswer("hash", e));
                continue;
            }
            List<Object> ids = new ArrayList<>();
            for (int i = 0; i < uids.size(); i++) {
                byte[] h = hashes.get(i + 1);
                ids.add(h == null ? null : hex(h));
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ids", ids);
            out.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("graphs", out);
        return m;
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        }
        return sb.toString();
    }
}
