package restoresim.reference;

import org.apache.flink.runtime.checkpoint.RescaleMappings;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pure pieces of the restore path, answered by Flink's own classes: key groups of keys
 * (KeyGroupRangeAssignment over the keys' Java hashCode), key-group ranges of subtasks and the
 * default max parallelism, and SubtaskStateMapper's new-to-old mappings.
 */
final class Pure {
    private Pure() {}

    /**
     * {"op":"keygroups","key_type":"int|long|string|boolean|double","keys":[..],
     * "max_parallelism":M,"parallelism":P} → {"results":[{"hash","key_group","operator_index"}]}.
     */
    static Object keyGroups(Map<String, Object> req) {
        String type = (String) req.get("key_type");
        int maxP = ((Number) req.get("max_parallelism")).intValue();
        int p = ((Number) req.get("parallelism")).intValue();
        List<Object> out = new ArrayList<>();
        for (Object k : (List<?>) req.get("keys")) {
            Object key;
            switch (type) {
                case "int":
                    key = ((Number) k).intValue();
                    break;
                case "long":
                    key = Long.parseLong(String.valueOf(k));
                    break;
                case "string":
                    key = (String) k;
                    break;
                case "boolean":
                    key = (Boolean) k;
                    break;
                case "double":
                    key = Double.longBitsToDouble(Long.parseLong(String.valueOf(k)));
                    break;
                default:
                    throw new IllegalArgumentException("unknown key_type " + type);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("hash", key.hashCode());
            m.put("key_group", KeyGroupRangeAssignment.assignToKeyGroup(key, maxP));
            m.put("operator_index", KeyGroupRangeAssignment.assignKeyToParallelOperator(key, maxP, p));
            out.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("results", out);
        return m;
    }

    /**
     * {"op":"ranges","max_parallelism":M,"parallelism":P} → {"default_max_parallelism",
     * "ranges":[{"start","end"}]} (computeKeyGroupRangeForOperatorIndex of every subtask).
     */
    static Object ranges(Map<String, Object> req) {
        int maxP = ((Number) req.get("max_parallelism")).intValue();
        int p = ((Number) req.get("parallelism")).intValue();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("default_max_parallelism", KeyGroupRangeAssignment.computeDefaultMaxParallelism(p));
        List<Object> rs = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            KeyGroupRange r = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxP, p, i);
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("start", r.getStartKeyGroup());
            rm.put("end", r.getEndKeyGroup());
            rs.add(rm);
        }
        m.put("ranges", rs);
        return m;
    }

    /**
     * {"op":"mapper","mapper":"RANGE","old":O,"new":N} → {"ambiguous","identity","mappings":[[..]]}
     * (getNewToOldSubtasksMapping: for each new subtask, the old subtasks it reads).
     */
    static Object mapper(Map<String, Object> req) {
        SubtaskStateMapper mapper = SubtaskStateMapper.valueOf((String) req.get("mapper"));
        int oldP = ((Number) req.get("old")).intValue();
        int newP = ((Number) req.get("new")).intValue();
        RescaleMappings rm = mapper.getNewToOldSubtasksMapping(oldP, newP);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ambiguous", mapper.isAmbiguous());
        m.put("identity", rm.isIdentity());
        List<Object> rows = new ArrayList<>();
        for (int i = 0; i < newP; i++) {
            List<Object> row = new ArrayList<>();
            for (int x : rm.getMappedIndexes(i)) {
                row.add(x);
            }
            rows.add(row);
        }
        m.put("mappings", rows);
        return m;
    }
}
