package io.etcdwright.modules.config;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import java.util.Optional;

/**
 * The config a running etcd started from. etcd reads its config file only at start, so once the file
 * is rewritten under a running member, the facts show the new file and not what the process runs. A
 * change stopped between writing a member's file and restarting it (an apply killed, a restart refused
 * for quorum) and then undone by the operator would restart that member for nothing: its process already
 * runs what the spec now says. The case that matters most is a minor upgrade killed between members and
 * rolled back, where the next member's file is already spelled for the newer release (its corruption
 * checks as feature gates) while it still runs the older one.
 *
 * <p>So the first time etcdwright rewrites the config under a process that started from the file on
 * disk, it copies that file to {@link EtcdLayout#RUNNING_CONFIG_FILE} first. The copy speaks for the
 * process only while it is newer than the process's start: the next restart makes it stale, and a file
 * written by anything that did not copy (a hand edit) counts as pending, as before.
 */
public final class RunningConfig {
    private RunningConfig() {
    }

    /** Whether the process started after the config file was last written: the file is what it runs, worth a copy. */
    public static boolean runsTheFileOnDisk(EtcdHostFacts f) {
        long started = f.service().startedMicros();
        FileState config = f.file(EtcdLayout.CONFIG_FILE);
        return f.service().running() && started > 0 && config.exists() && config.modifiedMicros() <= started;
    }

    /**
     * What the running process started from, when the file was rewritten since and the copy was
     * made during this process's life; empty when it cannot be told.
     */
    public static Optional<String> startedFrom(EtcdHostFacts f) {
        long started = f.service().startedMicros();
        FileState config = f.file(EtcdLayout.CONFIG_FILE);
        FileState copy = f.file(EtcdLayout.RUNNING_CONFIG_FILE);
        if (!f.service().running() || started <= 0 || !config.exists() || config.modifiedMicros() <= started
                || !copy.exists() || copy.modifiedMicros() < started) {
            return Optional.empty();
        }
        return copy.content();
    }

    /**
     * Whether the running process started from the config the spec renders for this member now
     * (its bootstrap settings aside, for a member with data: its WAL holds the membership).
     */
    public static boolean startedFromDesired(MemberContext member) {
        String want = ConfigFileModule.desired(member);
        return startedFrom(member.facts()).map(content -> ConfigFileModule.serves(member, content, want)).orElse(false);
    }
}
