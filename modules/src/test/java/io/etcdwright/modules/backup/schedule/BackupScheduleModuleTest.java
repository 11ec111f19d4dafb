package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupScheduleModuleTest {
    static final String DIRECTORY = """
            backup:
              stores:
                - name: local
                  type: directory
                  path: /var/backups/etcd
              schedule:
                intervalMinutes: 5
                store: local
            """;
    static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    static String s3(Path credentials) {
        return """
                backup:
                  stores:
                    - name: s3
                      type: s3
                      bucket: backups
                      endpoint: http://10.0.0.1:9000
                      pathStyle: true
                  schedule:
                    store: s3
                    credentialsFile: %s
                """.formatted(credentials);
    }

    static Optional<MemberModule.Change> plan(DesiredState desired, EtcdHostFacts facts) {
        ScheduleTarget.Resolved r = ScheduleTarget.resolve(desired);
        assertEquals(List.of(), r.refusals());
        return new BackupScheduleModule(r.target()).plan(ScheduleFixtures.member(desired, facts));
    }

    @Test
    void aBareHostGetsEverythingInOneStep(@TempDir Path dir) throws Exception {
        DesiredState desired = ScheduleFixtures.desired(dir, DIRECTORY);
        Step step = plan(desired, ScheduleFixtures.facts(Map.of(), "probed=1\n")).orElseThrow().step().does(ctx -> null);
        assertEquals(ChangeKind.CREATE, step.kind());
        assertEquals("not installed", step.reason());
        assertTrue(step.summary().contains("every 5 min to directory store 'local'"), step.summary());
        assertEquals(ScheduleLayout.CONF, step.diff().orElseThrow().path());
        assertTrue(step.diff().get().after().contains("STORE_PATH=/var/backups/etcd\n"), step.diff().get().after());
    }

    @Test
    void aConvergedHostHasNoStepAndADriftedFileIsNamed(@TempDir Path dir) throws Exception {
        DesiredState desired = ScheduleFixtures.desired(dir, DIRECTORY);
        MemberContext probe = ScheduleFixtures.member(desired, ScheduleFixtures.facts(Map.of(), "probed=1\n"));
        List<io.etcdwright.modules.timer.TimerJob.DesiredFile> files = BackupScheduleModule.desiredFiles(
                ScheduleTarget.resolve(desired).target().orElseThrow(), probe);
        Map<String, FileState> right = ScheduleFixtures.asDesired(files, 1);
        assertEquals(Optional.empty(), plan(desired, ScheduleFixtures.facts(right, ScheduleFixtures.RUNNING_TIMER)));

        Map<String, FileState> drifted = new java.util.LinkedHashMap<>(right);
        FileState conf = right.get(ScheduleLayout.CONF);
        drifted.put(ScheduleLayout.CONF, new FileState(conf.path(), true, conf.sha256(), "644", "root", "root", 1, Optional.empty()));
        Step step = plan(desired, ScheduleFixtures.facts(drifted, "probed=1\ntimer_UnitFileState=disabled\n"))
                .orElseThrow().step().does(ctx -> null);
        assertEquals(ChangeKind.UPDATE, step.kind());
        assertEquals("backup.conf differs, etcdwright-backup.timer not enabled", step.reason());
        assertTrue(plan(desired, ScheduleFixtures.facts(drifted, ScheduleFixtures.RUNNING_TIMER)).orElseThrow()
                .restartCause().isEmpty(), "a schedule change never restarts etcd");
    }

    @Test
    void theHostsCredentialsAreNeverShown(@TempDir Path dir) throws Exception {
        Path credentials = dir.resolve("s3.env");
        Files.writeString(credentials, "AWS_ACCESS_KEY_ID=AKIDEXAMPLE\nAWS_SECRET_ACCESS_KEY=" + SECRET + "\n");
        DesiredState desired = ScheduleFixtures.desired(dir, s3(credentials));
        Step step = plan(desired, ScheduleFixtures.facts(Map.of(), "probed=1\n")).orElseThrow().step().does(ctx -> null);
        String shown = step.line() + step.observed() + step.diff().map(d -> d.before() + d.after()).orElse("");
        assertFalse(shown.contains(SECRET), shown);
        List<io.etcdwright.modules.timer.TimerJob.DesiredFile> files = BackupScheduleModule.desiredFiles(
                ScheduleTarget.resolve(desired).target().orElseThrow(),
                ScheduleFixtures.member(desired, ScheduleFixtures.facts(Map.of(), "probed=1\n")));
        io.etcdwright.modules.timer.TimerJob.DesiredFile creds = files.stream()
                .filter(f -> f.file().path().equals(ScheduleLayout.CREDENTIALS)).findFirst().orElseThrow();
        assertTrue(creds.secret());
        assertEquals("0600", creds.file().mode());
        assertEquals("root", creds.file().owner());
        String conf = new String(files.stream().filter(f -> f.file().path().equals(ScheduleLayout.CONF)).findFirst()
                .orElseThrow().content());
        assertFalse(conf.contains(SECRET), "backup.conf holds no secret");
        assertTrue(conf.contains("S3_PREFIX=c1/\n"), "the prefix defaults to the cluster name: " + conf);
    }

    @Test
    void withoutAScheduleWhatWasInstalledIsRemoved(@TempDir Path dir) throws Exception {
        DesiredState desired = ScheduleFixtures.desired(dir, "");
        FileState conf = new FileState(ScheduleLayout.CONF, true, "x", "600", "root", "root", 1, Optional.empty());
        Step step = plan(desired, ScheduleFixtures.facts(Map.of(ScheduleLayout.CONF, conf), ScheduleFixtures.RUNNING_TIMER))
                .orElseThrow().step().does(ctx -> null);
        assertEquals(ChangeKind.DELETE, step.kind());
        assertEquals("the spec has no backup.schedule", step.reason());
        // A timer left enabled without files is removed too.
        assertTrue(plan(desired, ScheduleFixtures.facts(Map.of(), ScheduleFixtures.RUNNING_TIMER)).isPresent());
        // Nothing there: nothing to do; facts recorded before this probe: nothing known, nothing planned.
        assertEquals(Optional.empty(), plan(desired, ScheduleFixtures.facts(Map.of(), "probed=1\n")));
        assertEquals(Optional.empty(), plan(desired, ScheduleFixtures.facts(Map.of(ScheduleLayout.CONF, conf), "")));
    }

    @Test
    void aMissingToolIsARefusalNamingHostAndPackage(@TempDir Path dir) throws Exception {
        Path credentials = dir.resolve("s3.env");
        Files.writeString(credentials, "AWS_ACCESS_KEY_ID=a\nAWS_SECRET_ACCESS_KEY=b\n");
        DesiredState desired = ScheduleFixtures.desired(dir, s3(credentials));
        ScheduleTarget target = ScheduleTarget.resolve(desired).target().orElseThrow();
        List<Refusal> refusals = ScheduleTools.refusals(target, desired.members(),
                Map.of("h1", ScheduleFixtures.facts(Map.of(), "probed=1\ntool_bash=1\ntool_gzip=1\n")));
        assertEquals(1, refusals.size());
        assertEquals("h1", refusals.get(0).subject());
        assertTrue(refusals.get(0).what().contains("need curl"), refusals.get(0).what());
        assertTrue(refusals.get(0).whatToDo().contains("apt-get install curl"), refusals.get(0).whatToDo());
        assertEquals(List.of(), ScheduleTools.refusals(target, desired.members(),
                Map.of("h1", ScheduleFixtures.facts(Map.of(), ScheduleFixtures.RUNNING_TIMER))));
    }

    @Test
    void aRecipientThatIsNoCertificateIsRefusedBecauseOpensslCmsNeedsOne(@TempDir Path dir) throws Exception {
        java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        String pem = "-----BEGIN PUBLIC KEY-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes())
                .encodeToString(g.generateKeyPair().getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
        Files.writeString(dir.resolve("recipient.pem"), pem);
        DesiredState desired = ScheduleFixtures.desired(dir, DIRECTORY.replace("  schedule:",
                "  encryption:\n    recipients: [recipient.pem]\n  schedule:"));
        ScheduleTarget.Resolved r = ScheduleTarget.resolve(desired);
        assertTrue(r.target().isEmpty());
        assertEquals("backup-schedule-recipient", r.refusals().get(0).kind());
        assertTrue(r.refusals().get(0).what().contains("openssl cms"), r.refusals().get(0).what());
    }
}
