package io.etcdwright.modules.service;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class EtcdUnitFileTest {
    @Test
    void runsTheVersionedBinaryAsTheEtcdUserWithNotify() {
        String unit = EtcdUnitFile.render("demo", "3.5.16");
        assertTrue(unit.contains("ExecStart=/opt/etcd/v3.5.16/etcd --config-file /etc/etcd/etcd.conf.yml"));
        assertTrue(unit.contains("Type=notify"));
        assertTrue(unit.contains("User=etcd"));
        assertTrue(unit.contains("Restart=on-failure"));
        assertTrue(unit.contains("WantedBy=multi-user.target"));
    }
}
