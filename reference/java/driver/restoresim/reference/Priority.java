package restoresim.reference;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.PrioritizedOperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.StateObjectCollection;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.state.InputChannelStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.ResultSubpartitionStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flink's own PrioritizedOperatorSubtaskState.Builder(jobManagerState, alternativesByPriority,
 * restoredCheckpointId).build(): which of the JobManager's state and the TaskManager's local
 * alternatives a restored subtask tries, in which order.
 */
final class Priority {
    private Priority() {}

    /**
     * {"op":"priority","cases":[{"jm":subtask,"alternatives":[subtask|null...],"checkpoint":id|null}]}
     * → {"cases":[{"managed_keyed":[[name|null...]...],"raw_keyed":..,"managed_operator":..,
     * "raw_operator":..,"input_channel":..,"result_subpartition":..,"restored":b,"checkpoint":id}
     * | {"error":{..}}]}. A subtask is {"managed_keyed":[{"name":n,"start":s,"end":e}|null],
     * "raw_keyed":[..], "managed_operator":[{"name":n,"states":[{"name":s,"mode":m,"offsets":[..]}]}],
     * "raw_operator":[..], "input_channel":[{"name":n,"subtask":i,"gate":g,"channel":c}],
     * "result_subpartition":[..]}; every handle's delegate is a ByteStreamStateHandle named n,
     * which is how the answer names it.
     */
    static Object run(Map<String, Object> req) {
        List<Object> out = new ArrayList<>();
        for (Object co : (List<?>) req.get("cases")) {
            Map<?, ?> c = (Map<?, ?>) co;
            try {
                OperatorSubtaskState jm = subtask((Map<?, ?>) c.get("jm"));
                List<OperatorSubtaskState> alts = new ArrayList<>();
                for (Object a : (List<?>) c.get("alternatives")) {
                    alts.add(a == null ? null : subtask((Map<?, ?>) a));
                }
                Number id = (Number) c.get("checkpoint");
                PrioritizedOperatorSubtaskState p =
                        new PrioritizedOperatorSubtaskState.Builder(
                                        jm, alts, id == null ? null : id.longValue())
                                .build();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("managed_keyed", names(p.getPrioritizedManagedKeyedState()));
                m.put("raw_keyed", names(p.getPrioritizedRawKeyedState()));
                m.put("managed_operator", names(p.getPrioritizedManagedOperatorState()));
                m.put("raw_operator", names(p.getPrioritizedRawOperatorState()));
                m.put("input_channel", names(field(p, "prioritizedInputChannelState")));
                m.put("result_subpartition", names(field(p, "prioritizedResultSubpartitionState")));
                m.put("restored", p.isRestored());
                m.put("checkpoint", p.getRestoredCheckpointId());
                out.add(m);
            } catch (RuntimeException e) {
                out.add(Assign.errorAnswer("priority", e));
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cases", out);
        return m;
    }

    /** A private list of alternatives (the channel kinds have a getter for the last one only). */
    private static List<?> field(PrioritizedOperatorSubtaskState p, String name) {
        try {
            java.lang.reflect.Field f = PrioritizedOperatorSubtaskState.class.getDeclaredField(name);
            f.setAccessible(true);
            return (List<?>) f.get(p);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Object> names(List<?> alternatives) {
        List<Object> out = new ArrayList<>();
        for (Object a : alternatives) {
            List<Object> l = new ArrayList<>();
            for (Object h : (StateObjectCollection<?>) a) {
                l.add(h == null ? null : name((StateObject) h));
            }
            out.add(l);
        }
        return out;
    }

    private static String name(StateObject h) {
        Object d;
        if (h instanceof KeyGroupsStateHandle) {
            d = ((KeyGroupsStateHandle) h).getDelegateStateHandle();
        } else if (h instanceof OperatorStateHandle) {
            d = ((OperatorStateHandle) h).getDelegateStateHandle();
        } else if (h instanceof InputChannelStateHandle) {
            d = ((InputChannelStateHandle) h).getDelegate();
        } else if (h instanceof ResultSubpartitionStateHandle) {
            d = ((ResultSubpartitionStateHandle) h).getDelegate();
        } else {
            throw new IllegalStateException("unexpected handle " + h.getClass().getName());
        }
        return ((ByteStreamStateHandle) d).getHandleName();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static OperatorSubtaskState subtask(Map<?, ?> s) {
        OperatorSubtaskState.Builder b = OperatorSubtaskState.builder();
        b.setManagedKeyedState(new StateObjectCollection<>(keyed(s.get("managed_keyed"))));
        b.setRawKeyedState(new StateObjectCollection<>(keyed(s.get("raw_keyed"))));
        b.setManagedOperatorState(new StateObjectCollection<>(operator(s.get("managed_operator"))));
        b.setRawOperatorState(new StateObjectCollection<>(operator(s.get("raw_operator"))));
        List<InputChannelStateHandle> in = new ArrayList<>();
        for (Object o : list(s.get("input_channel"))) {
            Map<?, ?> h = (Map<?, ?>) o;
            in.add(
                    new InputChannelStateHandle(
                            num(h, "subtask"),
                            new InputChannelInfo(num(h, "gate"), num(h, "channel")),
                            delegate(h),
                            new ArrayList<Long>(),
                            1L));
        }
        b.setInputChannelState((StateObjectCollection) new StateObjectCollection<>(in));
        List<ResultSubpartitionStateHandle> res = new ArrayList<>();
        for (Object o : list(s.get("result_subpartition"))) {
            Map<?, ?> h = (Map<?, ?>) o;
            res.add(
                    new ResultSubpartitionStateHandle(
                            num(h, "subtask"),
                            new ResultSubpartitionInfo(num(h, "gate"), num(h, "channel")),
                            delegate(h),
                            new ArrayList<Long>(),
                            1L));
        }
        b.setResultSubpartitionState((StateObjectCollection) new StateObjectCollection<>(res));
        return b.build();
    }

    private static List<KeyedStateHandle> keyed(Object o) {
        List<KeyedStateHandle> l = new ArrayList<>();
        for (Object e : list(o)) {
            if (e == null) {
                l.add(null);
                continue;
            }
            Map<?, ?> h = (Map<?, ?>) e;
            KeyGroupRange r = KeyGroupRange.of(num(h, "start"), num(h, "end"));
            l.add(new KeyGroupsStateHandle(new KeyGroupRangeOffsets(r), delegate(h)));
        }
        return l;
    }

    private static List<OperatorStateHandle> operator(Object o) {
        List<OperatorStateHandle> l = new ArrayList<>();
        for (Object e : list(o)) {
            Map<?, ?> h = (Map<?, ?>) e;
            Map<String, OperatorStateHandle.StateMetaInfo> states = new LinkedHashMap<>();
            for (Object so : list(h.get("states"))) {
                Map<?, ?> st = (Map<?, ?>) so;
                List<?> offs = list(st.get("offsets"));
                long[] offsets = new long[offs.size()];
                for (int i = 0; i < offsets.length; i++) {
                    offsets[i] = ((Number) offs.get(i)).longValue();
                }
                states.put(
                        (String) st.get("name"),
                        new OperatorStateHandle.StateMetaInfo(
                                offsets, OperatorStateHandle.Mode.valueOf((String) st.get("mode"))));
            }
            l.add(new OperatorStreamStateHandle(states, delegate(h)));
        }
        return l;
    }

    private static ByteStreamStateHandle delegate(Map<?, ?> h) {
        return new ByteStreamStateHandle((String) h.get("name"), new byte[1]);
    }

    private static List<?> list(Object o) {
        return o == null ? new ArrayList<>() : (List<?>) o;
    }

    private static int num(Map<?, ?> m, String k) {
        return ((Number) m.get(k)).intValue();
    }
}
