package io.etcdwright.modules.membership;

import java.lang.management.ManagementFactory;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;

/**
 * One {@code status} in a fresh JVM, as {@code etcdwright status} will do it, printing how long it
 * took. Arguments: comma-separated endpoints, CA, client certificate, client key, timeout in ms.
 * The test runs it in a child JVM; by hand:
 * {@code java -cp "$(cat cp.txt)" io.etcdwright.modules.membership.StatusMain https://127.0.0.1:2379 ca.crt admin.crt admin.key 2000}
 */
public final class StatusMain {
    private StatusMain() {
    }

    public static void main(String[] args) {
        long t0 = System.nanoTime();
        ClusterStatus status;
        long connected;
        try (EtcdHttp client = EtcdHttp.connect(Arrays.asList(args[0].split(",")),
                Paths.get(args[1]), Paths.get(args[2]), Paths.get(args[3]),
                Duration.ofMillis(Long.parseLong(args[4])))) {
            connected = System.nanoTime();
            status = client.status();
        } catch (EtcdAdminException e) {
            System.out.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        long done = System.nanoTime();
        long sinceJvmStart = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        for (MemberStatus m : status.members()) {
            System.out.printf("member %s id=%s leader=%s learner=%s healthy=%s version=%s db=%s error=%s%n",
                    m.name(), m.id(), m.leader(), m.learner(), m.healthy(), m.version().orElse("-"),
                    m.dbSizeBytes().isPresent() ? m.dbSizeBytes().getAsLong() : "-", m.error().orElse("-"));
        }
        System.out.printf("cluster %s quorum=%s healthy=%d/%d%n", status.clusterId().orElse("-"), status.quorum(),
                status.healthyCount(), status.members().size());
        System.out.printf("timing connect=%d ms status=%d ms connect+status=%d ms jvm-start-to-status=%d ms%n",
                (connected - t0) / 1_000_000, (done - connected) / 1_000_000, (done - t0) / 1_000_000,
                sinceJvmStart);
    }
}
