package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KeyAlgorithm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A runner that holds only what reading needs ({@code $ETCDWRIGHT_HOME/clusters/NAME/reader/}:
 * {@code ca.crt}, {@code reader.crt}, {@code reader.key}, as 'etcdwright certs issue-reader' writes
 * them) and no way to the CA key: no key for the state store, no CA key or admin certificate of its
 * own. plan, status and certs work there and say what they could not judge; every command that
 * would change the cluster or its PKI is refused before any host is contacted.
 */
public final class ReadOnlyRunner {
    public static final String CA = "ca.crt";
    public static final String CERT = "reader.crt";
    public static final String KEY = "reader.key";

    private ReadOnlyRunner() {
    }

    public static Path dir(String cluster) {
        return EtcdwrightHome.dir().resolve("clusters").resolve(cluster).resolve("reader");
    }

    /** The read-only PKI, when this is such a runner for {@code desired}'s cluster. */
    public static Optional<ClusterPki> pki(DesiredState desired) {
        String name = desired.spec().name();
        Path dir = dir(name);
        ClusterPki.LocalPair reader = new ClusterPki.LocalPair(dir.resolve(CERT), dir.resolve(KEY));
        if (!Files.isRegularFile(dir.resolve(CA)) || !Files.isRegularFile(reader.cert()) || !Files.isRegularFile(reader.key())) {
            return Optional.empty();
        }
        if (hasFullAccess(desired)) {
            return Optional.empty();
        }
        Pki p = desired.spec().tls().pki();
        return Optional.of(ClusterPki.readOnly(new ClusterPki.Settings(name, dir, Optional.of(dir.resolve(CA)), Optional.empty(),
                KeyAlgorithm.fromName(p.keyAlgorithm()), Duration.ofDays(p.validityDays()), Duration.ofDays(p.renewBeforeDays()),
                Duration.ofDays(p.caValidityDays()), p.extraSans(), p.caGeneration()), Clock.systemUTC(), reader));
    }

    /** Whether this workstation can reach the CA key: through the state store's key, or a PKI directory of its own. */
    private static boolean hasFullAccess(DesiredState desired) {
        if (desired.spec().state().isPresent()) {
            return StateCiphers.load(desired.spec().state().get().encryption()).cannotRead().isEmpty();
        }
        Pki p = desired.spec().tls().pki();
        if (p.caKey().isPresent()) {
            return true;
        }
        Path pki = p.dir().orElse(EtcdwrightHome.pkiDir(desired.spec().name()));
        return Files.exists(pki.resolve("ca.key")) || Files.exists(pki.resolve("clients").resolve(HostCertificates.ADMIN + ".key"));
    }

    /** Whether {@code desired}'s cluster is run read-only here. */
    public static boolean active(DesiredState desired) {
        return pki(desired).isPresent();
    }

    /**
     * Refuses {@code command} on a read-only runner, before any host is contacted: it would need
     * the CA key or the admin's certificate, which a runner holding only the reader's never has.
     */
    public static void refuse(DesiredState desired, String command) {
        if (active(desired)) {
            throw new IllegalStateException("refused: this is a read-only runner for cluster " + desired.spec().name()
                    + " (it holds the reader certificate in " + dir(desired.spec().name()) + " and no CA key: no key to the"
                    + " state store, no PKI directory of its own), and '" + command + "' changes the cluster or its PKI."
                    + " No host was contacted. Run it from a workstation that holds the PKI (or the state store's key);"
                    + " here, 'etcdwright plan', 'status' and 'certs' work");
        }
    }
}
