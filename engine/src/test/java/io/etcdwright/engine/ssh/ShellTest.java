package io.etcdwright.engine.ssh;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ShellTest {
    @Test
    void quotesOnlyWhatNeedsIt() {
        assertEquals("/etc/etcd/etcd.conf.yml", Shell.quote("/etc/etcd/etcd.conf.yml"));
        assertEquals("''", Shell.quote(""));
        assertEquals("'a b'", Shell.quote("a b"));
        assertEquals("'it'\\''s; rm -rf /'", Shell.quote("it's; rm -rf /"));
        assertEquals("ls '$HOME'", Shell.join(List.of("ls", "$HOME")));
    }
}
