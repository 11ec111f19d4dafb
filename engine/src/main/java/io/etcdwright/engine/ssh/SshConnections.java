package io.etcdwright.engine.ssh;

import com.jcraft.jsch.AgentIdentityRepository;
import com.jcraft.jsch.AgentProxyException;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.SSHAgentConnector;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.UnixDomainSocketFactory;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SSH connections of one run: at most one per host, opened on first use, shared by every
 * step on that host, closed together at the end.
 */
public final class SshConnections implements AutoCloseable {
    private final SshOptions options;
    private final KnownHosts knownHosts;
    private final Map<String, HostSession> sessions = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private final Map<Optional<Path>, JSch> clientsByKey = new ConcurrentHashMap<>();

    static {
        SshAlgorithms.useBouncyCastleCurves();
    }

    public SshConnections(SshOptions options) {
        this.options = options;
        this.knownHosts = KnownHosts.read(options.knownHostsFile());
    }

    public SshOptions options() {
        return options;
    }

    /**
     * The open session to a host, connecting first if needed. Throws {@link SshException}. Steps
     * of one host that ask at the same moment wait for one connection instead of opening two;
     * other hosts are not held up.
     */
    public HostSession session(SshTarget target) {
        synchronized (locks.computeIfAbsent(target.name(), name -> new Object())) {
            HostSession existing = sessions.get(target.name());
            if (existing != null && existing.isConnected()) {
                return existing;
            }
            HostSession opened = connect(target);
            HostSession previous = sessions.put(target.name(), opened);
            if (previous != null) {
                previous.close();
            }
            return opened;
        }
    }

    private HostSession connect(SshTarget target) {
        KnownHosts.Repository hostKeys = knownHosts.repository(options.acceptNewHostKeys());
        Session session;
        try {
            session = client(target).getSession(target.user(), target.address(), target.port());
        } catch (JSchException e) {
            throw new SshException(target.name(), SshException.Reason.PROTOCOL, e.getMessage(), e);
        }
        session.setHostKeyRepository(hostKeys);
        session.setConfig("StrictHostKeyChecking", "yes");
        session.setConfig("PreferredAuthentications", "publickey");
        session.setConfig("cipher.c2s", preferredCiphers(session.getConfig("cipher.c2s")));
        session.setConfig("cipher.s2c", preferredCiphers(session.getConfig("cipher.s2c")));
        preferKnownKeyTypes(session, knownHosts.keyTypesFor(target.knownHostsName()));
        SshAlgorithms.skipAvailabilityChecks(session);
        try {
            // Keepalives notice a host that died mid-run in 15 s instead of hanging forever.
            session.setServerAliveInterval(5000);
            session.setServerAliveCountMax(3);
            session.connect((int) options.connectTimeout().toMillis());
        } catch (JSchException e) {
            throw explain(target, e, hostKeys);
        }
        return new HostSession(target, session, options.commandTimeout());
    }

    private static void preferKnownKeyTypes(Session session, Set<String> knownTypes) {
        if (knownTypes.isEmpty()) {
            return;
        }
        List<String> order = new ArrayList<>();
        for (String type : knownTypes) {
            if ("ssh-rsa".equals(type)) {
                order.add("rsa-sha2-512"); // same RSA key, modern signature
                order.add("rsa-sha2-256");
            }
            order.add(type);
        }
        for (String type : session.getConfig("server_host_key").split(",")) {
            if (!order.contains(type)) {
                order.add(type);
            }
        }
        session.setConfig("server_host_key", String.join(",", order));
    }

    /**
     * ChaCha20-Poly1305 first, then AES-GCM, then jsch's own list. Commands run in the JVM's quick
     * JIT tier (bin/etcdwright), where the JDK's AES-GCM computes GHASH in plain Java and sets its
     * cipher up again for every packet: a sixth of a no-op plan's Java samples. BouncyCastle's
     * ChaCha20-Poly1305 is plain arithmetic on ints: 40 MB to a host took 0.85 s of CPU against
     * 1.8 s with AES-GCM in that tier, and no more than AES-GCM under the full JIT (measured, see
     * docs/performance.md). A host that does not offer it (FIPS mode) gets AES-GCM.
     */
    static String preferredCiphers(String ciphers) {
        List<String> order = new ArrayList<>(List.of("chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com"));
        for (String c : ciphers.split(",")) {
            if (!order.contains(c)) {
                order.add(c);
            }
        }
        return String.join(",", order);
    }

    private JSch client(SshTarget target) {
        return clientsByKey.computeIfAbsent(target.privateKeyFile(), key -> {
            JSch jsch = new JSch();
            try {
                if (key.isPresent()) {
                    Path file = key.get();
                    if (!Files.isReadable(file)) {
                        throw new SshException(target.name(), SshException.Reason.AUTHENTICATION,
                                "private key " + file + " (ansible_ssh_private_key_file) cannot be read", null);
                    }
                    jsch.addIdentity(file.toString());
                } else if (System.getenv("SSH_AUTH_SOCK") != null) {
                    jsch.setIdentityRepository(new AgentIdentityRepository(
                            new SSHAgentConnector(new UnixDomainSocketFactory())));
                } else {
                    for (String name : List.of("id_ed25519", "id_ecdsa", "id_rsa")) {
                        Path candidate = Path.of(System.getProperty("user.home"), ".ssh", name);
                        if (Files.isReadable(candidate)) {
                            jsch.addIdentity(candidate.toString());
                        }
                    }
                }
            } catch (JSchException | AgentProxyException e) {
                throw new SshException(target.name(), SshException.Reason.AUTHENTICATION,
                        "cannot load SSH credentials: " + e.getMessage(), e);
            }
            return jsch;
        });
    }

    private SshException explain(SshTarget target, JSchException e, KnownHosts.Repository hostKeys) {
        KnownHosts.Verdict verdict = hostKeys.verdict();
        byte[] presented = hostKeys.presentedKey();
        String fp = presented == null ? "" : " (" + KnownHosts.keyType(presented) + " " + KnownHosts.fingerprint(presented) + ")";
        if (verdict == KnownHosts.Verdict.UNKNOWN) {
            return new SshException(target.name(), SshException.Reason.UNKNOWN_HOST_KEY,
                    "host key of " + target.knownHostsName() + fp + " is not in " + knownHosts.file()
                            + "; verify it and add it there, or pass --accept-new-host-keys to trust it on first use", e);
        }
        if (verdict == KnownHosts.Verdict.CHANGED || verdict == KnownHosts.Verdict.REVOKED) {
            return new SshException(target.name(), SshException.Reason.CHANGED_HOST_KEY,
                    "HOST KEY OF " + target.knownHostsName() + " HAS CHANGED" + fp + " from the one in "
                            + knownHosts.file() + ": refusing to connect. If the host was reinstalled, remove its old "
                            + "line (ssh-keygen -R " + target.knownHostsName() + " -f " + knownHosts.file()
                            + "); otherwise someone may be intercepting the connection", e);
        }
        Throwable cause = e.getCause();
        String msg = String.valueOf(e.getMessage());
        if (cause instanceof ConnectException || msg.contains("Connection refused")) {
            return new SshException(target.name(), SshException.Reason.UNREACHABLE,
                    "connection refused at " + target.address() + ":" + target.port() + " (is sshd running?)", e);
        }
        if (cause instanceof SocketTimeoutException || msg.contains("timeout") || msg.contains("timed out")) {
            return new SshException(target.name(), SshException.Reason.TIMEOUT,
                    "no answer from " + target.address() + ":" + target.port() + " within "
                            + options.connectTimeout().toSeconds() + " s", e);
        }
        if (cause instanceof NoRouteToHostException || cause instanceof UnknownHostException) {
            return new SshException(target.name(), SshException.Reason.UNREACHABLE,
                    "cannot reach " + target.address() + ":" + target.port() + " (" + cause.getMessage() + ")", e);
        }
        if (msg.contains("Auth fail") || msg.contains("USERAUTH fail")) {
            return new SshException(target.name(), SshException.Reason.AUTHENTICATION,
                    "authentication as " + target.user() + " was refused"
                            + target.privateKeyFile().map(k -> " with key " + k).orElse(""), e);
        }
        return new SshException(target.name(), SshException.Reason.UNREACHABLE,
                "SSH connection to " + target.address() + ":" + target.port() + " failed: " + msg, e);
    }

    @Override
    public void close() {
        sessions.values().forEach(HostSession::close);
        sessions.clear();
    }
}
