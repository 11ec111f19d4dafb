package io.etcdwright.modules.config;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.ServiceFacts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A config rewritten under a running member and then undone: the member is not restarted for a config
 * it already runs, told from the copy etcdwright keeps of the file the process started from.
 */
class RunningConfigTest {
    private static final long STARTED = 5_000_000;

    @TempDir
    Path dir;

    @Test
    void aRewriteUndoneBeforeItsRestartWritesTheFileBackWithoutARestart() throws Exception {
        DesiredState on35 = desired("3.5.16");
        String runs = ConfigFileModule.desired(member(on35, Map.of()));
        String newer = ConfigFileModule.desired(member(desired("3.6.16"), Map.of()));
        // The minor step wrote the 3.6 file after the start, keeping a copy of the 3.5 one first; then it was killed.
        MemberContext rolledBack = member(on35, files(file(EtcdLayout.CONFIG_FILE, newer, STARTED + 10),
                file(EtcdLayout.RUNNING_CONFIG_FILE, runs, STARTED + 9)));
        assertEquals(Optional.of(runs), RunningConfig.startedFrom(rolledBack.facts()));
        MemberModule.Change back = new ConfigFileModule().plan(rolledBack).orElseThrow();
        assertEquals(Optional.empty(), back.restartCause(), "etcd runs the 3.5 config already");
        assertTrue(back.step().does(back.operation()).reason().contains("written back without a restart"), back.step().does(back.operation()).reason());

        // Resumed forward instead: the copy is not what the plan leaves, so the member restarts.
        MemberContext resumed = member(desired("3.6.16"), rolledBack.facts().files());
        assertFalse(RunningConfig.startedFromDesired(resumed));
    }

    @Test
    void theCopySpeaksOnlyForTheProcessItWasMadeUnder() throws Exception {
        DesiredState on35 = desired("3.5.16");
        String runs = ConfigFileModule.desired(member(on35, Map.of()));
        // Made before this process started (an earlier life): stale, so the config written since is pending.
        MemberContext stale = member(on35, files(file(EtcdLayout.CONFIG_FILE, "other: 1\n", STARTED + 10),
                file(EtcdLayout.RUNNING_CONFIG_FILE, runs, STARTED - 1)));
        assertEquals(Optional.empty(), RunningConfig.startedFrom(stale.facts()));
        assertEquals(Optional.of("config changed"), new ConfigFileModule().plan(stale).orElseThrow().restartCause());
        // The file is older than the process: it is what runs, and the first rewrite keeps a copy of it.
        MemberContext fresh = member(on35, files(file(EtcdLayout.CONFIG_FILE, "other: 1\n", STARTED - 10)));
        assertTrue(RunningConfig.runsTheFileOnDisk(fresh.facts()));
        assertFalse(RunningConfig.runsTheFileOnDisk(stale.facts()), "rewritten since the start: the copy made then stays");
    }

    private DesiredState desired(String version) throws Exception {
        Files.writeString(dir.resolve("hosts.yaml"), """
                all:
                  children:
                    etcd:
                      hosts:
                        h1: {ansible_host: 10.0.0.11}
                """);
        Files.writeString(dir.resolve("spec-" + version + ".yaml"), """
                cluster:
                  name: c1
                members:
                  group: etcd
                etcd:
                  version: %s
                """.formatted(version));
        return DesiredStateLoader.load(dir.resolve("hosts.yaml"), dir.resolve("spec-" + version + ".yaml"));
    }

    private static FileState file(String path, String content, long modifiedMicros) {
        return new FileState(path, true, "digest-" + content.hashCode(), "644", "root", "root", modifiedMicros, Optional.of(content));
    }

    private static Map<String, FileState> files(FileState... files) {
        Map<String, FileState> byPath = new LinkedHashMap<>();
        for (FileState f : files) {
            byPath.put(f.path(), f);
        }
        return byPath;
    }

    private static MemberContext member(DesiredState desired, Map<String, FileState> files) {
        EtcdHostFacts facts = new EtcdHostFacts("h1", new SystemFacts("h1", "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), files, new ServiceFacts("active", true, 0, true, STARTED, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()));
        return new MemberContext(desired.members().get(0), facts, desired.spec(), EtcdLayout.DEFAULT,
                new MemberContext.Bootstrap(List.of(), false, "t"));
    }
}
