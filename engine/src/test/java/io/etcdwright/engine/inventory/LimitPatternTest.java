package io.etcdwright.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LimitPatternTest {

    @TempDir
    Path dir;

    private Inventory inventory;

    @BeforeEach
    void load() {
        inventory = InventoryLoader.load(Fixtures.write(dir, "hosts.yaml", """
                all:
                  hosts:
                    "fd00::1":
                  children:
                    etcd:
                      hosts:
                        h1:
                        h2:
                        h3:
                    web:
                      hosts:
                        w1:
                        h3:
                """));
    }

    private List<String> limit(String pattern) {
        return inventory.limit(pattern).stream().map(InventoryHost::name).toList();
    }

    @Test
    void hostNamesSeparatedByCommasOrColons() {
        assertEquals(List.of("h1", "h3"), limit("h3,h1"));
        assertEquals(List.of("h1", "h3"), limit("h1:h3"));
        assertEquals(List.of("h1", "h3"), limit(" h1 , h3 "));
    }

    @Test
    void groupNames() {
        assertEquals(List.of("h1", "h2", "h3"), limit("etcd"));
        assertEquals(List.of("h1", "h2", "h3", "w1"), limit("etcd,web"));
        assertEquals(List.of("fd00::1", "h1", "h2", "h3", "w1"), limit("all"));
        assertEquals(List.of("fd00::1"), limit("ungrouped"));
    }

    @Test
    void globsMatchHostsAndGroups() {
        assertEquals(List.of("h1", "h2", "h3"), limit("h*"));
        assertEquals(List.of("h1", "h2", "h3"), limit("et?d"));
        assertEquals(List.of("fd00::1", "h1", "h2", "h3", "w1"), limit("*"));
    }

    @Test
    void exclusionsAndIntersections() {
        assertEquals(List.of("h1", "h3"), limit("etcd:!h2"));
        assertEquals(List.of("h1", "h2"), limit("etcd,!web"));
        assertEquals(List.of("h3"), limit("etcd:&web"));
        assertEquals(List.of("fd00::1", "h1", "h3", "w1"), limit("!h2"));
    }

    @Test
    void anIpv6HostNameIsNotSplitAtItsColons() {
        assertEquals(List.of("fd00::1"), limit("fd00::1"));
    }

    @Test
    void aTermThatMatchesNothingIsAnErrorEvenAfterBang() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> limit("etcd:!h4"));
        assertEquals(dir.resolve("hosts.yaml") + ":1:1: error: --limit: 'h4' matches no host or group"
                + " (hosts: fd00::1, h1, h2, h3, w1; groups: etcd, web)", e.problems().get(0).toString());
        assertThrows(InvalidInputException.class, () -> limit("x*"));
        assertThrows(InvalidInputException.class, () -> limit(" , "));
        assertThrows(InvalidInputException.class, () -> limit("~h[12]"));
    }
}
