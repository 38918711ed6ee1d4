package dev.kcliff.loadgen;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends records at a fixed rate on an open-loop schedule (record i is due at t0 + i/rate) and times
 * each from its due time, not its actual send, so a sender that falls behind is charged for it
 * (no coordinated omission). Produce latency: due time to acknowledgement. End-to-end: due time to
 * the return of the poll that read it, by a consumer in this JVM (one clock). docs/loadgen.md.
 * With --num-records instead of --rate it sends flat out, as the perf tool does (FlatOut).
 */
public final class LoadGen {
    static final int EXIT_OK = 0;
    static final int EXIT_CLUSTER = 1;
    static final int EXIT_ARGS = 2;
    static final String HEADER = "kcliff-due";  // the record's sequence number and due time (nanoTime)
    static final int DIGITS = 3;  // HdrHistogram's significant digits: 0.1% resolution
    static final long CONNECT_TIMEOUT_S = 20;
    static final long GROUP_SETTLE_S = 30;  // Kafka 4's group protocol hands out partitions at heartbeats, 5 s apart

    /** Records sent, acknowledged, failed, consumed; one set for all records, one for measured ones. */
    static final class Counts {
        final LongAdder sent = new LongAdder();
        final LongAdder acked = new LongAdder();
        final LongAdder errors = new LongAdder();
        final LongAdder consumed = new LongAdder();
    }

    private final Options opt;
    private final long nsPerRecordTimes1000;  // schedule step in picoseconds: no drift over long runs
    private final long firstMeasured;  // records before it are due in the warm-up: sent, not recorded
    private volatile long endSeq;  // records from it on would be due after the measured duration
    private volatile boolean stopped;  // --stop-file said so: the measured duration ended there
    private final Counts all = new Counts();
    private final Counts measured = new Counts();
    private final Recorder produce = new Recorder(DIGITS);
    private final Recorder endToEnd = new Recorder(DIGITS);
    private final Histogram produceTotal = new Histogram(DIGITS);
    private final Histogram endToEndTotal = new Histogram(DIGITS);
    private final BitSet consumedSeqs = new BitSet();  // read() alone touches it: duplicates count once
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile long t0;
    private volatile long lastBehindNs;
    private volatile long maxBehindNs;
    private volatile boolean stopConsumer;
    private Failover failover;  // --failover: the run through a fault is measured too (Failover.java)

    LoadGen(Options opt) {
        this.opt = opt;
        this.nsPerRecordTimes1000 = Math.round(1e12 / opt.rate);
        this.firstMeasured = (long) Math.ceil(opt.warmupS * opt.rate);
        this.endSeq = (long) Math.ceil((opt.warmupS + opt.durationS) * opt.rate);
    }

    public static void main(String[] args) {
        Options opt;
        try {
            opt = new Options(args);
        } catch (Options.BadArguments e) {
            System.err.println("loadgen: " + e.getMessage() + "\n" + Options.USAGE);
            System.exit(EXIT_ARGS);
            return;
        }
        int code;
        try {
            code = opt.memberGroup != null ? Member.run(opt) : opt.consumeRecords > 0 ? new Consume(opt).run() : opt.flatOut ? new FlatOut(opt).run() : new LoadGen(opt).run();
        } catch (Unreachable e) {
            System.err.println("loadgen: " + e.getMessage());
            code = EXIT_CLUSTER;
        } catch (ConfigException e) {
            System.err.println("loadgen: a client setting is not valid: " + e.getMessage());
            code = EXIT_ARGS;
        }
        System.out.flush();
        System.exit(code);  // the clients' threads must not keep the JVM up
    }

    /** The cluster or the topic could not be reached: exit 1. */
    static final class Unreachable extends Exception {
        Unreachable(String message) {
            super(message);
        }
    }

    long dueOf(long seq) {
        return t0 + seq * nsPerRecordTimes1000 / 1000;
    }

    int run() throws Unreachable {
        List<TopicPartition> partitions = partitions();
        // where the run's records will begin: the consumer reads from there, a failover run's log read-back too
        Map<TopicPartition, Long> start = opt.consumer == null && opt.failoverLateMs < 0 ? Map.of()
                : Failover.endOffsets(opt.bootstrap, opt.consumer == null ? opt.producer : opt.consumer, partitions);
        // a service's group (--group-id without a fault): its members read, work and commit as the service does
        RateGroup group = opt.consumer != null && opt.groupId != null && opt.failoverLateMs < 0
                ? new RateGroup(opt, start, this::read) : null;
        long groupJoinMs = group == null ? 0 : group.join(GROUP_SETTLE_S);
        KafkaConsumer<byte[], byte[]> consumer = opt.consumer == null || group != null ? null : consumer(partitions, start);
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        for (int i = 0; i < opt.producers; i++) {
            producers.add(new KafkaProducer<>(producerProps(opt)));
        }
        Thread reader = null;
        if (consumer != null) {
            reader = new Thread(() -> consume(consumer), "loadgen-consumer");
            reader.start();
        }
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        long intervalMs = Math.round(opt.intervalS * 1000);
        t0 = System.nanoTime() + 100_000_000L;  // the first record is due shortly after the ticker starts
        if (opt.failoverLateMs >= 0) {
            failover = new Failover(partitions.size(), t0, dueOf(firstMeasured), opt.failoverLateMs);
        }
        ticker.scheduleAtFixedRate(() -> progress(false), intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        long unsent = send(producers);
        long drainEnd = System.nanoTime() + Math.round(opt.drainS * 1e9);
        while (all.acked.sum() + all.errors.sum() < all.sent.sum() && System.nanoTime() < drainEnd) {
            sleepMs(5);
        }
        while (opt.consumer != null && !readAll() && System.nanoTime() < drainEnd) {
            sleepMs(5);
        }
        ticker.shutdownNow();
        awaitQuietly(ticker);
        // before close: close fails what is still unacked
        Map<String, Object> summary = summary(unsent, compressionRatio(producers));
        long end = System.nanoTime();
        stopConsumer = true;
        if (consumer != null) {
            consumer.wakeup();
            joinQuietly(reader);
            consumer.close(Duration.ofSeconds(2));
        }
        if (group != null) {
            group.stop();
            summary.put("group_join_ms", groupJoinMs);
            summary.put("commits", group.commits());
            summary.put("commits_refused", group.refused());
            if (group.error() != null) {
                firstError.compareAndSet(null, "consumer: " + group.error());
            }
        }
        if (failover != null) {
            Properties security = opt.consumer == null ? opt.producer : opt.consumer;
            summary.put("failover", failover.summary(end, consumer != null,
                    Failover.readBack(opt.bootstrap, security, start)));
        }
        System.out.println(Json.of(summary));
        System.out.flush();
        producers.forEach(p -> p.close(Duration.ofSeconds(2)));
        return EXIT_OK;
    }

    /** Whether the consumer has read what was acknowledged. Through a fault: each partition's latest
     *  acknowledged record, since records another member read (a member killed) are never read here. */
    private boolean readAll() {
        return failover != null ? failover.readLatest() : measured.consumed.sum() >= measured.acked.sum();
    }

    /** Sends records 0..endSeq-1 each when due (late ones at once), record i by producer i mod N, so
     *  each producer runs at its share of the rate; returns how many measured records were never sent
     *  because the measured duration ended first. */
    private long send(List<KafkaProducer<byte[], byte[]>> producers) {
        Payload payload = opt.payload;
        for (long seq = 0; seq < endSeq; seq++) {
            long due = dueOf(seq);
            long end = dueOf(endSeq);
            long now = System.nanoTime();
            while (now < due) {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            lastBehindNs = now - due;
            if (now >= end) {  // the duration is over: what is still due is counted, not sent
                return endSeq - Math.max(seq, firstMeasured);
            }
            boolean inWindow = seq >= firstMeasured;
            if (inWindow) {
                maxBehindNs = Math.max(maxBehindNs, now - due);
            }
            Payload.Sample sample = payload.next();
            // through a fault, every partition is written all along (seq mod P) so a dead leader's gap shows
            Integer partition = failover == null ? null : failover.partitionOf(seq);
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(opt.topic, partition, sample.key(), sample.value());
            record.headers().add(HEADER, ByteBuffer.allocate(16).putLong(seq).putLong(due).array());
            all.sent.increment();
            if (inWindow) {
                measured.sent.increment();
            }
            if (failover != null) {
                failover.sent(seq, due);
            }
            long sent = seq;
            try {
                producers.get((int) (seq % producers.size())).send(record, (meta, error) -> acked(sent, due, inWindow, error));
            } catch (KafkaException e) {
                acked(seq, due, inWindow, e);
            }
        }
        lastBehindNs = Math.max(0, System.nanoTime() - dueOf(endSeq - 1));
        return 0;
    }

    private void acked(long seq, long due, boolean inWindow, Exception error) {
        long now = System.nanoTime();
        if (failover != null && error == null) {
            failover.acked(seq, due, now);
        }
        Counts[] counts = inWindow ? new Counts[] {all, measured} : new Counts[] {all};
        for (Counts c : counts) {
            (error == null ? c.acked : c.errors).increment();
        }
        if (error != null) {
            firstError.compareAndSet(null, error.toString());
        } else if (inWindow) {
            produce.recordValue(Math.max(0, (now - due) / 1000));
        }
    }

    private void consume(KafkaConsumer<byte[], byte[]> consumer) {
        try {
            while (!stopConsumer) {
                var records = consumer.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    read(record, now);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (KafkaException e) {
            firstError.compareAndSet(null, "consumer: " + e);
        }
    }

    /** One record read at `now`: timed from its due time, once (a group's members call it from their threads). */
    private synchronized void read(ConsumerRecord<byte[], byte[]> record, long now) {
        Header header = record.headers().lastHeader(HEADER);
        if (header == null || header.value().length != 16) {
            return;  // not one of this run's records
        }
        ByteBuffer stamp = ByteBuffer.wrap(header.value());
        long seq = stamp.getLong();
        long due = stamp.getLong();
        if (seq > Integer.MAX_VALUE
                || (failover != null ? !failover.read(seq, due, now) : consumedSeqs.get((int) seq))) {
            return;  // a duplicate (a retried send, a partition read again): each record is timed once
        }
        consumedSeqs.set((int) seq);
        all.consumed.increment();
        if (seq >= firstMeasured) {
            measured.consumed.increment();
            endToEnd.recordValue(Math.max(0, (now - due) / 1000));
        }
    }

    /** One progress line: this interval's figures; the interval's histograms join the totals. */
    private synchronized Map<String, Object> progress(boolean last) {
        if (!last && !stopped && opt.stopFile != null && opt.stopFile.toFile().length() > 0) {
            stopped = true;  // kcliff has seen the fault through: what is due from now on is not sent
            endSeq = Math.max(firstMeasured, Math.min(endSeq, (long) Math.ceil((System.nanoTime() - t0) / 1e9 * opt.rate)));
        }
        Histogram p = produce.getIntervalHistogram();
        Histogram e = endToEnd.getIntervalHistogram();
        produceTotal.add(p);
        endToEndTotal.add(e);
        if (last) {
            return null;
        }
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("type", "progress");
        line.put("elapsed_s", round((System.nanoTime() - t0) / 1e9 - opt.warmupS, 3));  // < 0: warm-up
        line.put("sent", all.sent.sum());
        line.put("acked", all.acked.sum());
        line.put("errors", all.errors.sum());
        line.put("consumed", opt.consumer == null ? null : all.consumed.sum());
        line.put("behind_ms", round(lastBehindNs / 1e6, 3));
        line.put("produce", percentiles(p, false));
        line.put("end_to_end", opt.consumer == null ? null : percentiles(e, false));
        System.out.println(Json.of(line));
        System.out.flush();
        return line;
    }

    /** Uncompressed over compressed bytes of the batches the producer sent (1 / its compression-rate-avg,
     *  averaged over the metrics' sample window, 2 x 30 s by default: the whole of a run here); null
     *  before any batch. Several producers send equal shares: the mean of their ratios. */
    static Double compressionRatio(List<KafkaProducer<byte[], byte[]>> producers) {
        double sum = 0;
        int seen = 0;
        for (KafkaProducer<byte[], byte[]> producer : producers) {
            for (var metric : producer.metrics().entrySet()) {
                if (metric.getKey().name().equals("compression-rate-avg")
                        && metric.getKey().group().equals("producer-metrics")
                        && metric.getValue().metricValue() instanceof Double rate && rate > 0 && !rate.isNaN()) {
                    sum += 1 / rate;
                    seen++;
                }
            }
        }
        return seen == 0 ? null : round(sum / seen, 3);
    }

    private Map<String, Object> summary(long unsent, Double compressionRatio) {
        progress(true);
        long acked = measured.acked.sum();
        long errors = measured.errors.sum();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "summary");
        s.put("target_rate", opt.rate);
        s.put("record_size", Math.round(opt.payload.meanValueBytes()));  // the mean value, for a payload file
        s.put("producers", opt.producers);
        s.put("duration_s", durationS());
        s.put("warmup_s", opt.warmupS);
        s.put("scheduled", endSeq - firstMeasured);
        s.put("sent", measured.sent.sum());
        s.put("unsent", unsent);
        s.put("acked", acked);
        s.put("errors", errors);
        s.put("unacked", measured.sent.sum() - acked - errors);
        s.put("achieved_rate", round(acked / durationS(), 3));
        s.put("max_behind_ms", round(maxBehindNs / 1e6, 3));
        s.put("end_behind_ms", round(lastBehindNs / 1e6, 3));
        s.put("first_error", firstError.get());
        s.put("compression_ratio", compressionRatio);
        s.put("produce", percentiles(produceTotal, true));
        if (opt.consumer != null) {
            long consumed = measured.consumed.sum();
            s.put("consumed", consumed);
            s.put("unconsumed", Math.max(0, acked - consumed));
            s.put("end_to_end", percentiles(endToEndTotal, true));
        } else {
            s.put("consumed", null);
            s.put("unconsumed", null);
            s.put("end_to_end", null);
        }
        return s;
    }

    /** The measured duration: as given, or up to where --stop-file ended it. */
    private double durationS() {
        return stopped ? Math.max((endSeq - firstMeasured) / opt.rate, 1e-3) : opt.durationS;
    }

    /** Percentiles in ms of a histogram in microseconds; with `encoded`, the histogram itself too. */
    static Map<String, Object> percentiles(Histogram h, boolean encoded) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("count", h.getTotalCount());
        boolean empty = h.getTotalCount() == 0;
        for (double q : new double[] {50, 90, 99, 99.9}) {
            String name = "p" + (q == 99.9 ? "999" : String.valueOf((int) q)) + "_ms";
            out.put(name, empty ? null : h.getValueAtPercentile(q) / 1000.0);
        }
        out.put("max_ms", empty ? null : h.getMaxValue() / 1000.0);
        if (encoded) {
            ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
            int length = h.encodeIntoCompressedByteBuffer(buffer);
            byte[] bytes = new byte[length];
            buffer.flip();
            buffer.get(bytes);
            out.put("histogram_us", Base64.getEncoder().encodeToString(bytes));
        }
        return out;
    }

    private List<TopicPartition> partitions() throws Unreachable {
        Properties props = reachingAs(opt.producer, opt.bootstrap);  // to reach the cluster as the producer does
        try (Admin admin = Admin.create(props)) {
            TopicDescription topic = admin.describeTopics(List.of(opt.topic)).allTopicNames()
                    .get(CONNECT_TIMEOUT_S, TimeUnit.SECONDS).get(opt.topic);
            List<TopicPartition> found = new ArrayList<>();
            topic.partitions().forEach(p -> found.add(new TopicPartition(opt.topic, p.partition())));
            return found;
        } catch (ExecutionException e) {
            throw new Unreachable("topic " + opt.topic + " at " + opt.bootstrap + ": " + e.getCause());
        } catch (TimeoutException e) {
            throw new Unreachable("no answer from " + opt.bootstrap + " about topic " + opt.topic
                    + " within " + CONNECT_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted");
        }
    }

    /** A client's security settings alone, and the bootstrap: an admin client or a plain reader that
     *  reaches the cluster as that client does. */
    static Properties reachingAs(Properties client, String bootstrap) {
        Properties props = new Properties();
        for (String name : client.stringPropertyNames()) {
            if (name.startsWith("security.") || name.startsWith("ssl.") || name.startsWith("sasl.")) {
                props.put(name, client.getProperty(name));
            }
        }
        props.put("bootstrap.servers", bootstrap);
        return props;
    }

    static Properties producerProps(Options opt) {
        Properties props = new Properties();
        props.putAll(opt.producer);
        props.put("bootstrap.servers", opt.bootstrap);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        return props;
    }

    /** The consumer as configured, assigned every partition at its end before the first send (no group
     *  join to wait for), or with --group-id a member of that group that has joined it: only this
     *  run's records read. */
    private KafkaConsumer<byte[], byte[]> consumer(List<TopicPartition> partitions, Map<TopicPartition, Long> start)
            throws Unreachable {
        Properties props = new Properties();
        props.putAll(opt.consumer);
        props.put("bootstrap.servers", opt.bootstrap);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        if (opt.groupId != null) {
            props.put("group.id", opt.groupId);
            return GroupMember.joined(props, opt.topic, start, CONNECT_TIMEOUT_S);
        }
        props.put("enable.auto.commit", "false");  // assigned, not subscribed: no group offsets to keep
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        try {
            consumer.assign(partitions);
            start.forEach(consumer::seek);
            partitions.forEach(consumer::position);
        } catch (KafkaException e) {
            consumer.close(Duration.ofSeconds(1));
            throw new Unreachable("end offsets of " + opt.topic + ": " + e);
        }
        return consumer;
    }

    static double round(double value, int places) {
        double scale = Math.pow(10, places);
        return Math.round(value * scale) / scale;
    }

    private static void sleepMs(long ms) {
        LockSupport.parkNanos(ms * 1_000_000L);
    }

    private static void awaitQuietly(ScheduledExecutorService ticker) {
        try {
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
