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

    @Test
    void aWordStaysBareExactlyWhenEachCharacterIsOneShReadsLiterally() {
        java.util.regex.Pattern plain = java.util.regex.Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");
        for (char c = 1; c < 0x300; c++) {
            String word = "a" + c + "9";
            boolean bare = Shell.quote(word).equals(word);
            assertEquals(plain.matcher(word).matches(), bare, "character U+" + Integer.toHexString(c));
        }
        assertEquals("'\u00e9t\u00e9'".translateEscapes(), Shell.quote("\u00e9t\u00e9".translateEscapes()));
    }
}
