package io.etcdwright.modules.adopt;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class EtcdFlagsTest {
    @Test
    void flagsInGoSyntaxOverTheEnvironment() {
        Map<String, String> settings = EtcdFlags.of(List.of("--name=a", "-data-dir", "/d", "--client-cert-auth",
                        "--peer-client-cert-auth=false", "--heartbeat-interval", "100"),
                Map.of("ETCD_NAME", "from-env", "ETCD_INITIAL_CLUSTER_TOKEN", "tok", "ETCDCTL_API", "3", "PATH", "/bin"), "unit");
        assertEquals(Map.of("name", "a", "data-dir", "/d", "client-cert-auth", "true", "peer-client-cert-auth", "false",
                "heartbeat-interval", "100", "initial-cluster-token", "tok"), settings);
    }

    @Test
    void argumentsAndFlagsWithoutValuesAreRefused() {
        assertEquals("unit: etcd takes flags only, got the argument 'serve'", assertThrows(UnitSyntaxException.class,
                () -> EtcdFlags.of(List.of("serve"), Map.of(), "unit")).getMessage());
        assertEquals("unit: flag --name has no value", assertThrows(UnitSyntaxException.class,
                () -> EtcdFlags.of(List.of("--name"), Map.of(), "unit")).getMessage());
    }
}
