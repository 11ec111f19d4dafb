package io.etcdwright.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A command line etcdwright cannot parse: exit 1 and the help command to run, named as typed. */
class UsageErrorTest {
    private static String usageError(String... args) {
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(1, code, err.toString());
        return err.toString();
    }

    @Test
    void theHelpToRunNamesTheProgramOnceAndTheWholeCommand() {
        String top = usageError("--bogus");
        assertTrue(top.contains("Unknown option: '--bogus'"), top);
        assertTrue(top.contains("Run 'etcdwright --help' for usage."), top);
        assertTrue(usageError("plan", "--bogus").contains("Run 'etcdwright plan --help' for usage."));
        String nested = usageError("backups", "list", "--bogus");
        assertTrue(nested.contains("Run 'etcdwright backups list --help' for usage."), nested);
    }

    @Test
    void importsClientCertificateGoesWithItsKeyAndOnlyWithoutTheCaKey() {
        // Refused before the inventory is read (it does not exist here), so no host is contacted.
        String alone = usageError("import", "-i", "no-such-inventory.yaml", "--client-cert", "admin.crt");
        assertTrue(alone.contains("--client-cert and --client-key go together"), alone);
        String both = usageError("import", "-i", "no-such-inventory.yaml", "--client-cert", "admin.crt", "--client-key",
                "admin.key", "--ca-key", "ca.key");
        assertTrue(both.contains("--client-cert is for a trust-only import (no CA key)"), both);
    }
}
