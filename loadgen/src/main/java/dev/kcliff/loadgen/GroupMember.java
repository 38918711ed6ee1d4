package dev.kcliff.loadgen;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer that reads as a service's does: a member of its group (subscribed, its group protocol and
 * assignor as configured, committing as configured). A partition it is given for the first time starts
 * at the run's first record unless the group has committed an offset for it; later assignments resume
 * from the group's offsets, as a real member's do after a rebalance.
 */
final class GroupMember implements ConsumerRebalanceListener {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, Long> start;
    private final Set<TopicPartition> seen = new HashSet<>();

    GroupMember(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> start) {
        this.consumer = consumer;
        this.start = start;
    }

    /** A member of the group in `props` that has been given every partition of `topic` (it is the
     *  group's only member here) within `timeoutS`. */
    static KafkaConsumer<byte[], byte[]> joined(Properties props, String topic, Map<TopicPartition, Long> start,
                                                long timeoutS) throws LoadGen.Unreachable {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        try {
            consumer.subscribe(List.of(topic), new GroupMember(consumer, start));
            long deadline = System.nanoTime() + timeoutS * 1_000_000_000L;
            while (consumer.assignment().size() < start.size()) {
                if (System.nanoTime() > deadline) {
                    throw new LoadGen.Unreachable("group " + props.getProperty("group.id") + " gave this member "
                            + consumer.assignment().size() + " of " + start.size() + " partitions within " + timeoutS + " s");
                }
                consumer.poll(Duration.ofMillis(100));  // nothing to read yet: the run sends after this
            }
            return consumer;
        } catch (KafkaException | LoadGen.Unreachable e) {
            consumer.close(Duration.ofSeconds(1));
            if (e instanceof LoadGen.Unreachable u) {
                throw u;
            }
            throw new LoadGen.Unreachable("joining group " + props.getProperty("group.id") + ": " + e);
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            if (seen.add(tp) && start.containsKey(tp)
                    && consumer.committed(Set.of(tp)).get(tp) == null) {
                consumer.seek(tp, start.get(tp));
            }
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // the consumer commits on revocation itself when auto-commit is on, as a service's does
    }
}
