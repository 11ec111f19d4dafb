package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kubeadm-config}'s document judged by kubeadm's own code, without test hosts: the checker
 * (integration/kubeadm-config, Go, k8s.io/kubernetes v1.37.2's kubeadm: strict decoding into
 * kubeadm.k8s.io/v1beta4, its scheme's conversion and defaults, ValidateClusterConfiguration)
 * accepts what etcdwright prints in each layout and over plain HTTP, and refuses a document broken
 * on purpose (a certFile without its keyFile, an unknown field, an older API version), so its
 * acceptance means something. Named *IT: built by integration/kubeadm-config/build (scripts/setup
 * builds it first, so this finds it cached), run with the integration tests.
 */
class KubeadmConfigIT {
    private static final Path BUILD = Testbed.ROOT.resolve("integration/kubeadm-config/build");
    private static Path checker;
    private static Path dir;

    @BeforeAll
    static void build() throws IOException {
        dir = Files.createDirectories(Testbed.ROOT.resolve("integration/target/kubeadm-config-it"));
        Testbed.Result built = Testbed.exec(List.of(BUILD.toString()));
        assertEquals(0, built.exitCode(), "cannot build the kubeadm configuration checker (" + BUILD + "): " + built.stderr());
        checker = Path.of(built.stdout().strip());
    }

    record Verdict(int exitCode, String output) {
    }

    static Verdict judge(String document) throws Exception {
        Process p = new ProcessBuilder(checker.toString()).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(document.getBytes(StandardCharsets.UTF_8));
        }
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the checker did not finish");
        return new Verdict(p.exitValue(), said);
    }

    private String kubeadmConfig(String extra) throws IOException {
        Path inventory = Files.writeString(dir.resolve("hosts.yaml"), "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n"
                + "    h2: {ansible_host: 192.0.2.12}\n    h3: {ansible_host: 192.0.2.13}\n    cp1: {ansible_host: 192.0.2.21}\n");
        Path spec = Files.writeString(dir.resolve("spec.yaml"), "cluster: {name: kubeadm-it}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1, h2, h3]}\n" + extra);
        Cli.Run run = Cli.run("kubeadm-config", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(0, run.exitCode(), run.err());
        return run.out();
    }

    @Test
    void kubeadmAcceptsWhatKubeadmConfigPrints() throws Exception {
        for (String extra : List.of("clients:\n  kube-apiserver: {hosts: [cp1], layout: kubeadm}\n",
                "clients:\n  kube-apiserver: {hosts: [cp1]}\n",
                "tls: {transport: {clients: plaintext, peers: plaintext}}\n")) {
            String document = kubeadmConfig(extra);
            Verdict v = judge(document);
            assertEquals(0, v.exitCode(), "kubeadm refused\n" + document + "\n" + v.output());
            assertTrue(v.output().startsWith("ok: etcd.external endpoints=" + (extra.contains("plaintext") ? "http" : "https")
                    + "://192.0.2.11:2379,"), v.output());
        }
        assertTrue(judge(kubeadmConfig("clients:\n  kube-apiserver: {hosts: [cp1], layout: kubeadm}\n")).output()
                .contains("caFile=/etc/kubernetes/pki/etcd/ca.crt certFile=/etc/kubernetes/pki/apiserver-etcd-client.crt"
                        + " keyFile=/etc/kubernetes/pki/apiserver-etcd-client.key"));
    }

    @Test
    void kubeadmRefusesADocumentBrokenOnPurpose() throws Exception {
        String good = kubeadmConfig("clients:\n  kube-apiserver: {hosts: [cp1], layout: kubeadm}\n");
        assertTrue(good.contains("    keyFile: /etc/kubernetes/pki/apiserver-etcd-client.key\n"), good);
        Verdict noKey = judge(good.replace("    keyFile: /etc/kubernetes/pki/apiserver-etcd-client.key\n", ""));
        assertEquals(1, noKey.exitCode(), noKey.output());
        assertTrue(noKey.output().contains("either both or none of .Etcd.External.CertFile and .Etcd.External.KeyFile must be set"),
                noKey.output());
        Verdict unknown = judge(good.replace("keyFile:", "keyfile:"));
        assertEquals(1, unknown.exitCode(), unknown.output());
        assertTrue(unknown.output().contains("unknown field \"etcd.external.keyfile\""), unknown.output());
        Verdict older = judge(good.replace("kubeadm.k8s.io/v1beta4", "kubeadm.k8s.io/v1beta3"));
        assertEquals(1, older.exitCode(), older.output());
        Verdict plainWithFiles = judge(good.replace("https://", "http://"));
        assertEquals(1, plainWithFiles.exitCode(), plainWithFiles.output());
        assertTrue(plainWithFiles.output().contains("the URL must be using the HTTPS scheme"), plainWithFiles.output());
    }
}
