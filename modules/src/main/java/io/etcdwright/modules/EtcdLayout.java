package io.etcdwright.modules;

/**
 * Where etcdwright puts things on an etcd host. One place, so that install, config, service,
 * teardown and the probes can never disagree about a path.
 *
 * @param dataDir    the member's data directory (spec etcd.dataDir)
 * @param clientPort spec etcd.ports.client
 * @param peerPort   spec etcd.ports.peer
 * @param transport  what the members speak on those ports (spec tls.transport, or a stage of a move to TLS)
 */
public record EtcdLayout(String dataDir, int clientPort, int peerPort, io.etcdwright.modules.config.MemberTransport transport) {
    public static final String INSTALL_ROOT = "/opt/etcd";
    public static final String LINK_DIR = "/usr/local/bin";
    public static final String CONFIG_DIR = "/etc/etcd";
    public static final String CONFIG_FILE = CONFIG_DIR + "/etcd.conf.yml";
    /**
     * The config the running etcd started from, copied when etcdwright first rewrites the config under
     * it ({@link io.etcdwright.modules.config.RunningConfig}): what a rollback of a change stopped
     * before its restart compares with, so a member that never ran the change is not restarted for it.
     */
    public static final String RUNNING_CONFIG_FILE = CONFIG_DIR + "/etcd.conf.yml.running";
    public static final String PKI_DIR = CONFIG_DIR + "/pki";
    public static final String UNIT = "etcd.service";
    public static final String UNIT_FILE = "/etc/systemd/system/" + UNIT;
    public static final String USER = "etcd";
    public static final String[] TOOLS = {"etcd", "etcdctl", "etcdutl"};

    public static final EtcdLayout DEFAULT = new EtcdLayout("/var/lib/etcd", 2379, 2380);

    /** Mutual TLS on both ports. */
    public EtcdLayout(String dataDir, int clientPort, int peerPort) {
        this(dataDir, clientPort, peerPort, io.etcdwright.modules.config.MemberTransport.MUTUAL_TLS);
    }

    public EtcdLayout withTransport(io.etcdwright.modules.config.MemberTransport other) {
        return new EtcdLayout(dataDir, clientPort, peerPort, other);
    }

    public static String versionDir(String version) {
        return INSTALL_ROOT + "/v" + version;
    }

    public static String pkiFile(String name) {
        return PKI_DIR + "/" + name;
    }
}
