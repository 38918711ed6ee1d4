package dev.kcliff.loadgen;

import java.text.SimpleDateFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
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
 * --consume N: a consumer group reading N records from the start of the topic as a service reads them
 * (docs/loadgen.md, "Consuming as a service does"): --members consumers of one group (each joins as it
 * starts, so the group rebalances as a service's pods come up), each working --process-us on every
 * record and committing as --commit says: `auto` (the consumer's own auto-commit, as configured),
 * `poll-sync`/`poll-async` (after each poll's records), `record-sync`/`record-async` (after each record).
 * It prints what kafka-consumer-perf-test prints with --show-detailed-stats, so one parser
 * (measure/read_output.py) reads both tools, plus one last line with the totals at the end.
 */
final class Consume {
    private static final double MB = 1024.0 * 1024.0;

    private final Options opt;
    private final Work work;
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong lastRecordNs = new AtomicLong();
    private final AtomicLong joinedNs = new AtomicLong();  // when the last member first got partitions
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private volatile boolean done;
    private int partitionCount;

    Consume(Options opt) {
        this.opt = opt;
        this.work = new Work(opt.commit, opt.processUs);
    }

    int run() {
        long start = System.nanoTime();
        lastRecordNs.set(start);
        List<Thread> threads = new ArrayList<>();
        AtomicLong assignedMembers = new AtomicLong();
        for (int i = 0; i < opt.members; i++) {
            consumers.add(new KafkaConsumer<>(props(i)));
        }
        try {  // members beyond the partitions get none: the group has joined when the others have some
            partitionCount = consumers.get(0).partitionsFor(opt.topic, Duration.ofSeconds(LoadGen.CONNECT_TIMEOUT_S)).size();
        } catch (KafkaException e) {
            consumers.forEach(c -> c.close(Duration.ofSeconds(1)));
            System.err.println("loadgen: topic " + opt.topic + ": " + e);
            return LoadGen.EXIT_CLUSTER;
        }
        for (int i = 0; i < opt.members; i++) {
            KafkaConsumer<byte[], byte[]> consumer = consumers.get(i);
            Thread thread = new Thread(() -> member(consumer, assignedMembers, start), "member-" + i);
            threads.add(thread);
            thread.start();
        }
        System.out.println("time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                + "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec");
        long lastReport = start;
        long lastRecords = 0;
        long lastBytes = 0;
        boolean rebalanceReported = false;
        boolean timedOut = false;
        while (!done) {
            LockSupport.parkNanos(Math.min(opt.reportingIntervalMs, 50) * 1_000_000L);
            long now = System.nanoTime();
            if (records.get() >= opt.consumeRecords || firstError.get() != null) {
                break;
            }
            if (now - lastRecordNs.get() > opt.timeoutMs * 1_000_000L) {
                timedOut = true;
                break;
            }
            if (now - lastReport >= opt.reportingIntervalMs * 1_000_000L) {
                long rebalance = !rebalanceReported && joinedNs.get() > 0 ? (joinedNs.get() - start) / 1_000_000 : 0;
                rebalanceReported |= rebalance > 0;
                report(now, lastReport, lastRecords, lastBytes, rebalance);
                lastReport = now;
                lastRecords = records.get();
                lastBytes = bytes.get();
            }
        }
        done = true;
        Work.stopMembers(consumers, threads);
        report(System.nanoTime(), lastReport, lastRecords, lastBytes, 0);
        if (timedOut) {
            System.out.println("WARNING: Exiting before consuming the expected number of messages: timeout ("
                    + opt.timeoutMs + " ms) exceeded.");
        }
        System.out.println("commits: " + work.commits() + (work.refused() > 0 ? ", refused in a rebalance: " + work.refused() : ""));
        if (firstError.get() != null) {
            System.err.println("loadgen: a member failed: " + firstError.get());
            return LoadGen.EXIT_CLUSTER;
        }
        return LoadGen.EXIT_OK;
    }

    private Properties props(int member) {
        Properties props = work.memberProps(opt, member);
        props.putIfAbsent("auto.offset.reset", "earliest");  // a fresh group reads the topic from its start
        return props;
    }

    private void member(KafkaConsumer<byte[], byte[]> consumer, AtomicLong assignedMembers, long start) {
        boolean[] assigned = {false};
        try (consumer) {
            consumer.subscribe(List.of(opt.topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!assigned[0] && !partitions.isEmpty()) {
                        assigned[0] = true;
                        if (assignedMembers.incrementAndGet() == Math.min(opt.members, partitionCount)) {
                            joinedNs.compareAndSet(0, System.nanoTime());
                        }
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (!done) {
                        work.onRevoked(consumer);
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    // the group moved on without this member: its offsets are no longer its to commit
                }
            });
            while (!done) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> record : polled) {
                    work.process();
                    work.onRecordDone(consumer, record);
                    bytes.addAndGet(record.serializedValueSize() < 0 ? 0 : record.serializedValueSize());
                    lastRecordNs.set(System.nanoTime());
                    if (records.incrementAndGet() >= opt.consumeRecords || done) {
                        done = true;
                        break;
                    }
                }
                work.onPollDone(consumer, !polled.isEmpty());
            }
        } catch (WakeupException e) {
            // the run is over
        } catch (KafkaException e) {
            if (!done) {
                firstError.compareAndSet(null, e.toString());
            }
        }
    }

    /** One line as ConsumerPerformance prints it: totals so far, this interval's rates. */
    private void report(long now, long lastReport, long lastRecords, long lastBytes, long rebalanceMs) {
        double elapsedMs = (now - lastReport) / 1e6;
        long total = records.get();
        double mb = bytes.get() / MB;
        double intervalMb = (bytes.get() - lastBytes) / MB;
        long fetchMs = Math.max(0, Math.round(elapsedMs) - rebalanceMs);
        String when = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss:SSS").format(new Date());
        System.out.println(String.format(Locale.ROOT, "%s, %d, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f", when, 0, mb,
                intervalMb / elapsedMs * 1000, total, (total - lastRecords) / elapsedMs * 1000, rebalanceMs, fetchMs,
                fetchMs > 0 ? intervalMb / fetchMs * 1000 : 0.0, fetchMs > 0 ? (total - lastRecords) * 1000.0 / fetchMs : 0.0));
        System.out.flush();
    }
}
