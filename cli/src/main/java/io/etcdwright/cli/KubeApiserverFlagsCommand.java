package io.etcdwright.cli;

import io.etcdwright.run.Layouts;
import io.etcdwright.run.Pkis;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Tls;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.KubeApiserverFlags;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The flags go into kube-apiserver's manifest (an item of its command list each), where quotes
 * would be taken literally: so they are printed bare, one per line, and a value that could
 * split a line into a second flag (a newline or other control character) is refused instead.
 */
@Command(name = "kube-apiserver-flags", description = {"Print the kube-apiserver flags that connect it to this cluster.",
        "One --flag=value per line, as kube-apiserver's manifest takes them (each an item of its command list:",
        "  - --etcd-servers=https://10.77.0.11:2379,...).",
        "Values are not shell-quoted: paste them into the manifest; do not eval this output.",
        "Paths are where the hosts named in the spec's clients.kube-apiserver hold its client certificate, in its layout",
        "(etcdwright: /etc/etcd/pki; kubeadm: /etc/kubernetes/pki, as kubeadm-config prints them); with no host named there,",
        "a warning says so (no host holds them: members do not by default);",
        "--workstation-paths prints the workstation's copies instead, to copy elsewhere.",
        "-o json prints the same flags as one JSON object (flag name without dashes -> value).",
        "Plan and apply show when they change (a member added, removed or replaced, a move to TLS, a CA rotation phase)",
        "and when to restart kube-apiserver with them."})
final class KubeApiserverFlagsCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = "--workstation-paths", description = "Print paths of the workstation's PKI directory.")
    boolean workstationPaths;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "text: one --flag=value per line; json: one object (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        // The same function makes both sides of the flag changes a plan shows, and kubeadm-config's document.
        Map<String, String> flags = flags(desired, workstationPaths, spec.commandLine().getErr(), input.spec.toString());
        PrintWriter out = spec.commandLine().getOut();
        out.print(output == OutputFormat.json ? Json.write(document(flags)) + "\n" : flagLines(flags));
        return Main.OK;
    }

    /**
     * kube-apiserver's flags for {@code desired}: its members' client URLs, and with TLS the files
     * at the paths of the spec's clients.kube-apiserver.layout on the hosts it names (or the
     * workstation's copies); what is worth a warning goes to {@code err}. What kube-apiserver-flags
     * and kubeadm-config print, so the two never disagree.
     */
    static Map<String, String> flags(DesiredState desired, boolean workstationPaths, PrintWriter err, String specFile) {
        var layout = Layouts.of(desired);
        Optional<KubeApiserverFlags.Files> files;
        if (desired.spec().tls().transport().clients() == Tls.Mode.PLAINTEXT) {
            // Plain HTTP: kube-apiserver needs no CA or client certificate (and would be told a lie by them).
            err.println("warning: tls.transport.clients is plaintext in " + specFile + ": kube-apiserver"
                    + " talks to etcd unauthenticated; set mutual-tls to move the cluster to TLS");
            files = Optional.empty();
        } else if (workstationPaths) {
            ClusterPki pki = Pkis.of(desired);
            ClusterPki.LocalPair pair = pki.clientPair(HostCertificates.APISERVER);
            files = Optional.of(new KubeApiserverFlags.Files(pki.trustedCaFile().toAbsolutePath().toString(),
                    pair.cert().toAbsolutePath().toString(), pair.key().toAbsolutePath().toString()));
        } else {
            KubeApiserverFlags.Files onHosts = KubeApiserverFlags.Files.onHosts(desired.spec().clients().kubeApiserverLayout());
            if (desired.clientHosts(ClientKeys.KUBE_APISERVER).isEmpty()) {
                err.println("warning: clients.kube-apiserver in " + specFile + " names no host, so no"
                        + " host holds " + onHosts.keyFile() + ": name the control plane's"
                        + " hosts there, or copy the workstation's (--workstation-paths)");
            }
            files = Optional.of(onHosts);
        }
        return KubeApiserverFlags.flags(Endpoints.clientUrls(desired.members(), layout), files);
    }

    /**
     * {@code -o json} (schemas/kube-apiserver-flags.schema.json): the format's {@code version}, and
     * the flags by name without dashes under {@code flags}, apart from it: a script turning every key
     * of {@code flags} into a flag can never pass {@code --version}, which makes kube-apiserver print
     * its version and exit.
     */
    static Map<String, Object> document(Map<String, String> flags) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.put("flags", flags);
        return doc;
    }

    /** {@code --name=value} lines; refuses a value that would not stay one line (one manifest item). */
    static String flagLines(Map<String, String> flags) {
        StringBuilder lines = new StringBuilder();
        flags.forEach((name, value) -> {
            if (value.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("--" + name + " would be '" + value.replaceAll("\\p{Cntrl}", "?")
                        + "': it contains a control character (a newline would start a second flag in the manifest);"
                        + " move the PKI directory to a plain path (tls.pki.dir or $ETCDWRIGHT_HOME)");
            }
            lines.append("--").append(name).append('=').append(value).append('\n');
        });
        return lines.toString();
    }
}
