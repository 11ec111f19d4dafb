package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.KeyAlgorithm;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/** The workstation PKI of a cluster, as the desired state configures it. */
public final class Pkis {
    private Pkis() {
    }

    /**
     * The cluster's PKI on this workstation: a read-only runner's ({@link ReadOnlyRunner}), or the
     * PKI directory, refreshed first from the shared state when the spec names one, and written
     * back after each certificate issued or CA made (docs/state.md).
     */
    public static ClusterPki of(DesiredState desired) {
        java.util.Optional<ClusterPki> reader = ReadOnlyRunner.pki(desired);
        if (reader.isPresent()) {
            return reader.get();
        }
        SharedStates.refreshForRead(desired);
        Pki p = desired.spec().tls().pki();
        ClusterPki pki = of(desired, p.dir().orElse(EtcdwrightHome.pkiDir(desired.spec().name())), Clock.systemUTC());
        if (desired.spec().state().isPresent()) {
            pki.afterWrite(() -> SharedStates.writeBack(desired));
        }
        return pki;
    }

    /** In {@code dir}, judging expiry by {@code clock}: planner scenarios plan at the time facts were recorded. */
    public static ClusterPki of(DesiredState desired, Path dir, Clock clock) {
        Pki p = desired.spec().tls().pki();
        return new ClusterPki(new ClusterPki.Settings(desired.spec().name(), dir, p.caCert(), p.caKey(),
                KeyAlgorithm.fromName(p.keyAlgorithm()), Duration.ofDays(p.validityDays()),
                Duration.ofDays(p.renewBeforeDays()), Duration.ofDays(p.caValidityDays()), p.extraSans(), p.caGeneration()),
                clock);
    }
}
