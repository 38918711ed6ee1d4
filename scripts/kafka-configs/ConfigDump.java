// Prints one Kafka release's own config definitions as JSON: the broker, topic, producer and consumer
// ConfigDefs, the topic->broker synonyms and the broker keys' dynamic update modes.
//
//   java -cp <that release's jars> scripts/kafka-configs/ConfigDump.java [expected-version]
//
// Everything is reached by reflection, so one source file reads every release although the classes
// moved between releases (Scala objects in 3.x, Java classes in 4.x). The output is deterministic:
// object keys sorted, validators serialised from their fields, never from identity hash codes.
// scripts/build-kafka-configs.sh runs it per release; scripts/kafka-configs/merge.py merges the dumps.

import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

public class ConfigDump {
    static final String CD = "org.apache.kafka.common.config.ConfigDef";

    /** One way to reach a value in some releases: a static method or field, or a Scala object's method. */
    record EntryPoint(String className, String member, boolean scalaObject, boolean field) {
        String describe() {
            return className + (scalaObject ? ".MODULE$." : ".") + member + (field ? "" : "()");
        }

        Object get() throws ReflectiveOperationException {
            Class<?> c = Class.forName(className);
            Object target = scalaObject ? c.getField("MODULE$").get(null) : null;
            return field ? c.getField(member).get(target) : c.getMethod(member).invoke(target);
        }
    }

    static EntryPoint staticMethod(String c, String m) { return new EntryPoint(c, m, false, false); }
    static EntryPoint staticField(String c, String f) { return new EntryPoint(c, f, false, true); }
    static EntryPoint scalaMethod(String c, String m) { return new EntryPoint(c, m, true, false); }

    // Newest location first; the first one present in a release is used, and the dump says which.
    static final List<EntryPoint> BROKER = List.of(
            scalaMethod("kafka.server.KafkaConfig$", "configDef"),  // what KafkaConfig.main documents
            staticField("org.apache.kafka.server.config.AbstractKafkaConfig", "CONFIG_DEF"));
    static final List<EntryPoint> TOPIC = List.of(
            staticMethod("org.apache.kafka.storage.internals.log.LogConfig", "configDefCopy"),
            scalaMethod("kafka.log.LogConfig$", "configDefCopy"));
    static final List<EntryPoint> PRODUCER = List.of(
            staticMethod("org.apache.kafka.clients.producer.ProducerConfig", "configDef"));
    static final List<EntryPoint> CONSUMER = List.of(
            staticMethod("org.apache.kafka.clients.consumer.ConsumerConfig", "configDef"));
    static final List<EntryPoint> SYNONYMS = List.of(
            staticField("org.apache.kafka.server.config.ServerTopicConfigSynonyms", "TOPIC_CONFIG_SYNONYMS"),
            scalaMethod("kafka.log.LogConfig$", "TopicConfigSynonyms"));
    static final List<EntryPoint> UPDATE_MODES = List.of(
            staticMethod("org.apache.kafka.server.config.DynamicBrokerConfig", "dynamicConfigUpdateModes"),
            scalaMethod("kafka.server.DynamicBrokerConfig$", "dynamicConfigUpdateModes"));

    public static void main(String[] args) throws Exception {
        // Kafka's static initialisers may log; keep stdout for the JSON alone.
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        String version = kafkaVersion();
        if (args.length > 0 && !args[0].equals(version)) {
            System.err.println("ConfigDump: expected Kafka " + args[0] + " on the classpath, found " + version);
            System.exit(2);
        }
        Map<String, Object> dump = new TreeMap<>();
        Map<String, Object> used = new TreeMap<>();
        Map<String, Object> scopes = new TreeMap<>();
        scopes.put("broker", configDef(resolve("broker", BROKER, used)));
        scopes.put("topic", configDef(resolve("topic", TOPIC, used)));
        scopes.put("producer", configDef(resolve("producer", PRODUCER, used)));
        scopes.put("consumer", configDef(resolve("consumer", CONSUMER, used)));
        dump.put("release", version);
        dump.put("scopes", scopes);
        dump.put("topic_synonyms", new TreeMap<>(javaMap(resolve("topic_synonyms", SYNONYMS, used))));
        dump.put("broker_update_modes", updateModes(
                javaMap(resolve("broker_update_modes", UPDATE_MODES, used)),
                ((Map<?, ?>) scopes.get("broker")).keySet()));
        dump.put("entry_points", used);
        StringBuilder sb = new StringBuilder();
        writeJson(sb, dump);
        out.println(sb);
        out.flush();
    }

    static String kafkaVersion() throws Exception {
        try (InputStream in = Class.forName(CD).getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) throw new IllegalStateException("kafka/kafka-version.properties not on the classpath");
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }

    static Object resolve(String what, List<EntryPoint> candidates, Map<String, Object> used) throws Exception {
        List<String> missing = new ArrayList<>();
        for (EntryPoint e : candidates) {
            Object value;
            try {
                value = e.get();
            } catch (ClassNotFoundException | NoSuchMethodException | NoSuchFieldException ex) {
                missing.add(e.describe());
                continue;
            }
            used.put(what, e.describe());
            return value;
        }
        throw new IllegalStateException("no entry point for " + what + " in this release; tried " + missing);
    }

    /** A java.util.Map, or a Scala Map converted with Scala's own converters. */
    static Map<?, ?> javaMap(Object m) throws Exception {
        if (m instanceof Map<?, ?> jm) return jm;
        Class<?> converters = Class.forName("scala.jdk.javaapi.CollectionConverters");
        Method asJava = converters.getMethod("asJava", Class.forName("scala.collection.Map"));
        return (Map<?, ?>) asJava.invoke(null, m);
    }

    /** Kafka's docs generator shows a key missing from dynamicConfigUpdateModes as read-only. */
    static Map<String, Object> updateModes(Map<?, ?> modes, Collection<?> brokerKeys) {
        Map<String, Object> out = new TreeMap<>();
        for (Object key : brokerKeys) {
            Object mode = modes.get(key);
            out.put((String) key, mode == null ? "read-only" : mode.toString());
        }
        return out;
    }

    static Map<String, Object> configDef(Object def) throws Exception {
        Class<?> cd = Class.forName(CD);
        Object noDefault = cd.getField("NO_DEFAULT_VALUE").get(null);
        Map<?, ?> keys = (Map<?, ?>) cd.getMethod("configKeys").invoke(def);
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<?, ?> entry : keys.entrySet()) {
            out.put((String) entry.getKey(), configKey(entry.getValue(), noDefault));
        }
        return out;
    }

    static Map<String, Object> configKey(Object key, Object noDefault) throws Exception {
        Class<?> k = key.getClass();
        String type = ((Enum<?>) k.getField("type").get(key)).name();
        Object dflt = k.getField("defaultValue").get(key);
        Object validator = k.getField("validator").get(key);
        Map<String, Object> out = new TreeMap<>();
        out.put("type", type);
        if (dflt != noDefault) out.put("default", defaultValue(type, dflt));
        if (validator != null) out.put("validator", validator(validator));
        out.put("importance", ((Enum<?>) k.getField("importance").get(key)).name());
        if (k.getField("internalConfig").getBoolean(key)) out.put("internal", true);
        return out;
    }

    static Object defaultValue(String type, Object v) {
        if (v == null || type.equals("PASSWORD")) return null;  // never a secret's value, and there are none
        if (v instanceof Class<?> c) return c.getName();
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object o : l) out.add(o instanceof Class<?> c ? c.getName() : o.toString());
            return out;
        }
        if (v instanceof Number || v instanceof Boolean || v instanceof String) return v;
        throw new IllegalStateException("default of an unexpected class " + v.getClass().getName() + ": " + v);
    }

    static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    static boolean hasField(Object o, String name) {
        for (Field f : o.getClass().getDeclaredFields()) {
            if (f.getName().equals(name) && !Modifier.isStatic(f.getModifiers())) return true;
        }
        return false;
    }

    static Map<String, Object> validator(Object v) throws Exception {
        Map<String, Object> out = new TreeMap<>();
        switch (v.getClass().getName()) {
            case CD + "$Range" -> {
                List<Object> range = new ArrayList<>();
                range.add(field(v, "min"));
                range.add(field(v, "max"));
                out.put("range", range);
            }
            case CD + "$ValidString" -> {
                out.put("one_of", new ArrayList<Object>((List<?>) field(v, "validStrings")));
                out.put("case_insensitive", false);
            }
            case CD + "$CaseInsensitiveValidString" -> {
                // a HashSet of the upper-cased values: sorted for a stable order
                out.put("one_of", new ArrayList<Object>(new TreeSet<Object>((Collection<?>) field(v, "validStrings"))));
                out.put("case_insensitive", true);
            }
            case CD + "$ValidList" -> validList(v, out);
            case CD + "$NonEmptyString" -> out.put("non_empty_string", true);
            case CD + "$NonEmptyStringWithoutControlChars" -> out.put("non_empty_string_without_control_chars", true);
            case CD + "$NonNullValidator" -> out.put("non_null", true);
            case CD + "$CompositeValidator" -> {
                List<Object> all = new ArrayList<>();
                for (Object inner : (List<?>) field(v, "validators")) all.add(validator(inner));
                out.put("all", all);
            }
            default -> {
                String text = v.toString();
                String identity = v.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(v));
                if (text.equals(identity)) text = v.getClass().getName();  // Object.toString: drop the hash
                out.put("opaque", text);
                out.put("class", simpleName(v.getClass()));
            }
        }
        return out;
    }

    /** The class name without its package; a lambda's runtime suffix (/0x...) is dropped as it varies. */
    static String simpleName(Class<?> c) {
        String name = c.getName();
        name = name.substring(name.lastIndexOf('.') + 1);
        int slash = name.indexOf('/');
        return slash < 0 ? name : name.substring(0, slash);
    }

    /** ValidList: its valid strings (empty: any value) and how it treats empty, null and repeated values.
     *  Releases whose ValidList has no isEmptyAllowed/isNullAllowed fields are asked by calling it. */
    static void validList(Object v, Map<String, Object> out) throws Exception {
        List<?> valid = (List<?>) field(field(v, "validString"), "validStrings");
        out.put("list_of", valid.isEmpty() ? null : new ArrayList<Object>(valid));
        Object sample = valid.isEmpty() ? "a" : valid.get(0);
        out.put("empty_allowed", hasField(v, "isEmptyAllowed") ? field(v, "isEmptyAllowed") : accepts(v, List.of()));
        out.put("null_allowed", hasField(v, "isNullAllowed") ? field(v, "isNullAllowed") : accepts(v, null));
        out.put("unique", accepts(v, List.of(sample)) && !accepts(v, List.of(sample, sample)));
    }

    static boolean accepts(Object validator, Object value) throws Exception {
        Method ensureValid = Class.forName(CD + "$Validator").getMethod("ensureValid", String.class, Object.class);
        try {
            ensureValid.invoke(validator, "probe", value);
            return true;
        } catch (java.lang.reflect.InvocationTargetException e) {
            return false;  // ConfigException, or the NullPointerException older releases throw for null
        }
    }

    static void writeJson(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            writeString(sb, s);
        } else if (v instanceof Boolean b) {
            sb.append(b);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalStateException("not a JSON number: " + d);
            sb.append(Double.toString(d));
        } else if (v instanceof Number n) {
            sb.append(n.longValue());
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : new TreeMap<Object, Object>(m).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                writeString(sb, (String) e.getKey());
                sb.append(':');
                writeJson(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) sb.append(',');
                writeJson(sb, l.get(i));
            }
            sb.append(']');
        } else {
            throw new IllegalStateException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }
}
