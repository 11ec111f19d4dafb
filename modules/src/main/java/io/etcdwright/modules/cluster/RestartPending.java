package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.EtcdUnitFile;
import io.etcdwright.modules.pki.HostCertificates;

import java.util.ArrayList;
import java.util.List;

/**
 * Files etcd reads only at start (config, unit, CA; not its own certificate and key, which it
 * loads at each new TLS handshake) that changed after the running process started: an apply that
 * wrote them and was stopped before its restart (refused for quorum, interrupted, a failed
 * health check) leaves exactly this behind, and the files alone look converged. Without this
 * check the member would run the old config until someone restarted it by hand.
 */
final class RestartPending {
    private RestartPending() {
    }

    static List<String> causes(EtcdHostFacts f) {
        return causes(f, true);
    }

    /**
     * As above, for a member planned to run {@code member}'s release: the unit this plan leaves on disk
     * is that release's, so a member already running it (a rollback from a change an earlier apply left
     * half done) was started by it, however often the file was rewritten since.
     */
    static List<String> causes(io.etcdwright.modules.MemberContext member, boolean caFile) {
        List<String> causes = new ArrayList<>(causes(member.facts(), caFile));
        if (member.runsSpecVersion()) {
            causes.remove(UNIT_WRITTEN);
        }
        if (io.etcdwright.modules.config.RunningConfig.startedFromDesired(member)) {
            // Written after the start, and written back since: etcd runs the config this plan leaves on disk.
            causes.remove(CONFIG_WRITTEN);
        }
        return causes;
    }

    private static final String UNIT_WRITTEN = "unit written after etcd started";
    private static final String CONFIG_WRITTEN = "config written after etcd started";

    /** As above; without {@code caFile} a CA rotation under way restarts for its CA file itself, in its own phases. */
    static List<String> causes(EtcdHostFacts f, boolean caFile) {
        long started = f.service().startedMicros();
        List<String> causes = new ArrayList<>();
        if (started <= 0) {
            return causes;
        }
        if (newer(f.file(EtcdLayout.CONFIG_FILE), started)) {
            causes.add(CONFIG_WRITTEN);
        }
        if (newer(f.file(EtcdLayout.UNIT_FILE), started) && !runsWhatTheUnitSays(f)) {
            causes.add(UNIT_WRITTEN);
        }
        // Server and peer certificates and keys are not among them: etcd loads those again at each
        // new TLS handshake, so a renewed one is in use without a restart.
        if (caFile && newer(f.file(HostCertificates.certPath(HostCertificates.CA)), started)) {
            causes.add("CA certificate replaced after etcd started");
        }
        return causes;
    }

    /**
     * The unit names the versioned binary and nothing else that varies: a member reporting the release
     * the unit on disk runs is running what that unit starts, however often the file was rewritten since
     * (a rollback writes back the unit an interrupted change had moved on).
     */
    private static boolean runsWhatTheUnitSays(EtcdHostFacts f) {
        java.util.Optional<String> running = f.member().status().map(MemberFacts.LocalStatus::version);
        return running.isPresent() && f.file(EtcdLayout.UNIT_FILE).content().flatMap(EtcdUnitFile::renderedVersion)
                .filter(running.get()::equals).isPresent();
    }

    private static boolean newer(FileState file, long startedMicros) {
        return file.exists() && file.modifiedMicros() > startedMicros;
    }
}
