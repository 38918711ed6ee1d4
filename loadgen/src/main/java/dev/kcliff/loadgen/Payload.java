package dev.kcliff.loadgen;

import java.util.Random;

/** Where each record's value comes from: the one piece to replace when real payload samples are fed
 *  in (issue #29). The record's sequence number and due time travel in a header, not here. */
interface Payload {
    byte[] value(long seq);

    /** As kafka-producer-perf-test makes its payload without a file: one array of random capital
     *  letters, reused for every record, so compression sees what the perf tool's records give it. */
    static Payload randomLetters(int size) {
        byte[] bytes = new byte[size];
        Random random = new Random(0);
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ('A' + random.nextInt(26));
        }
        return seq -> bytes;
    }
}
