package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that pass the schema but could never work (issue 39): each is refused at the field to
 * change, saying what is wrong, why it cannot work and what to write instead, before any host is
 * contacted.
 */
class UnworkableInputTest {

    private static final String INVENTORY = """
            all:
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 10.77.0.11}
                    h2: {ansible_host: 10.77.0.12, ansible_port: 2222}
                    h3: {ansible_host: 10.77.0.13}
            """;
    private static final String SPEC = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;
    private static final String SSH_CLASH = ": etcd cannot listen on the port sshd holds on the host, so the member would never start";

    @TempDir
    Path dir;

    private List<String> problems(String inventory, String spec) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(inventory, spec));
        return e.problems().stream().map(Problem::toString).map(line -> line.replace(dir + "/", "")).toList();
    }

    private DesiredState load(String inventory, String spec) {
        return DesiredStateLoader.load(Fixtures.write(dir, "hosts.yaml", inventory), Fixtures.write(dir, "demo.yaml", spec),
                SupportFloorRules.RULES);
    }

    @Test
    void aClientOrPeerPortThatIsAMembersSshPortIsRefusedInTheSpec() {
        assertEquals(List.of("demo.yaml:6:13: error: etcd.ports.client: port 2222 is the SSH port the inventory gives host h2"
                        + " (ansible_port at hosts.yaml:6:54)" + SSH_CLASH + "; choose another client port (etcd's default is 2379)"),
                problems(INVENTORY, SPEC + "  ports:\n    client: 2222\n"));
        // Two members' hosts with that SSH port: one error, naming both and where each port is written.
        assertEquals(List.of("demo.yaml:6:13: error: etcd.ports.client: port 2222 is the SSH port the inventory gives hosts h1"
                        + " (ansible_port at hosts.yaml:5:54), h2 (ansible_port at hosts.yaml:6:54)" + SSH_CLASH
                        + "; choose another client port (etcd's default is 2379)"),
                problems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, ansible_port: 2222}"),
                        SPEC + "  ports:\n    client: 2222\n"));
        // Port 22 of every other host is also privileged: that error says all there is to fix in the field.
        assertEquals(List.of("demo.yaml:7:11: error: etcd.ports.peer: port 22 is below 1024, which only root may listen on; etcd"
                        + " runs as the unprivileged etcd user, so it could not bind the port and the member would never start;"
                        + " choose a port from 1024 up (etcd's defaults: client 2379, peer 2380)"),
                problems(INVENTORY, SPEC + "  ports:\n    client: 2379\n    peer: 22\n"));
    }

    @Test
    void anSshPortThatIsEtcdsDefaultPortIsRefusedInTheInventory() {
        // The spec writes no port: the only place written is ansible_port, and the message says the spec's field.
        assertEquals(List.of("hosts.yaml:6:54: error: all.children.etcd.hosts.h2.ansible_port: SSH port 2380 of host h2 is"
                        + " etcd's peer port (etcd.ports.peer in demo.yaml, 2380 by default)" + SSH_CLASH
                        + "; set etcd.ports.peer to another port in the spec, or fix ansible_port if sshd listens on another port"),
                problems(INVENTORY.replace("2222", "2380"), SPEC));
        load(INVENTORY, SPEC);
    }

    @Test
    void aPrivilegedPortIsRefused() {
        assertEquals(List.of("demo.yaml:6:13: error: etcd.ports.client: port 443 is below 1024, which only root may listen on;"
                        + " etcd runs as the unprivileged etcd user, so it could not bind the port and the member would never start;"
                        + " choose a port from 1024 up (etcd's defaults: client 2379, peer 2380)"),
                problems(INVENTORY, SPEC + "  ports:\n    client: 443\n"));
        load(INVENTORY, SPEC + "  ports:\n    client: 1024\n    peer: 1025\n    metrics: 2381\n");
    }

    @Test
    void unsafeNoFsyncIsRefusedUnlessFalse() {
        assertEquals(List.of("demo.yaml:6:22: error: etcd.settings.unsafe-no-fsync: must be false, got true: with fsync off,"
                        + " etcd acknowledges writes before they are on disk, so a power failure or a crash of the host loses"
                        + " writes that clients were told are saved (and can leave the members disagreeing); etcd offers it for"
                        + " tests only. Remove the setting (false is etcd's default)"),
                problems(INVENTORY, SPEC + "  settings:\n    unsafe-no-fsync: true\n"));
        load(INVENTORY, SPEC + "  settings:\n    unsafe-no-fsync: false\n");
    }

    @Test
    void aVersionWithLeadingZerosIsRefusedWithItsCanonicalForm() {
        for (String written : List.of("3.05.16", "03.5.16", "3.5.016")) {
            assertEquals(List.of("demo.yaml:4:12: error: etcd.version: has a leading zero: etcd names its releases without them,"
                            + " so \"" + written + "\" matches no download and never the version the members report; write 3.5.16"),
                    problems(INVENTORY, SPEC.replace("3.5.16", "\"" + written + "\"")), written);
        }
    }

    @Test
    void aCaCertificateFileThatIsNotAPemCertificateIsRefusedAtItsField() {
        String spec = SPEC + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n      key: my-ca.key\n";
        Fixtures.write(dir, "my-ca.key", "-----BEGIN PRIVATE KEY-----\n");
        String expected = "; etcd and etcdwright read it as PEM, one or more blocks starting '-----BEGIN CERTIFICATE-----'";

        Fixtures.write(dir, "my-ca.crt", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n");
        assertEquals(List.of("demo.yaml:8:13: error: tls.pki.ca.cert: CA certificate \"my-ca.crt\" holds a private key, not a"
                + " certificate (are the certificate and key paths swapped?)" + expected), problems(INVENTORY, spec));

        String pem = Fixtures.CA_CERTIFICATE;
        String base64 = pem.substring(pem.indexOf('\n') + 1, pem.indexOf("-----END"));
        Fixtures.write(dir, "my-ca.crt", new String(Base64.getMimeDecoder().decode(base64), java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals(List.of("demo.yaml:8:13: error: tls.pki.ca.cert: CA certificate \"my-ca.crt\" is binary (DER, it seems),"
                + " not PEM" + expected + "; convert it with openssl x509 -inform der -in my-ca.crt -out ca.pem"),
                problems(INVENTORY, spec));

        Fixtures.write(dir, "my-ca.crt", "not a certificate\n");
        assertEquals(List.of("demo.yaml:8:13: error: tls.pki.ca.cert: CA certificate \"my-ca.crt\" holds no certificate" + expected),
                problems(INVENTORY, spec));

        Fixtures.write(dir, "my-ca.crt", pem.substring(0, pem.indexOf("-----END")));
        assertEquals(List.of("demo.yaml:8:13: error: tls.pki.ca.cert: CA certificate \"my-ca.crt\": certificate 1 has no"
                + " '-----END CERTIFICATE-----' line (a truncated copy?)"), problems(INVENTORY, spec));

        Fixtures.write(dir, "my-ca.crt", pem + pem.replace("MIIBhzCCAS2gAwIBAgIQ", "MIIBhzCCAS2gAwIBAgIU"));
        assertEquals(List.of("demo.yaml:8:13: error: tls.pki.ca.cert: CA certificate \"my-ca.crt\": certificate 2 is damaged:"
                + " its block is not a valid X.509 certificate (cut short or altered); copy the file again from where the CA"
                + " was made"), problems(INVENTORY, spec));

        Fixtures.write(dir, "my-ca.crt", "# the CA of cluster demo\n" + pem + pem);
        load(INVENTORY, spec);
    }

    /**
     * automation: never steps are only ever a person's, and a window whose schedule does not parse
     * would never open; both pass the schema (never is a class, the schedule a string).
     */
    @Test
    void neverAllowedAndAWindowCronThatDoesNotParseAreRefused() {
        assertEquals(List.of("demo.yaml:6:11: error: automation.allow[0]: never cannot be allowed: its steps (a restore, a minor"
                        + " downgrade, a teardown) run only when a person applies them; allow routine, repair or change"),
                problems(INVENTORY, SPEC + "automation:\n  allow: [never]\n"));
        List<String> cron = problems(INVENTORY, SPEC + "automation:\n  windows:\n    - {kind: allow, schedule: \"every friday\","
                + " durationMinutes: 60}\n");
        assertEquals(1, cron.size(), cron.toString());
        org.junit.jupiter.api.Assertions.assertTrue(cron.get(0).startsWith("demo.yaml:7:31: error: automation.windows[0].schedule:"
                + " is not a cron expression of five fields"), cron.get(0));
        load(INVENTORY, SPEC + "automation:\n  allow: [routine]\n  windows:\n    - {kind: allow, schedule: \"0 2 * * 1-5\","
                + " durationMinutes: 60}\n");
    }
}
