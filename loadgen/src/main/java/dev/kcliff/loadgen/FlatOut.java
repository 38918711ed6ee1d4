package dev.kcliff.loadgen;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;

/**
 * Flat out (--num-records): sends N records as fast as the producer takes them (send() blocks while
 * buffer.memory is full), from the payload file with its keys or random letters, each timed from its
 * send() call to its acknowledgement. It is there for what kafka-producer-perf-test cannot do, send
 * keys (docs/loadgen.md, "Flat out"), and prints exactly what that tool prints: interim lines, the
 * summary with the records after --warmup-records apart, the producer's compression-rate-avg as
 * --print-metrics shows it. So kcliff reads both tools' runs with one parser (measure/perf_output.py)
 * and stops both with the same rules: a cliff from the interim lines, a stall from their silence
 * (a line comes only with an acknowledgement, as the perf tool's do).
 */
final class FlatOut {
    private static final double MB = 1024.0 * 1024.0;

    private final Options opt;
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();

    FlatOut(Options opt) {
        this.opt = opt;
    }

    int run() {
        if (opt.warmupRecords > 0) {
            System.out.println("Warmup first " + opt.warmupRecords
                    + " records. Steady state results will print after the complete test summary.");
        }
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(LoadGen.producerProps(opt));
        Stats whole = new Stats(false);
        Stats steady = null;
        long start = System.nanoTime();
        for (long i = 0; i < opt.numRecords; i++) {
            if (opt.throughput > 0) {  // --throughput: an average, as the perf tool's (late records go at once)
                long due = start + (long) (i * 1e9 / opt.throughput);
                for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
                    LockSupport.parkNanos(due - now);
                }
            }
            Payload.Sample sample = opt.payload.next();
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(opt.topic, sample.key(), sample.value());
            if (i == opt.warmupRecords && i > 0) {  // warm-up records acknowledged later count in `whole` only
                steady = new Stats(true);
                whole.suppressPrinting();
            }
            Stats alsoSteady = steady;
            int bytes = sample.value().length;  // the value's bytes, as the perf tool counts them
            long sent = System.nanoTime();
            try {
                producer.send(record, (meta, error) -> acked(whole, alsoSteady, sent, bytes, error));
            } catch (KafkaException e) {
                acked(whole, alsoSteady, sent, bytes, e);
            }
        }
        producer.flush();  // every callback has run when it returns
        whole.printTotal();
        if (steady != null) {
            steady.printTotal();
        }
        printCompressionRate(producer);
        if (errors.get() > 0) {
            System.err.println("loadgen: " + errors.get() + " sends failed, the first: " + firstError.get());
        }
        System.out.flush();
        producer.close(Duration.ofSeconds(2));
        return LoadGen.EXIT_OK;
    }

    /** A send's callback: failed sends count in no figure, as in the perf tool. */
    private void acked(Stats whole, Stats steady, long sent, int bytes, Exception error) {
        long now = System.nanoTime();
        if (error != null) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, error.toString());
            return;
        }
        long latencyUs = (now - sent) / 1000;
        whole.record(latencyUs, bytes, now);
        if (steady != null) {
            steady.record(latencyUs, bytes, now);
        }
    }

    /** --print-metrics' line for the one metric kcliff reads: "group:name:{tags} : value", 3 places. */
    private static void printCompressionRate(KafkaProducer<byte[], byte[]> producer) {
        for (var metric : producer.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.group().equals("producer-metrics") && name.name().equals("compression-rate-avg")) {
                Object value = metric.getValue().metricValue();
                System.out.printf(Locale.ROOT, "%s:%s:%s : %.3f%n", name.group(), name.name(), name.tags(),
                        value instanceof Double d ? d : Double.NaN);
            }
        }
    }

    /** The perf tool's figures of a run (or its steady state): a window's line when an acknowledgement
     *  comes a reporting interval or more after the window began, the total at the end. Latencies in
     *  microseconds, printed in ms as the perf tool prints its whole ms. Called from the producer's
     *  I/O thread and, for the total, the main one. */
    private final class Stats {
        private final boolean steadyState;
        private final long start = System.nanoTime();
        private final Histogram latencies = new Histogram(LoadGen.DIGITS);
        private long count;
        private long bytes;
        private long totalUs;
        private long maxUs;
        private long windowStart = start;
        private long windowCount;
        private long windowBytes;
        private long windowTotalUs;
        private long windowMaxUs;
        private boolean suppressed;

        Stats(boolean steadyState) {
            this.steadyState = steadyState;
        }

        synchronized void suppressPrinting() {
            suppressed = true;
        }

        synchronized void record(long latencyUs, int size, long now) {
            count++;
            bytes += size;
            totalUs += latencyUs;
            maxUs = Math.max(maxUs, latencyUs);
            latencies.recordValue(latencyUs);
            windowCount++;
            windowBytes += size;
            windowTotalUs += latencyUs;
            windowMaxUs = Math.max(windowMaxUs, latencyUs);
            if (now - windowStart >= opt.reportingIntervalMs * 1_000_000L) {
                if (steadyState && count == windowCount) {
                    System.out.println("In steady state.");
                }
                if (!suppressed) {
                    double ms = (now - windowStart) / 1e6;
                    System.out.printf(Locale.ROOT, "%d records sent, %.1f records/sec (%.2f MB/sec), "
                            + "%.1f ms avg latency, %.1f ms max latency.%n", windowCount, 1000.0 * windowCount / ms,
                            1000.0 * windowBytes / ms / MB, windowTotalUs / 1000.0 / windowCount, windowMaxUs / 1000.0);
                    System.out.flush();
                }
                windowStart = now;
                windowCount = 0;
                windowBytes = 0;
                windowTotalUs = 0;
                windowMaxUs = 0;
            }
        }

        synchronized void printTotal() {
            double ms = (System.nanoTime() - start) / 1e6;
            System.out.printf(Locale.ROOT, "%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, "
                    + "%.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.%n",
                    count, steadyState ? " steady state" : "", 1000.0 * count / ms, 1000.0 * bytes / ms / MB,
                    totalUs / 1000.0 / count, maxUs / 1000.0, percentile(50), percentile(95), percentile(99),
                    percentile(99.9));
        }

        private long percentile(double q) {
            return Math.round(latencies.getValueAtPercentile(q) / 1000.0);
        }
    }
}
