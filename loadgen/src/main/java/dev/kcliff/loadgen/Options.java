package dev.kcliff.loadgen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** The command line: `--name value` pairs, each value one argv element (no shell ever sees one). */
final class Options {
    static final String USAGE = "usage: LoadGen --bootstrap-servers HOST:PORT[,...] --topic NAME --rate RECORDS_PER_S"
            + " (--record-size BYTES | --payload-file FILE) --duration-s S --warmup-s S --producer-config FILE"
            + " [--consumer-config FILE [--group-id GROUP [--members N] [--commit HOW] [--process-us US]]]"
            + " [--interval-s S] [--drain-s S] [--producers N] [--failover LATE_MS] [--stop-file FILE]\n"
            + "   or: LoadGen --bootstrap-servers HOST:PORT[,...] --topic NAME --num-records N"
            + " (--record-size BYTES | --payload-file FILE) --producer-config FILE [--warmup-records N]"
            + " [--reporting-interval-ms MS] [--throughput RECORDS_PER_S]  (flat out, FlatOut.java)\n"
            + "   or: LoadGen --bootstrap-servers HOST:PORT[,...] --topic NAME --consumer-config FILE --member GROUP"
            + " --since-ms WALL_MS  (one more member of GROUP, reading until killed: Member.java)\n"
            + "   or: LoadGen --bootstrap-servers HOST:PORT[,...] --topic NAME --consumer-config FILE --group-id GROUP"
            + " --consume N [--members N] [--commit auto|poll-sync|poll-async|record-sync|record-async] [--process-us US]"
            + " [--reporting-interval-ms MS] [--timeout-ms MS]  (a group reading as a service does: Consume.java)";
    private static final List<String> NAMES = List.of("bootstrap-servers", "topic", "rate", "record-size",
            "payload-file", "duration-s", "warmup-s", "producer-config", "consumer-config", "interval-s", "drain-s",
            "producers", "num-records", "warmup-records", "reporting-interval-ms", "throughput", "group-id", "failover", "stop-file",
            "member", "since-ms", "consume", "members", "commit", "process-us", "timeout-ms");
    private static final List<String> CONSUME = List.of("bootstrap-servers", "topic", "consumer-config", "group-id",
            "consume", "members", "commit", "process-us", "reporting-interval-ms", "timeout-ms");
    private static final List<String> RATE_ONLY = List.of("rate", "duration-s", "warmup-s", "consumer-config",
            "interval-s", "drain-s", "producers", "group-id", "failover", "stop-file");

    /** A bad command line, every problem of it at once: its message goes to stderr, the program exits 2. */
    static final class BadArguments extends Exception {
        BadArguments(String message) {
            super(message);
        }
    }

    final String bootstrap;
    final String topic;
    final double rate;
    final Payload payload;
    final double durationS;
    final double warmupS;
    final Properties producer;
    final Properties consumer;  // null: no end-to-end measurement
    final double intervalS;
    final double drainS;
    final int producers;  // producer clients sharing the schedule, as a service's instances share its rate
    final boolean flatOut;  // --num-records: as fast as the producer takes them, the perf tool's way
    final long numRecords;
    final long warmupRecords;  // flat out: left out of the steady-state summary, as --warmup-records is
    final long reportingIntervalMs;
    final double throughput;  // flat out: at most this many records/s on average (<= 0: no limit)
    final String groupId;  // the consumer joins this group (subscribes) instead of being assigned: null
    final Path stopFile;  // once it holds anything, the measured duration ends (kcliff saw a fault through)
    final double failoverLateMs;  // < 0: not a failover run; else a read later than this is catching up
    final String memberGroup;  // --member: only a member of this group, reading until it is killed (Member.java)
    final long sinceMs;  // --member: a partition the group has no offset for is read from this wall-clock time
    final long consumeRecords;  // --consume: a group reads this many records as a service would (Consume.java)
    final int members;  // --consume, or --group-id at a rate: the group's members, each a consumer of its own
    final String commit;  // likewise: how each member commits (Work.COMMITS)
    final long processUs;  // likewise: the work on each record, in microseconds
    final long timeoutMs;  // --consume: no record for this long ends the run, as the perf tool's --timeout
    private final List<String> problems = new ArrayList<>();

    Options(String[] args) throws BadArguments {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : "";
            if (!NAMES.contains(name)) {
                problems.add("unknown argument '" + args[i] + "'");
            } else if (i + 1 >= args.length) {
                problems.add("--" + name + " needs a value");
            } else if (given.put(name, args[i + 1]) != null) {
                problems.add("--" + name + " given twice");
            }
        }
        bootstrap = required(given, "bootstrap-servers");
        topic = required(given, "topic");
        flatOut = given.containsKey("num-records");
        memberGroup = given.get("member");
        boolean member = memberGroup != null;
        if (member) {  // a member sends nothing: only the consumer's settings and where to start
            given.keySet().stream().filter(name -> !List.of("bootstrap-servers", "topic", "consumer-config", "member",
                    "since-ms").contains(name)).forEach(name -> problems.add("--" + name + " is not for --member"));
        } else if (given.containsKey("since-ms")) {
            problems.add("--since-ms is for --member");
        }
        sinceMs = member ? whole(given, "since-ms", null, 0) : 0;
        boolean consume = given.containsKey("consume");
        if (consume) {  // a group that reads: only the consumer's settings and how it works
            given.keySet().stream().filter(name -> !CONSUME.contains(name))
                    .forEach(name -> problems.add("--" + name + " is not for --consume"));
            List.of("consumer-config", "group-id").stream().filter(name -> !given.containsKey(name))
                    .forEach(name -> problems.add("--consume needs --" + name));
        } else {
            // at a rate, a service's group (--group-id, no fault) works and commits as --consume's does
            List<String> rateGroup = given.containsKey("group-id") && !given.containsKey("failover")
                    ? List.of("members", "commit", "process-us") : List.of();
            CONSUME.stream().filter(name -> !List.of("bootstrap-servers", "topic", "consumer-config", "group-id",
                    "reporting-interval-ms").contains(name) && !rateGroup.contains(name) && given.containsKey(name))
                    .forEach(name -> problems.add("--" + name + " is for --consume, or a run at a rate with --group-id"));
        }
        consumeRecords = consume ? whole(given, "consume", null, 1) : 0;
        members = (int) whole(given, "members", 1.0, 1);
        if (members > 64) {
            problems.add("--members must be at most 64, got '" + given.get("members") + "'");
        }
        commit = given.getOrDefault("commit", "auto");
        if (!Work.COMMITS.contains(commit)) {
            problems.add("--commit must be one of " + String.join(", ", Work.COMMITS) + ", got '" + commit + "'");
        }
        processUs = whole(given, "process-us", 0.0, 0);
        timeoutMs = whole(given, "timeout-ms", 10000.0, 1);
        if (member && !given.containsKey("consumer-config")) {
            problems.add("--member needs --consumer-config: the member reads with the scenario's consumer settings");
        }
        if (member || consume) {
            rate = 0;
            payload = null;
            durationS = 0;
        } else {
            rate = flatOut ? 0 : number(given, "rate", null, 0.001);
            payload = payload(given);
            durationS = flatOut ? 0 : number(given, "duration-s", null, 0.001);
        }
        if (flatOut && !consume) {
            RATE_ONLY.stream().filter(given::containsKey).forEach(
                    name -> problems.add("--" + name + " is for a run at a rate, not with --num-records"));
        } else if (!consume) {
            List.of("warmup-records", "reporting-interval-ms", "throughput").stream().filter(given::containsKey)
                    .forEach(name -> problems.add("--" + name + " is for a run with --num-records"));
        }
        numRecords = whole(given, "num-records", flatOut ? null : 1.0, 1);
        warmupRecords = whole(given, "warmup-records", 0.0, 0);
        reportingIntervalMs = whole(given, "reporting-interval-ms", 5000.0, 1);  // the perf tool's default
        throughput = given.containsKey("throughput") ? number(given, "throughput", null, 0.001) : -1;
        if (flatOut && warmupRecords >= numRecords) {
            problems.add("--warmup-records must be fewer than --num-records");
        }
        warmupS = number(given, "warmup-s", 0.0, 0);
        intervalS = number(given, "interval-s", 1.0, 0.01);
        drainS = number(given, "drain-s", 15.0, 0);
        double count = number(given, "producers", 1.0, 1);
        producers = (int) count;
        if (producers != count || producers > 64) {
            problems.add("--producers must be a whole number from 1 to 64, got '" + given.get("producers") + "'");
        }
        if ((warmupS + durationS) * rate > Integer.MAX_VALUE) {
            problems.add("--rate x (--warmup-s + --duration-s) must be at most " + Integer.MAX_VALUE + " records");
        }
        producer = member || consume ? new Properties() : properties(required(given, "producer-config"), "producer-config");
        String consumerFile = given.get("consumer-config");
        consumer = consumerFile == null ? null : properties(consumerFile, "consumer-config");
        groupId = given.get("group-id");
        if (groupId != null && consumerFile == null && !consume) {
            problems.add("--group-id needs --consumer-config: it names the consumer's group");
        }
        stopFile = given.containsKey("stop-file") ? Path.of(given.get("stop-file")) : null;
        failoverLateMs = given.containsKey("failover") ? number(given, "failover", null, 0) : -1;
        if (!problems.isEmpty()) {
            throw new BadArguments(String.join("; ", problems));
        }
    }

    /** Random letters of --record-size, or the records of --payload-file: exactly one of them. */
    private Payload payload(Map<String, String> given) {
        String file = given.get("payload-file");
        if (file != null && given.containsKey("record-size")) {
            problems.add("give --record-size or --payload-file, not both");
        }
        if (file == null) {
            double size = number(given, "record-size", null, 1);
            if ((int) size != size) {
                problems.add("--record-size must be a whole number of bytes up to " + Integer.MAX_VALUE);
            }
            return Payload.randomLetters((int) size);
        }
        try {
            return Payload.samples(Payload.read(Path.of(file)));
        } catch (IOException | RuntimeException e) {
            problems.add("--payload-file " + file + ": " + e.getMessage());
            return null;
        }
    }

    private String required(Map<String, String> given, String name) {
        String value = given.get(name);
        if (value == null || value.isBlank()) {
            problems.add("--" + name + " is required");
            return null;
        }
        return value;
    }

    /** The number given as --name (`fallback` when it is not given; null: it must be); `least` when bad. */
    private double number(Map<String, String> given, String name, Double fallback, double least) {
        String text = fallback == null ? required(given, name) : given.get(name);
        if (text == null) {
            return fallback == null ? least : fallback;
        }
        try {
            double value = Double.parseDouble(text);
            if (value >= least && !Double.isInfinite(value)) {
                return value;
            }
            problems.add("--" + name + " must be at least " + least + ", got '" + text + "'");
        } catch (NumberFormatException e) {
            problems.add("--" + name + " must be a number, got '" + text + "'");
        }
        return least;
    }

    /** A whole number given as --name, as number() takes it. */
    private long whole(Map<String, String> given, String name, Double fallback, double least) {
        double value = number(given, name, fallback, least);
        if (value != Math.floor(value) || value > Long.MAX_VALUE / 2) {
            problems.add("--" + name + " must be a whole number, got '" + given.get(name) + "'");
        }
        return (long) value;
    }

    private Properties properties(String file, String name) {
        Properties props = new Properties();
        if (file == null) {
            return props;
        }
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            props.load(in);
        } catch (IOException | IllegalArgumentException e) {
            problems.add("--" + name + " " + file + ": cannot read it as a properties file (" + e + ")");
        }
        return props;
    }
}
