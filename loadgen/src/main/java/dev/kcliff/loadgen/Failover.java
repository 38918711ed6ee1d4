package dev.kcliff.loadgen;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a run through a fault is measured by (--failover, docs/failover.md): per partition, the longest
 * time no write was acknowledged and no record was read; which acknowledged records the log no longer
 * holds (lost), which it holds twice, which the consumer read twice; when the consumer last read a
 * record later than --late-ms after it was due (its catch-up). Records go to partition seq mod P, as
 * keyed traffic spreads, so every partition is written all along and a dead leader's show as a gap.
 * Times are nanoTime; the summary gives them in seconds after t0 with t0's wall clock, so kcliff
 * places its own events (a broker killed) on the same time line.
 */
final class Failover {
    static final int SAMPLE = 10;  // lost sequence numbers named in the summary
    static final long VERIFY_S = 30;  // reading the log back: at most this long

    /** The longest gap of one kind over all partitions: from the event before it to the one ending it. */
    static final class Gaps {
        private final long[] last;
        private final long[] lastDue;  // the latest due time seen per partition: an open gap's test
        private long longest;
        private int partition = -1;
        private long from;

        Gaps(int partitions, long start) {
            last = new long[partitions];
            lastDue = new long[partitions];
            java.util.Arrays.fill(last, start);
        }

        long since(int p, long now) {
            return now - last[p];
        }

        void at(int p, long now, long due) {
            long gap = now - last[p];
            if (gap > longest) {
                longest = gap;
                partition = p;
                from = last[p];
            }
            last[p] = Math.max(last[p], now);
            lastDue[p] = Math.max(lastDue[p], due);
        }

        /** Whether each partition's latest due time here has reached `other`'s (reads: the acks'). */
        boolean caughtUp(Gaps other) {
            for (int p = 0; p < lastDue.length; p++) {
                if (lastDue[p] < other.lastDue[p]) {
                    return false;
                }
            }
            return true;
        }

        /** The longest gap, or one still open at `end` when a partition's last record came before
         *  `behind` (the latest due time of the records that should have come): longer than it says. */
        Map<String, Object> summary(long[] behind, long end, long t0) {
            long worst = longest;
            int worstP = partition;
            long worstFrom = from;
            boolean open = false;
            for (int p = 0; p < last.length; p++) {
                if (lastDue[p] < behind[p] && end - last[p] >= worst) {
                    worst = end - last[p];
                    worstP = p;
                    worstFrom = last[p];
                    open = true;
                }
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("ms", LoadGen.round(worst / 1e6, 3));
            out.put("partition", worstP < 0 ? null : worstP);
            out.put("from_s", worstP < 0 ? null : LoadGen.round((worstFrom - t0) / 1e9, 3));
            out.put("open", open);
            return out;
        }
    }

    private final int partitions;
    private final long t0;
    private final double lateMs;
    private final long lateNs;
    private final long[] sentDue;
    private final Gaps acks;
    private final Gaps reads;
    private final BitSet acked = new BitSet();
    private final BitSet read = new BitSet();  // the consumer thread's alone
    private long readTwice;
    private volatile long lastLateRead = Long.MIN_VALUE;

    Failover(int partitions, long t0, long measuredFrom, double lateMs) {
        this.partitions = partitions;
        this.t0 = t0;
        this.lateMs = lateMs;
        this.lateNs = Math.round(lateMs * 1e6);
        this.sentDue = new long[partitions];
        this.acks = new Gaps(partitions, measuredFrom);
        this.reads = new Gaps(partitions, measuredFrom);
    }

    int partitionOf(long seq) {
        return (int) (seq % partitions);
    }

    synchronized void sent(long seq, long due) {
        sentDue[partitionOf(seq)] = due;
    }

    /** A successful acknowledgement; failed ones end no gap. */
    synchronized void acked(long seq, long due, long now) {
        acked.set((int) seq);
        acks.at(partitionOf(seq), now, due);
    }

    /** A record the consumer read; false when it had read it before. */
    boolean read(long seq, long due, long now) {
        if (read.get((int) seq)) {
            readTwice++;
            return false;
        }
        read.set((int) seq);
        if (now - due > lateNs) {
            lastLateRead = now;
        }
        int p = partitionOf(seq);
        long gap;
        synchronized (this) {
            gap = reads.since(p, now);
            reads.at(p, now, due);
        }
        if (gap > lateNs) {  // read again after a while: another member's partition taken over, a stall's end
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("type", "resumed");
            line.put("partition", p);
            line.put("from_s", LoadGen.round((now - gap - t0) / 1e9, 3));
            line.put("at_s", LoadGen.round((now - t0) / 1e9, 3));
            line.put("seq", seq);
            System.out.println(Json.of(line));
            System.out.flush();
        }
        return true;
    }

    /** Whether every partition's latest acknowledged record has been read here. */
    synchronized boolean readLatest() {
        return reads.caughtUp(acks);
    }

    /** The summary's "failover" object; `log` is what reading the log back found (null: not read). */
    synchronized Map<String, Object> summary(long end, boolean consumer, LogRead log) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("t0_wall_ms", System.currentTimeMillis() - (System.nanoTime() - t0) / 1_000_000);
        out.put("partitions", partitions);
        out.put("produce_gap", acks.summary(sentDue, end, t0));
        out.put("consume_gap", consumer ? reads.summary(acks.lastDue, end, t0) : null);
        out.put("read_twice", consumer ? readTwice : null);
        out.put("late_ms", lateMs);
        out.put("last_late_read_s", lastLateRead == Long.MIN_VALUE ? null : LoadGen.round((lastLateRead - t0) / 1e9, 3));
        out.put("acked", acked.cardinality());
        if (log == null || !log.complete) {
            out.put("verified", false);
            out.put("verify_note", log == null ? "the log was not read back" : log.note);
            out.put("lost", null);
            out.put("lost_seqs", List.of());
            out.put("log_duplicates", null);
            return out;
        }
        BitSet lost = (BitSet) acked.clone();
        lost.andNot(log.found);
        List<Long> sample = new ArrayList<>();
        for (int s = lost.nextSetBit(0); s >= 0 && sample.size() < SAMPLE; s = lost.nextSetBit(s + 1)) {
            sample.add((long) s);
        }
        out.put("verified", true);
        out.put("verify_note", null);
        out.put("lost", lost.cardinality());
        out.put("lost_seqs", sample);
        out.put("log_duplicates", log.twice);
        return out;
    }

    /** What the log holds of this run's records, read from where the run began to its end now. */
    static final class LogRead {
        final BitSet found = new BitSet();
        long twice;
        boolean complete;
        String note;
    }

    /** A plain reader's settings: the client's security settings only, to reach the cluster as it does. */
    static Properties reader(String bootstrap, Properties client) {
        Properties props = LoadGen.reachingAs(client, bootstrap);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        props.put("enable.auto.commit", "false");
        return props;
    }

    /** Each partition's end offset now: where a run's records will begin. */
    static Map<TopicPartition, Long> endOffsets(String bootstrap, Properties client, List<TopicPartition> parts)
            throws LoadGen.Unreachable {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(reader(bootstrap, client))) {
            return consumer.endOffsets(parts, Duration.ofSeconds(LoadGen.CONNECT_TIMEOUT_S));
        } catch (KafkaException e) {
            throw new LoadGen.Unreachable("end offsets of " + parts.get(0).topic() + ": " + e);
        }
    }

    /** Reads every partition from `start` to its end offset now: the records' own sequence numbers say
     *  what survived. */
    static LogRead readBack(String bootstrap, Properties client, Map<TopicPartition, Long> start) {
        LogRead out = new LogRead();
        long deadline = System.nanoTime() + VERIFY_S * 1_000_000_000L;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(reader(bootstrap, client))) {
            List<TopicPartition> parts = new ArrayList<>(start.keySet());
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(VERIFY_S));
            start.forEach(consumer::seek);
            while (System.nanoTime() < deadline) {
                boolean done = true;
                for (TopicPartition tp : parts) {
                    done &= consumer.position(tp) >= end.get(tp);
                }
                if (done) {
                    out.complete = true;
                    return out;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    Header header = record.headers().lastHeader(LoadGen.HEADER);
                    if (header != null && header.value().length == 16) {
                        int seq = (int) ByteBuffer.wrap(header.value()).getLong();
                        if (out.found.get(seq)) {
                            out.twice++;
                        }
                        out.found.set(seq);
                    }
                }
            }
            out.note = "the log was not read to its end within " + VERIFY_S + " s";
        } catch (KafkaException e) {
            out.note = "reading the log back failed: " + e;
        }
        return out;
    }
}
