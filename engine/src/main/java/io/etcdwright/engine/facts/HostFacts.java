package io.etcdwright.engine.facts;

import java.time.Duration;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Everything the probes found on one reachable host.
 *
 * @param host        inventory host name
 * @param byProbe     parsed facts keyed by probe name
 * @param rawByProbe  the raw outputs, kept for digests and debugging
 * @param gatherTime  how long the round trip took
 * @param clockSkewMillis host clock minus workstation clock; a large skew breaks certificate
 *                        validity and expiry arithmetic
 */
public record HostFacts(String host, Map<String, Object> byProbe, Map<String, String> rawByProbe, Duration gatherTime,
                        long clockSkewMillis) {
    public <T> T get(Probe<T> probe) {
        Object facts = byProbe.get(probe.name());
        if (facts == null) {
            throw new NoSuchElementException("no '" + probe.name() + "' facts were gathered from " + host);
        }
        @SuppressWarnings("unchecked") T typed = (T) facts;
        return typed;
    }
}
