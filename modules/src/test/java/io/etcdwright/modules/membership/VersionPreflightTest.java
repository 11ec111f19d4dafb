package io.etcdwright.modules.membership;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.modules.upgrade.VersionPreflight;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link VersionPreflight} against a real one-member etcd with mutual TLS (as {@link EtcdHttpTest}
 * runs it): it passes on a healthy member on a planned version and stops a version change for a
 * version not planned, a member that does not answer, a raised alarm, and enabled authentication
 * before 3.4 -> 3.5. In order: the alarm is disarmed before authentication is enabled.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VersionPreflightTest {
    @TempDir
    static Path dir;

    private static LocalEtcdCluster cluster;
    private static String version;
    private static Health.Access access;
    private static Health.Access rootAccess;

    @BeforeAll
    static void start() throws Exception {
        Path etcd = EtcdBinary.locate(dir);
        version = EtcdHttpTest.version(etcd);
        TestPki.Issued ca = TestPki.ca("preflight test CA");
        Path caCert = dir.resolve("ca.crt");
        TestPki.writePem(caCert, ca.certificate());
        TestPki.server(ca, "etcd-member").write(dir.resolve("server.crt"), dir.resolve("server.key"));
        TestPki.client(ca, "etcdwright-admin", TestPki.ecKey()).write(dir.resolve("admin.crt"), dir.resolve("admin.key"));
        // With authentication on, etcd takes a client certificate's common name as the user.
        TestPki.client(ca, "root", TestPki.ecKey()).write(dir.resolve("root.crt"), dir.resolve("root.key"));
        access = new Health.Access(caCert, dir.resolve("admin.crt"), dir.resolve("admin.key"));
        rootAccess = new Health.Access(caCert, dir.resolve("root.crt"), dir.resolve("root.key"));
        cluster = LocalEtcdCluster.start(etcd, version, dir, caCert, dir.resolve("server.crt"), dir.resolve("server.key"), 1,
                Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static VersionPreflight preflight(Health.Access as, Set<String> versions, boolean refuseAuth) {
        return new VersionPreflight(as, Map.of("m1", cluster.clientUrls().get(0)), versions, refuseAuth, "minor upgrade");
    }

    @Test
    @Order(1)
    void aHealthyMemberOnAPlannedVersionPasses() {
        EtcdHttpTest.Notes notes = new EtcdHttpTest.Notes();
        preflight(access, Set.of(version, "9.9.9"), true).verify(notes);
        assertTrue(notes.notes.get(0).contains("m1 " + version), notes.notes.toString());
    }

    @Test
    @Order(2)
    void aVersionThePlanWasNotMadeFromStopsIt() {
        ConditionNotMetException e = assertThrows(ConditionNotMetException.class,
                () -> preflight(access, Set.of("3.3.0"), false).verify(new EtcdHttpTest.Notes()));
        assertTrue(e.getMessage().contains("member m1 runs etcd " + version + ", not one of the versions"), e.getMessage());
        assertTrue(e.getMessage().contains("Nothing has been changed on any member"), e.getMessage());
    }

    @Test
    @Order(3)
    void aMemberThatDoesNotAnswerStopsIt() {
        VersionPreflight withDeadMember = new VersionPreflight(access, Map.of("m1", cluster.clientUrls().get(0),
                "gone", "https://127.0.0.1:1"), Set.of(version), false, "patch change");
        ConditionNotMetException e = assertThrows(ConditionNotMetException.class, () -> withDeadMember.verify(new EtcdHttpTest.Notes()));
        assertTrue(e.getMessage().contains("member gone at https://127.0.0.1:1 does not answer"), e.getMessage());
    }

    @Test
    @Order(4)
    void aRaisedAlarmStopsIt() throws Exception {
        alarm(AlarmRequest.AlarmAction.ACTIVATE);
        try {
            ConditionNotMetException e = assertThrows(ConditionNotMetException.class,
                    () -> preflight(access, Set.of(version), false).verify(new EtcdHttpTest.Notes()));
            assertTrue(e.getMessage().contains("alarm NOSPACE is raised"), e.getMessage());
        } finally {
            alarm(AlarmRequest.AlarmAction.DEACTIVATE);
        }
        preflight(access, Set.of(version), false).verify(new EtcdHttpTest.Notes());
    }

    /**
     * etcd's Downgrade RPC as MemberRpc writes it by hand (jetcd does not carry it), on the wire to
     * a real member: VALIDATE changes nothing and answers the cluster version for the minor right
     * below it, and refuses any other with etcd's own reason. (ENABLE and CANCEL go through raft
     * and are proved on real hosts, OnlineDowngradeIT.)
     */
    @Test
    @Order(5)
    void etcdsDowngradeValidateAnswersThroughTheHandWrittenCall() {
        io.etcdwright.engine.spec.Version v = io.etcdwright.engine.spec.Version.parse(version);
        String below = v.major() + "." + (v.minor() - 1);
        try (io.etcdwright.modules.backup.MemberRpc rpc = io.etcdwright.modules.backup.MemberRpc.connect(
                cluster.clientUrls().get(0), access.tls(), Duration.ofSeconds(10))) {
            assertTrue(rpc.downgrade(io.etcdwright.modules.backup.MemberRpc.DowngradeAction.VALIDATE, below)
                    .startsWith(v.major() + "." + v.minor()));
            io.grpc.StatusRuntimeException refused = assertThrows(io.grpc.StatusRuntimeException.class,
                    () -> rpc.downgrade(io.etcdwright.modules.backup.MemberRpc.DowngradeAction.VALIDATE, "2.0"));
            assertTrue(String.valueOf(refused.getStatus().getDescription()).contains("invalid downgrade target version"),
                    refused.getStatus().toString());
            // A 3.5 member's Status names neither a storage version nor a downgrade: not known, rather than none.
            io.etcd.jetcd.api.StatusResponse status = rpc.status();
            assertEquals(v.minor() >= 6, io.etcdwright.modules.backup.MemberRpc.reportsDowngrade(status));
            assertTrue(io.etcdwright.modules.backup.MemberRpc.downgradeTarget(status).isEmpty());
        }
    }

    @Test
    @Order(6)
    void enabledAuthenticationStopsAThreeFourToThreeFiveUpgradeOnly() throws Exception {
        try (Client client = client(access)) {
            client.getAuthClient().roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            client.getAuthClient().userAdd(bytes("root"), bytes("s3cret-for-this-test")).get(10, TimeUnit.SECONDS);
            client.getAuthClient().userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            client.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
        }
        ConditionNotMetException e = assertThrows(ConditionNotMetException.class,
                () -> preflight(rootAccess, Set.of(version), true).verify(new EtcdHttpTest.Notes()));
        assertTrue(e.getMessage().contains("authentication is enabled"), e.getMessage());
        preflight(rootAccess, Set.of(version), false).verify(new EtcdHttpTest.Notes());
    }

    private static void alarm(AlarmRequest.AlarmAction action) throws Exception {
        URI url = URI.create(cluster.clientUrls().get(0));
        ManagedChannel channel = NettyChannelBuilder.forAddress(url.getHost(), url.getPort())
                .sslContext(TlsMaterial.read(access.caCert(), access.clientCert(), access.clientKey()).clientContext()).build();
        try {
            MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).alarm(AlarmRequest.newBuilder()
                    .setAction(action).setAlarm(AlarmType.NOSPACE).setMemberID(memberId(channel)).build());
        } finally {
            channel.shutdownNow();
        }
    }

    private static long memberId(ManagedChannel channel) {
        return MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .status(io.etcd.jetcd.api.StatusRequest.getDefaultInstance()).getHeader().getMemberId();
    }

    private static Client client(Health.Access as) throws Exception {
        return Client.builder().endpoints(cluster.clientUrls().toArray(String[]::new))
                .sslContext(TlsMaterial.read(as.caCert(), as.clientCert(), as.clientKey()).clientContext()).build();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
