package io.etcdwright.modules.membership;

import io.etcd.jetcd.Client;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.lock.LockHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run's lock is released even when the member its client's call lands on does not answer (a
 * member cut off from its peers, here a frozen process): the release goes on through each member
 * alone, so the operator's next command is not refused as locked by a run that has ended.
 */
class LockReleaseThroughAnyMemberTest {
    private static final Duration CALL = Duration.ofSeconds(2);

    @Test
    void aLockIsReleasedThroughAnotherMemberWhenTheFirstDoesNotAnswer(@TempDir Path dir) throws Exception {
        Path etcd = EtcdBinary.locate(dir);
        String version = EtcdHttpTest.version(etcd);
        TestPki.Issued ca = TestPki.ca("lock release test CA");
        Path caCert = dir.resolve("ca.crt");
        TestPki.writePem(caCert, ca.certificate());
        TestPki.server(ca, "etcd-member").write(dir.resolve("server.crt"), dir.resolve("server.key"));
        TestPki.client(ca, "etcdwright-admin", TestPki.ecKey()).write(dir.resolve("admin.crt"), dir.resolve("admin.key"));
        List<EtcdAdminClient> opened = new ArrayList<>();
        try (LocalEtcdCluster cluster = LocalEtcdCluster.start(etcd, version, dir, caCert, dir.resolve("server.crt"),
                dir.resolve("server.key"), 3, Duration.ofSeconds(60))) {
            java.util.function.Function<String, Client> alone = url -> {
                EtcdAdminClient one = EtcdAdminClient.connect(List.of(url), caCert, dir.resolve("admin.crt"),
                        dir.resolve("admin.key"), CALL);
                opened.add(one);
                return one.jetcd();
            };
            String m1 = cluster.node("m1").clientUrl();
            String m3 = cluster.node("m3").clientUrl();
            try (EtcdAdminClient onM3 = EtcdAdminClient.connect(List.of(m3), caCert, dir.resolve("admin.crt"),
                    dir.resolve("admin.key"), CALL);
                 EtcdAdminClient onM1 = EtcdAdminClient.connect(List.of(m1), caCert, dir.resolve("admin.crt"),
                         dir.resolve("admin.key"), CALL)) {
                ClusterLock lock = ClusterLock.take(onM3.jetcd(), "released", LockHolder.thisProcess("apply", Instant.now()),
                        Duration.ZERO, CALL);
                ClusterLock.Held held = ClusterLock.current(onM1.jetcd(), "released", CALL).orElseThrow();
                // The gateway's reader (status, a rollout's plan) sees the very key jetcd's does.
                try (EtcdHttp http = EtcdHttp.connect(List.of(m1, m3), caCert, dir.resolve("admin.crt"), dir.resolve("admin.key"), CALL)) {
                    assertEquals(held, ClusterLock.current(http, "released").orElseThrow());
                    assertEquals(lock.leaseId(), held.leaseId());
                    assertTrue(held.holder().isPresent() && held.modRevision() > 0, held.toString());
                }

                cluster.freeze("m3");
                try {
                    // m3 first, as the round robin may have it: it does not answer, m1 then does.
                    assertTrue(lock.release(List.of(m3, m1), alone), "released through m1");
                } finally {
                    cluster.thaw("m3");
                }

                assertFalse(ClusterLock.current(onM1.jetcd(), "released", CALL).isPresent(), "the key is gone");
                try (EtcdHttp http = EtcdHttp.connect(List.of(m1), caCert, dir.resolve("admin.crt"), dir.resolve("admin.key"), CALL)) {
                    assertFalse(ClusterLock.current(http, "released").isPresent(), "the gateway's reader finds it gone too");
                }
                long ttl = onM1.jetcd().getLeaseClient().timeToLive(lock.leaseId(),
                        io.etcd.jetcd.options.LeaseOption.DEFAULT).get(5, TimeUnit.SECONDS).getTTL();
                assertEquals(-1, ttl, "the lease is revoked, not left to run out");
                assertEquals(2, opened.size(), "m3 alone, then m1 alone; no member after the one that answered");
            }
        } finally {
            opened.forEach(EtcdAdminClient::close);
        }
    }
}
