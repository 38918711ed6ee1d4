package dev.kcliff.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;

/** Where each record's key and value come from (docs/loadgen.md, "Payloads"). The record's sequence
 *  number and due time travel in a header, not here. Called from the sending thread only. */
interface Payload {
    /** The next record to send. */
    Sample next();

    /** The bytes of the values this payload sends, on average (what --rate's records/s are made of). */
    double meanValueBytes();

    /** One record's key (null: none, the partitioner spreads it) and value. */
    record Sample(byte[] key, byte[] value) {
    }

    /** As kafka-producer-perf-test makes its payload without a file: `size` fresh random capital
     *  letters for every record, so compression sees what the perf tool's records give it. */
    static Payload randomLetters(int size) {
        SplittableRandom random = new SplittableRandom(0);
        return new Payload() {
            @Override
            public Sample next() {
                byte[] bytes = new byte[size];
                for (int i = 0; i < size; i++) {
                    bytes[i] = (byte) ('A' + random.nextInt(26));
                }
                return new Sample(null, bytes);
            }

            @Override
            public double meanValueBytes() {
                return size;
            }
        };
    }

    /** Records drawn at random from `samples`, as the perf tool draws from its --payload-file. */
    static Payload samples(List<Sample> samples) {
        SplittableRandom random = new SplittableRandom(0);
        double mean = samples.stream().mapToInt(s -> s.value().length).average().orElse(0);
        return new Payload() {
            @Override
            public Sample next() {
                return samples.get(random.nextInt(samples.size()));
            }

            @Override
            public double meanValueBytes() {
                return mean;
            }
        };
    }

    /** kcliff's payload file (kcliff.scenario.payload_files): a line per record, its value in base64,
     *  or its key and value in base64 separated by a tab. */
    static List<Sample> read(Path file) throws IOException {
        List<Sample> found = new ArrayList<>();
        Base64.Decoder base64 = Base64.getDecoder();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            number++;
            if (line.isEmpty()) {
                continue;
            }
            int tab = line.indexOf('\t');
            try {
                byte[] key = tab < 0 ? null : base64.decode(line.substring(0, tab));
                found.add(new Sample(key, base64.decode(line.substring(tab + 1))));
            } catch (IllegalArgumentException e) {
                throw new IOException("line " + number + " is not [base64 key TAB] base64 value: " + e.getMessage());
            }
        }
        if (found.isEmpty()) {
            throw new IOException("no records in it");
        }
        return found;
    }
}
