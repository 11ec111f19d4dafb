package io.etcdwright.it;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Polls kube-apiserver's /readyz (which fails while it cannot reach etcd) every
 * {@link #INTERVAL} on a thread of its own, and adds up how long it said not ready: from each
 * failed poll to the next poll, as a load balancer polling it would have kept it out of rotation.
 */
final class Readiness {
    static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

    /** What the poller saw: polls, unready polls, the total and the longest unready time, in episodes. */
    record Seen(int polls, int unreadyPolls, long unreadyMillis, long longestUnreadyMillis, int episodes) {
        @Override
        public String toString() {
            return String.format("/readyz failed %d of %d polls: %d ms in all, in %d episodes, the longest %d ms", unreadyPolls, polls,
                    unreadyMillis, episodes, longestUnreadyMillis);
        }
    }

    private final KubeApi api;
    private final Thread poller;
    private volatile boolean stopping;
    private int polls;
    private int unreadyPolls;
    private long unreadyNanos;
    private long longestNanos;
    private int episodes;

    private Readiness(KubeApi api) {
        this.api = api;
        this.poller = new Thread(this::poll, "readyz-poller");
        poller.setDaemon(true);
    }

    static Readiness start(KubeApi api) {
        Readiness r = new Readiness(api);
        r.poller.start();
        return r;
    }

    private void poll() {
        long episodeStart = -1;
        long previous = System.nanoTime();
        boolean previousUnready = false;
        while (!stopping) {
            boolean ready = api.readyz(POLL_TIMEOUT) == 200;
            long now = System.nanoTime();
            if (stopping) {
                return;   // a poll cut short by the stop says nothing about the server
            }
            synchronized (this) {
                polls++;
                if (previousUnready) {
                    unreadyNanos += now - previous;
                }
                if (!ready) {
                    unreadyPolls++;
                    if (episodeStart < 0) {
                        episodeStart = now;
                        episodes++;
                    }
                    longestNanos = Math.max(longestNanos, now - episodeStart);
                } else if (episodeStart >= 0) {
                    longestNanos = Math.max(longestNanos, now - episodeStart);
                    episodeStart = -1;
                }
            }
            previous = now;
            previousUnready = !ready;
            try {
                Thread.sleep(INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    Seen stop() {
        stopping = true;
        try {
            poller.join(POLL_TIMEOUT.toMillis() * 5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            return new Seen(polls, unreadyPolls, TimeUnit.NANOSECONDS.toMillis(unreadyNanos), TimeUnit.NANOSECONDS.toMillis(longestNanos),
                    episodes);
        }
    }
}
