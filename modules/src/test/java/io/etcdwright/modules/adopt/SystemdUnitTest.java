package io.etcdwright.modules.adopt;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SystemdUnitTest {
    private static SystemdUnit parse(String... texts) {
        List<SystemdUnit.SourceText> files = new java.util.ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            files.add(new SystemdUnit.SourceText(i == 0 ? "/etc/systemd/system/etcd.service" : "/etc/systemd/system/etcd.service.d/"
                    + i + ".conf", texts[i]));
        }
        return SystemdUnit.parse("etcd.service", Optional.of("node-1"), files);
    }

    @Test
    void flagsAcrossContinuationLinesWithQuotesAndEscapesAreWordsAsSystemdSplitsThem() {
        SystemdUnit unit = parse("""
                [Unit]
                Description=etcd; ExecStart=/not/this
                [Service]
                Type=notify
                ExecStart=/usr/local/bin/etcd \\
                  --name=node-1 \\
                # a comment inside the continuation is skipped
                  --data-dir="/var/lib/etcd data" \\
                  --initial-cluster-token 'my token' \\
                  --log-outputs=a\\x2cb --empty="" "--quoted=x y"
                Restart=always
                """);
        assertEquals(List.of("/usr/local/bin/etcd", "--name=node-1", "--data-dir=/var/lib/etcd data", "--initial-cluster-token",
                "my token", "--log-outputs=a,b", "--empty=", "--quoted=x y"), unit.argv(Map.of()));
    }

    @Test
    void variablesExpandAsSystemdDoes() {
        SystemdUnit unit = parse("""
                [Service]
                Environment=DAEMON_ARGS= "ETCD_NAME=%H" X=1
                EnvironmentFile=-/etc/default/%p
                EnvironmentFile=/etc/etcd/etcd.env
                ExecStart=/usr/bin/etcd $DAEMON_ARGS --x=${X}y "--q=${X} z" $$literal
                """);
        assertEquals(Map.of("DAEMON_ARGS", "", "ETCD_NAME", "node-1", "X", "1"), unit.environment());
        assertEquals(List.of(new SystemdUnit.EnvironmentFileRef("/etc/default/etcd", true),
                new SystemdUnit.EnvironmentFileRef("/etc/etcd/etcd.env", false)), unit.environmentFiles());
        assertEquals(List.of("/usr/bin/etcd", "--heartbeat-interval=100", "--election-timeout=1000", "--x=2y", "--q=2 z",
                        "$literal"),
                unit.argv(Map.of("DAEMON_ARGS", "--heartbeat-interval=100  --election-timeout=1000", "X", "2")));
        assertEquals(List.of("/usr/bin/etcd", "--x=y", "--q= z", "$literal"), unit.argv(Map.of()));
    }

    @Test
    void aDropInReplacesExecStartAfterResettingItAndPrefixesAreDropped() {
        SystemdUnit unit = parse("[Service]\nExecStart=/usr/bin/etcd --old\n", "[Service]\nExecStart=\nExecStart=-/opt/bin/etcd --new\n");
        assertEquals(List.of("/opt/bin/etcd", "--new"), unit.argv(Map.of()));
        SystemdUnit noExpand = parse("[Service]\nExecStart=:/usr/bin/etcd $X\n");
        assertEquals(List.of("/usr/bin/etcd", "$X"), noExpand.argv(Map.of("X", "y")));
    }

    @Test
    void whatCannotBeReadSafelyIsRefusedWithFileAndLine() {
        UnitSyntaxException quote = assertThrows(UnitSyntaxException.class,
                () -> parse("[Service]\n\nExecStart=/usr/bin/etcd \"--name=x\n"));
        assertEquals("/etc/systemd/system/etcd.service:3: unterminated \" quote", quote.getMessage());
        UnitSyntaxException specifier = assertThrows(UnitSyntaxException.class, () -> parse("[Service]\nExecStart=/usr/bin/etcd --name=%i\n"));
        assertTrue(specifier.getMessage().contains(":2: specifier %i is not supported"), specifier.getMessage());
        UnitSyntaxException none = assertThrows(UnitSyntaxException.class, () -> parse("[Service]\nType=notify\n"));
        assertTrue(none.getMessage().contains("the unit has no ExecStart"), none.getMessage());
        UnitSyntaxException hostname = assertThrows(UnitSyntaxException.class, () -> SystemdUnit.parse("etcd.service",
                List.of(new SystemdUnit.SourceText("u", "[Service]\nEnvironment=ETCD_NAME=%H\nExecStart=/e\n"))));
        assertTrue(hostname.getMessage().contains("needs the host's name"), hostname.getMessage());
    }

    @Test
    void aDropInThatSetsExecStartIsTold() {
        assertTrue(SystemdUnit.setsExecStart(new SystemdUnit.SourceText("d", "[Service]\nExecStart=\nExecStart=/x\n")));
        assertTrue(!SystemdUnit.setsExecStart(new SystemdUnit.SourceText("d", "[Service]\nNice=-5\n[X]\nExecStart=/x\n")));
    }
}
