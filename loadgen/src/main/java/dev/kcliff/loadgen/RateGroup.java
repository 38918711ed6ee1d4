package dev.kcliff.loadgen;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The read side of a run at a rate as a service runs it (--group-id without --failover): --members
 * consumers of one group, subscribed with the group protocol and assignor their settings name, each
 * working on every record and committing as --commit says (Work). The members join, and the group's
 * rebalances settle, before the first record is sent; a record's end-to-end time is taken once its
 * work is done, as the service would be done with it.
 */
final class RateGroup {
    /** Takes each record read, once its work is done, at `nowNs`. Called from every member's thread. */
    interface Reader {
        void read(ConsumerRecord<byte[], byte[]> record, long nowNs);
    }

    private final Options opt;
    private final Work work;
    private final Map<TopicPartition, Long> start;
    private final Reader reader;
    private final AtomicIntegerArray held;  // partitions each member holds now
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    RateGroup(Options opt, Map<TopicPartition, Long> start, Reader reader) {
        this.opt = opt;
        this.work = new Work(opt.commit, opt.processUs);
        this.start = start;
        this.reader = reader;
        this.held = new AtomicIntegerArray(opt.members);
    }

    /** Start every member and wait until the group has given out every partition, to as many members as
     *  can hold one, within `timeoutS`; returns how many ms that took. */
    long join(long timeoutS) throws LoadGen.Unreachable {
        long began = System.nanoTime();
        for (int i = 0; i < opt.members; i++) {
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(work.memberProps(opt, i));
            consumers.add(consumer);
            int member = i;
            Thread thread = new Thread(() -> member(member, consumer), "rate-member-" + i);
            threads.add(thread);
            thread.start();
        }
        long deadline = System.nanoTime() + timeoutS * 1_000_000_000L;
        while (!settled()) {
            if (firstError.get() != null || System.nanoTime() > deadline) {
                stop();
                throw new LoadGen.Unreachable("group " + opt.groupId + " of " + opt.members + " members did not "
                        + "settle on " + start.size() + " partitions within " + timeoutS + " s"
                        + (firstError.get() == null ? "" : ": " + firstError.get()));
            }
            LockSupport.parkNanos(20_000_000L);
        }
        return (System.nanoTime() - began) / 1_000_000;
    }

    private boolean settled() {
        int total = 0;
        int holders = 0;
        for (int i = 0; i < held.length(); i++) {
            total += held.get(i);
            holders += held.get(i) > 0 ? 1 : 0;
        }
        return total == start.size() && holders == Math.min(opt.members, start.size());
    }

    private void member(int index, KafkaConsumer<byte[], byte[]> consumer) {
        Set<TopicPartition> holding = new HashSet<>();
        GroupMember seeker = new GroupMember(consumer, start);
        try (consumer) {  // closed by its own thread: each member leaves the group as it stops
            consumer.subscribe(List.of(opt.topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    seeker.onPartitionsAssigned(partitions);
                    holding.addAll(partitions);
                    held.set(index, holding.size());
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (!stopping && !partitions.isEmpty()) {
                        work.onRevoked(consumer);
                    }
                    holding.removeAll(partitions);
                    held.set(index, holding.size());
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    holding.removeAll(partitions);  // its offsets are no longer its to commit
                    held.set(index, holding.size());
                }
            });
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> record : polled) {
                    work.process();
                    reader.read(record, System.nanoTime());
                    work.onRecordDone(consumer, record);
                    if (stopping) {
                        break;
                    }
                }
                work.onPollDone(consumer, !polled.isEmpty());
            }
        } catch (WakeupException e) {
            // stopping
        } catch (KafkaException e) {
            if (!stopping) {
                firstError.compareAndSet(null, "member " + index + ": " + e);
            }
        }
    }

    /** The first error a member met while the run went on (null: none). */
    String error() {
        return firstError.get();
    }

    long commits() {
        return work.commits();
    }

    long refused() {
        return work.refused();
    }

    /** Stop every member; each closes its consumer and leaves the group. */
    void stop() {
        stopping = true;
        Work.stopMembers(consumers, threads);
    }
}
