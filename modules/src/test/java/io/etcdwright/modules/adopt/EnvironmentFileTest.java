package io.etcdwright.modules.adopt;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class EnvironmentFileTest {
    @Test
    void readsAssignmentsAsSystemdDoesNeverAsAShell() {
        Map<String, String> vars = EnvironmentFile.parse("/etc/default/etcd", """
                ## etcd(1) daemon options
                # ETCD_NAME="hostname"
                ; also a comment
                ETCD_NAME="node-1"
                  ETCD_DATA_DIR=/var/lib/etcd/default   \s
                ETCD_INITIAL_CLUSTER_TOKEN='Etcd $(touch /tmp/x) Cluster'
                export ETCD_LISTEN_PEER_URLS="https://10.0.0.1:2380"
                DAEMON_ARGS="--a=1 \\
                --b=\\"2\\""
                LONG=one\\
                two
                EMPTY=
                MIXED=a"b c"'d'
                """);
        Map<String, String> want = new LinkedHashMap<>();
        want.put("ETCD_NAME", "node-1");
        want.put("ETCD_DATA_DIR", "/var/lib/etcd/default");
        want.put("ETCD_INITIAL_CLUSTER_TOKEN", "Etcd $(touch /tmp/x) Cluster");
        want.put("ETCD_LISTEN_PEER_URLS", "https://10.0.0.1:2380");
        want.put("DAEMON_ARGS", "--a=1 --b=\"2\"");
        want.put("LONG", "onetwo");
        want.put("EMPTY", "");
        want.put("MIXED", "ab cd");
        assertEquals(want, vars);
    }

    @Test
    void badLinesAreRefusedWithTheirLine() {
        assertEquals("/etc/etcd/etcd.env:2: not a NAME=value line", assertThrows(UnitSyntaxException.class,
                () -> EnvironmentFile.parse("/etc/etcd/etcd.env", "A=1\njust words\n")).getMessage());
        assertEquals("/etc/etcd/etcd.env:3: unterminated \" quote", assertThrows(UnitSyntaxException.class,
                () -> EnvironmentFile.parse("/etc/etcd/etcd.env", "A=1\n\nB=\"open\n")).getMessage());
        assertEquals("/etc/etcd/etcd.env:1: '1A' is not a variable name", assertThrows(UnitSyntaxException.class,
                () -> EnvironmentFile.parse("/etc/etcd/etcd.env", "1A=x\n")).getMessage());
    }
}
