package dev.kcliff.loadgen;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * --member GROUP: one more member of a run's consumer group, in a JVM of its own so that kcliff can
 * crash it (SIGKILL: no close, no leave group) while the group reads (docs/failover.md, the member kill).
 * It reads and commits as its settings say until it is killed. Since it never gets to print a summary,
 * it prints what it has read as it goes: per partition, the wall-clock time of its latest read and that
 * record's sequence number, at most every PRINT_MS, so its last line is at most that old when it dies.
 * A partition the group has no offset for starts at the first record written at or after --since-ms.
 */
final class Member implements ConsumerRebalanceListener {
    static final long PRINT_MS = 50;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final long sinceMs;
    private final Map<Integer, long[]> latest = new TreeMap<>();  // partition -> {wall ms, seq, records read}
    private long printed;
    private boolean fresh;

    private Member(KafkaConsumer<byte[], byte[]> consumer, long sinceMs) {
        this.consumer = consumer;
        this.sinceMs = sinceMs;
    }

    static int run(Options opt) throws LoadGen.Unreachable {
        Properties props = new Properties();
        props.putAll(opt.consumer);
        props.put("bootstrap.servers", opt.bootstrap);
        props.put("group.id", opt.memberGroup);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        Member member = new Member(consumer, opt.sinceMs);
        try {
            Map<String, Object> started = new LinkedHashMap<>();  // the JVM's start, apart from the group's join
            started.put("type", "member-started");
            started.put("wall_ms", System.currentTimeMillis());
            print(started);
            consumer.subscribe(List.of(opt.topic), member);
            while (true) {  // until killed: a crashed member never leaves its group
                member.read(consumer.poll(Duration.ofMillis(100)));
            }
        } catch (KafkaException e) {
            throw new LoadGen.Unreachable("member of group " + opt.memberGroup + ": " + e);
        }
    }

    private void read(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        long now = System.currentTimeMillis();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            Header header = record.headers().lastHeader(LoadGen.HEADER);
            if (header == null || header.value().length != 16) {
                continue;  // not one of this run's records
            }
            long seq = ByteBuffer.wrap(header.value()).getLong();
            long[] seen = latest.computeIfAbsent(record.partition(), p -> new long[3]);
            seen[0] = now;
            seen[1] = seq;
            seen[2]++;
            fresh = true;
        }
        if (fresh && now - printed >= PRINT_MS) {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("type", "member-read");
            line.put("wall_ms", now);
            Map<String, Object> parts = new LinkedHashMap<>();
            latest.forEach((p, seen) -> parts.put(String.valueOf(p), List.of(seen[0], seen[1], seen[2])));
            line.put("partitions", parts);
            print(line);
            printed = now;
            fresh = false;
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        long began = System.currentTimeMillis();
        Map<TopicPartition, Long> since = new HashMap<>();
        var committed = consumer.committed(Set.copyOf(partitions));
        for (TopicPartition tp : partitions) {
            if (committed.get(tp) == null) {
                since.put(tp, sinceMs);
            }
        }
        if (!since.isEmpty()) {  // no offset of the group's: from this run's first record, as GroupMember does
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(since);
            Map<TopicPartition, Long> ends = consumer.endOffsets(since.keySet());
            for (TopicPartition tp : since.keySet()) {
                OffsetAndTimestamp at = found.get(tp);
                consumer.seek(tp, at != null ? at.offset() : ends.get(tp));
            }
        }
        List<Integer> held = new ArrayList<>();
        partitions.forEach(tp -> held.add(tp.partition()));
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("type", "member-assigned");
        line.put("wall_ms", began);
        line.put("positioned_ms", System.currentTimeMillis());
        line.put("partitions", held);
        print(line);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // the consumer commits on revocation itself when auto-commit is on, as a service's does
    }

    private static void print(Map<String, Object> line) {
        System.out.println(Json.of(line));
        System.out.flush();
    }
}
