package dev.kcliff.loadgen;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a service's member does with what it reads (--commit, --process-us): works on each record, then
 * commits as the service does: `auto` (the consumer's own auto-commit, as configured), `poll-sync` /
 * `poll-async` (after each poll's records), `record-sync` / `record-async` (after each record). One place
 * for the group that reads flat out (Consume) and the one that reads at a rate (RateGroup).
 */
final class Work {
    static final List<String> COMMITS = List.of("auto", "poll-sync", "poll-async", "record-sync", "record-async");

    private final String commit;
    private final long processUs;
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    Work(String commit, long processUs) {
        this.commit = commit;
        this.processUs = processUs;
    }

    /** Member `member`'s settings: the consumer's own, in group --group-id; a service that commits itself
     *  turns its consumer's auto-commit off. */
    Properties memberProps(Options opt, int member) {
        Properties props = new Properties();
        props.putAll(opt.consumer);
        props.put("bootstrap.servers", opt.bootstrap);
        props.put("group.id", opt.groupId);
        props.put("client.id", opt.groupId + "-" + member);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        if (!commit.equals("auto")) {
            props.put("enable.auto.commit", "false");
        }
        return props;
    }

    /** Wake every member out of its poll and wait for its thread, which closes its consumer and leaves the group. */
    static void stopMembers(List<KafkaConsumer<byte[], byte[]>> consumers, List<Thread> threads) {
        consumers.forEach(KafkaConsumer::wakeup);
        for (Thread thread : threads) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The work on one record: a wait, as a service's call to a database is. */
    void process() {
        if (processUs > 0) {
            LockSupport.parkNanos(processUs * 1000L);
        }
    }

    /** After a record's work: its commit if per record. */
    void onRecordDone(KafkaConsumer<byte[], byte[]> consumer, ConsumerRecord<byte[], byte[]> record) {
        if (commit.startsWith("record")) {
            commit(consumer, Map.of(new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1)), commit.equals("record-sync"));
        }
    }

    /** After a poll's records: its commit if per poll. */
    void onPollDone(KafkaConsumer<byte[], byte[]> consumer, boolean readAny) {
        if (readAny && commit.startsWith("poll")) {
            commit(consumer, null, commit.equals("poll-sync"));
        }
    }

    /** Before partitions are taken away: a service commits what it processed (auto-commit does so itself). */
    void onRevoked(KafkaConsumer<byte[], byte[]> consumer) {
        if (!commit.equals("auto")) {
            commit(consumer, null, true);
        }
    }

    long commits() {
        return commits.get();
    }

    /** Commits a rebalance refused: a service logs them and reads on, its records read again by whoever
     *  holds their partitions next (at least once). */
    long refused() {
        return refused.get();
    }

    /** One commit: of `offsets`, or of everything polled so far (null). */
    private void commit(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, OffsetAndMetadata> offsets,
                        boolean sync) {
        try {
            if (sync) {
                if (offsets == null) {
                    consumer.commitSync();
                } else {
                    consumer.commitSync(offsets);
                }
            } else if (offsets == null) {
                consumer.commitAsync();
            } else {
                consumer.commitAsync(offsets, null);
            }
            commits.incrementAndGet();
        } catch (RebalanceInProgressException | CommitFailedException e) {
            refused.incrementAndGet();  // the group is rebalancing, or moved on without this member
        }
    }
}
