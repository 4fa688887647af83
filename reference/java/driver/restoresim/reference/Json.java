package restoresim.reference;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer (restoresim's own; the driver has no JSON library on its class
 * path). Objects read as LinkedHashMap (key order kept), arrays as ArrayList, numbers as Long when
 * integral, else Double.
 */
final class Json {
    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    static Object parse(String s) {
        Json p = new Json(s);
        p.ws();
        Object v = p.value();
        p.ws();
        if (p.i != s.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at offset " + i);
    }

    private void ws() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            i++;
        }
    }

    private Object value() {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) {
            throw error("unexpected character");
        }
        i += word.length();
        return v;
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (i < s.length() && s.charAt(i) == '}') {
            i++;
            return m;
        }
        while (true) {
            ws();
            if (i >= s.length() || s.charAt(i) != '"') {
                throw error("expected a key");
            }
            String k = string();
            ws();
            if (i >= s.length() || s.charAt(i) != ':') {
                throw error("expected ':'");
            }
            i++;
            ws();
            m.put(k, value());
            ws();
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i++);
            if (c == '}') {
                return m;
            }
            if (c != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        i++;
        ws();
        if (i < s.length() && s.charAt(i) == ']') {
            i++;
            return l;
        }
        while (true) {
            ws();
            l.add(value());
            ws();
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i++);
            if (c == ']') {
                return l;
            }
            if (c != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        i++;
        // Most strings have no escape: one substring.
        for (int k = i; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '"') {
                String out = s.substring(i, k);
                i = k + 1;
                return out;
            }
            if (c == '\\') {
                break;
            }
        }
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n':
                    b.append('\n');
                    break;
                case 't':
                    b.append('\t');
                    break;
                case 'r':
                    b.append('\r');
                    break;
                case 'b':
                    b.append('\b');
                    break;
                case 'f':
                    b.append('\f');
                    break;
                case 'u':
                    if (i + 4 > s.length()) {
                        throw error("bad \\u escape");
                    }
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default:
                    b.append(e);
            }
        }
    }

    private Object number() {
        int start = i;
        boolean integral = true;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '.' || c == 'e' || c == 'E') {
                integral = false;
            } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
                break;
            }
            i++;
        }
        if (start == i) {
            throw error("unexpected character");
        }
        String t = s.substring(start, i);
        return integral ? (Object) Long.parseLong(t) : (Object) Double.parseDouble(t);
    }

    static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    /** The SHA-256 of write(v) in UTF-8, computed as it is written, without the whole string. */
    static byte[] sha256(Object v) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        Digesting b = new Digesting(d);
        write(b, v);
        b.flush();
        return d.digest();
    }

    /** A StringBuilder that hands its UTF-8 bytes to a digest in chunks. */
    private static final class Digesting implements Appendable {
        private final MessageDigest d;
        private final StringBuilder buf = new StringBuilder(1 << 16);

        Digesting(MessageDigest d) {
            this.d = d;
        }

        @Override
        public Digesting append(char c) {
            buf.append(c);
            if (buf.length() >= 1 << 16) {
                drain();
            }
            return this;
        }

        @Override
        public Digesting append(CharSequence s) {
            return append(s, 0, s.length());
        }

        @Override
        public Digesting append(CharSequence s, int start, int end) {
            buf.append(s, start, end);
            if (buf.length() >= 1 << 16) {
                drain();
            }
            return this;
        }

        /** Digests the buffer but for a trailing high surrogate (its pair is still to come). */
        private void drain() {
            int n = buf.length();
            if (Character.isHighSurrogate(buf.charAt(n - 1))) {
                n--;
            }
            d.update(buf.substring(0, n).getBytes(StandardCharsets.UTF_8));
            buf.delete(0, n);
        }

        void flush() {
            d.update(buf.toString().getBytes(StandardCharsets.UTF_8));
            buf.setLength(0);
        }
    }

    private static void write(StringBuilder b, Object v) {
        try {
            write((Appendable) b, v);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // (a StringBuilder throws none)
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(Appendable b, Object v) throws java.io.IOException {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String) {
            quote(b, (String) v);
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                quote(b, e.getKey());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object x : (List<Object>) v) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, x);
            }
            b.append(']');
        } else {
            b.append(String.valueOf(v));
        }
    }

    private static void quote(Appendable b, String s) throws java.io.IOException {
        b.append('"');
        int n = s.length();
        int plain = 0;
        while (plain < n) {
            char c = s.charAt(plain);
            if (c == '"' || c == '\\' || c < 0x20) {
                break;
            }
            plain++;
        }
        // Most strings need no escape: appended at once.
        b.append(s, 0, plain);
        for (int k = plain; k < n; k++) {
            char c = s.charAt(k);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
