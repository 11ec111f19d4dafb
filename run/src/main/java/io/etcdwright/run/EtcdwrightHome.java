package io.etcdwright.run;

import java.nio.file.Path;

/** The workstation's state: PKI directories and the release cache ($ETCDWRIGHT_HOME, default ~/.etcdwright). */
public final class EtcdwrightHome {
    private EtcdwrightHome() {
    }

    public static Path dir() {
        // The property lets one JVM (the integration tests) point runs at separate homes.
        String env = System.getProperty("etcdwright.home", System.getenv("ETCDWRIGHT_HOME"));
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".etcdwright");
    }

    public static Path releaseCache() {
        return dir().resolve("cache").resolve("releases");
    }

    /** Snapshots taken before risky changes (membership, minor upgrades): every key of the cluster, 0600 files. */
    public static Path snapshotDir(String clusterName) {
        return dir().resolve("clusters").resolve(clusterName).resolve("snapshots");
    }

    /** Removed members' hosts whose etcd an interrupted apply left to stop. */
    public static Path removedHostsDir(String clusterName) {
        return dir().resolve("clusters").resolve(clusterName).resolve("removed-hosts");
    }

    public static Path pkiDir(String clusterName) {
        return dir().resolve("clusters").resolve(clusterName).resolve("pki");
    }

    /** The workstation's side of the cluster's lock (a POSIX lock on this file; see ClusterLocks). */
    public static Path lockFile(String clusterName) {
        return dir().resolve("clusters").resolve(clusterName).resolve("lock");
    }
}
