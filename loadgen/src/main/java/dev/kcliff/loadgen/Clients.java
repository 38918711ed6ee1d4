package dev.kcliff.loadgen;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The clients of runs at a rate: made for the first run that needs them and kept for the next runs
 * with the same settings (--serve), or closed after the one run (a one-off LoadGen). A run of a
 * kcliff check's side differs from the last only in its records, so its JVM, connections and
 * metadata outlive it instead of being made again in every run (docs/loadgen.md, "One JVM a side").
 */
final class Clients implements AutoCloseable {
    private final Map<String, List<TopicPartition>> partitions = new HashMap<>();
    private String producersKey;
    private List<KafkaProducer<byte[], byte[]>> producers = List.of();
    private String consumerKey;
    private KafkaConsumer<byte[], byte[]> consumer;

    /** The topic's partitions, looked up once per cluster and topic. */
    List<TopicPartition> partitions(Options opt) throws LoadGen.Unreachable {
        String key = opt.bootstrap + "\n" + opt.topic;
        List<TopicPartition> found = partitions.get(key);
        if (found == null) {
            found = lookUp(opt);
            partitions.put(key, found);
        }
        return found;
    }

    /** opt.producers producers with opt's settings: the last run's where its settings were the same. */
    List<KafkaProducer<byte[], byte[]>> producers(Options opt) {
        String key = opt.bootstrap + "\n" + opt.producers + "\n" + canonical(opt.producer);
        if (!key.equals(producersKey)) {
            closeProducers();
            List<KafkaProducer<byte[], byte[]>> made = new ArrayList<>();
            for (int i = 0; i < opt.producers; i++) {
                made.add(new KafkaProducer<>(LoadGen.producerProps(opt)));
            }
            producers = made;
            producersKey = key;
        }
        return producers;
    }

    /** The consumer as configured, assigned every partition at its end: only this run's records are
     *  read, and there is no group join to wait for. The last run's consumer where its settings match. */
    KafkaConsumer<byte[], byte[]> consumer(Options opt, List<TopicPartition> assigned) throws LoadGen.Unreachable {
        String key = opt.bootstrap + "\n" + canonical(opt.consumer);
        if (!key.equals(consumerKey)) {
            closeConsumer();
            Properties props = new Properties();
            props.putAll(opt.consumer);
            props.put("bootstrap.servers", opt.bootstrap);
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            props.put("enable.auto.commit", "false");  // assigned, not subscribed: no group offsets to keep
            consumer = new KafkaConsumer<>(props);
            consumerKey = key;
        }
        try {
            consumer.assign(assigned);
            consumer.endOffsets(assigned, Duration.ofSeconds(LoadGen.CONNECT_TIMEOUT_S)).forEach(consumer::seek);
            assigned.forEach(consumer::position);
        } catch (KafkaException e) {
            closeConsumer();
            throw new LoadGen.Unreachable("end offsets of " + opt.topic + ": " + e);
        }
        return consumer;
    }

    @Override
    public void close() {
        closeConsumer();
        closeProducers();
        partitions.clear();
    }

    private void closeProducers() {
        producers.forEach(p -> p.close(Duration.ofSeconds(2)));
        producers = List.of();
        producersKey = null;
    }

    private void closeConsumer() {
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(2));
        }
        consumer = null;
        consumerKey = null;
    }

    /** Settings in one order, so equal settings give equal keys. */
    private static String canonical(Properties props) {
        Map<String, String> sorted = new TreeMap<>();
        props.stringPropertyNames().forEach(name -> sorted.put(name, props.getProperty(name)));
        return sorted.toString();
    }

    private static List<TopicPartition> lookUp(Options opt) throws LoadGen.Unreachable {
        Properties props = new Properties();
        for (String name : opt.producer.stringPropertyNames()) {
            if (name.startsWith("security.") || name.startsWith("ssl.") || name.startsWith("sasl.")) {
                props.put(name, opt.producer.getProperty(name));  // to reach a cluster as the producer does
            }
        }
        props.put("bootstrap.servers", opt.bootstrap);
        try (Admin admin = Admin.create(props)) {
            TopicDescription topic = admin.describeTopics(List.of(opt.topic)).allTopicNames()
                    .get(LoadGen.CONNECT_TIMEOUT_S, TimeUnit.SECONDS).get(opt.topic);
            List<TopicPartition> found = new ArrayList<>();
            topic.partitions().forEach(p -> found.add(new TopicPartition(opt.topic, p.partition())));
            return found;
        } catch (ExecutionException e) {
            throw new LoadGen.Unreachable("topic " + opt.topic + " at " + opt.bootstrap + ": " + e.getCause());
        } catch (TimeoutException e) {
            throw new LoadGen.Unreachable("no answer from " + opt.bootstrap + " about topic " + opt.topic
                    + " within " + LoadGen.CONNECT_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LoadGen.Unreachable("interrupted");
        }
    }
}
