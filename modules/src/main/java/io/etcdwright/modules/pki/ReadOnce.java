package io.etcdwright.modules.pki;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What this process has made of a PEM text, kept by the text. One plan reads the same text many
 * times (the facts view, the renewal policy's questions, the CA's trust checks), and the CA and
 * client certificates are the same text on every host of a cluster: a fleet's plan parsed each of
 * them dozens of times. The same text gives the same answer, so it is kept; only a failure names
 * its source, and failures are not kept (the supplier's exception passes through). Bounded, for a
 * long fleet run: past the bound, answers are still given, just not kept. A text being parsed is
 * waited for, not parsed again beside it.
 */
final class ReadOnce<V> {
    private static final int LIMIT = 4096;
    private final Map<String, V> read = new ConcurrentHashMap<>();

    V get(String text, Supplier<V> parse) {
        V known = text == null ? null : read.get(text);
        if (known != null) {
            return known;
        }
        if (text == null || read.size() >= LIMIT) {
            return parse.get();
        }
        // One parse of a text at a time: the workers that read five hosts' facts at once all meet
        // the cluster's CA at the same moment, and would each parse it, cold.
        return read.computeIfAbsent(text, t -> parse.get());
    }

    /** Whether {@code text}'s answer is kept. */
    boolean has(String text) {
        return text != null && read.containsKey(text);
    }
}
