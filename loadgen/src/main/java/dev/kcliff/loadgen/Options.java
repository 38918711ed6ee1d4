package dev.kcliff.loadgen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** The command line: `--name value` pairs, each value one argv element (no shell ever sees one). */
final class Options {
    static final String USAGE = "usage: LoadGen --bootstrap-servers HOST:PORT[,...] --topic NAME --rate RECORDS_PER_S"
            + " --record-size BYTES --duration-s S --warmup-s S --producer-config FILE"
            + " [--consumer-config FILE] [--interval-s S] [--drain-s S]";
    private static final List<String> NAMES = List.of("bootstrap-servers", "topic", "rate", "record-size",
            "duration-s", "warmup-s", "producer-config", "consumer-config", "interval-s", "drain-s");

    /** A bad command line: its message goes to stderr and the program exits 2. */
    static final class BadArguments extends Exception {
        BadArguments(String message) {
            super(message);
        }
    }

    final String bootstrap;
    final String topic;
    final double rate;
    final int recordSize;
    final double durationS;
    final double warmupS;
    final Properties producer;
    final Properties consumer;  // null: no end-to-end measurement
    final double intervalS;
    final double drainS;

    Options(String[] args) throws BadArguments {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : "";
            if (!NAMES.contains(name)) {
                throw new BadArguments("unknown argument '" + args[i] + "'");
            }
            if (i + 1 >= args.length) {
                throw new BadArguments("--" + name + " needs a value");
            }
            if (given.put(name, args[i + 1]) != null) {
                throw new BadArguments("--" + name + " given twice");
            }
        }
        bootstrap = required(given, "bootstrap-servers");
        topic = required(given, "topic");
        rate = number(given, "rate", null, 0.001);
        recordSize = (int) number(given, "record-size", null, 1);
        if (recordSize != number(given, "record-size", null, 1)) {
            throw new BadArguments("--record-size must be a whole number of bytes");
        }
        durationS = number(given, "duration-s", null, 0.001);
        warmupS = number(given, "warmup-s", 0.0, 0);
        intervalS = number(given, "interval-s", 1.0, 0.01);
        drainS = number(given, "drain-s", 15.0, 0);
        if ((warmupS + durationS) * rate > Integer.MAX_VALUE) {
            throw new BadArguments("--rate x (--warmup-s + --duration-s) must be at most " + Integer.MAX_VALUE + " records");
        }
        producer = properties(required(given, "producer-config"), "producer-config");
        String consumerFile = given.get("consumer-config");
        consumer = consumerFile == null ? null : properties(consumerFile, "consumer-config");
    }

    private static String required(Map<String, String> given, String name) throws BadArguments {
        String value = given.get(name);
        if (value == null || value.isBlank()) {
            throw new BadArguments("--" + name + " is required");
        }
        return value;
    }

    private static double number(Map<String, String> given, String name, Double fallback, double least)
            throws BadArguments {
        String text = fallback == null ? required(given, name) : given.get(name);
        if (text == null) {
            return fallback;
        }
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new BadArguments("--" + name + " must be a number, got '" + text + "'");
        }
        if (!(value >= least) || Double.isInfinite(value)) {
            throw new BadArguments("--" + name + " must be at least " + least + ", got '" + text + "'");
        }
        return value;
    }

    private static Properties properties(String file, String name) throws BadArguments {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            props.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new BadArguments("--" + name + " " + file + ": cannot read it as a properties file (" + e + ")");
        }
        return props;
    }
}
