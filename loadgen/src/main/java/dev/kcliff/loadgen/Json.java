package dev.kcliff.loadgen;

import java.util.Map;

/** The output lines: one JSON object each, of numbers, strings, booleans, nulls, lists and nested objects. */
final class Json {
    private Json() {
    }

    static String of(Map<String, ?> fields) {
        StringBuilder out = new StringBuilder();
        write(out, fields);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
                out.append("null");  // JSON has no NaN: an empty histogram's percentile
            } else {
                out.append(value);
            }
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.append(sep);
                string(out, String.valueOf(e.getKey()));
                out.append(':');
                write(out, e.getValue());
                sep = ",";
            }
            out.append('}');
        } else if (value instanceof Iterable<?> list) {
            out.append('[');
            String sep = "";
            for (Object item : list) {
                out.append(sep);
                write(out, item);
                sep = ",";
            }
            out.append(']');
        } else {
            string(out, value.toString());
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
