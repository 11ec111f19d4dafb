package io.etcdwright.cli;

import io.etcdwright.run.Layouts;
import io.etcdwright.run.Pkis;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Tls;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.ssh.ShellQuoting;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.pki.ClusterPki;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The admin client's settings for etcdctl. Operators {@code eval} this output, so every value is
 * single-quoted for POSIX sh: an address or a path (the PKI directory is wherever
 * $ETCDWRIGHT_HOME or tls.pki.dir says) is data in the operator's shell, never code.
 */
@Command(name = "client-env", description = {
        "Print the ETCDCTL_* settings for etcdctl with the admin client certificate.",
        "One line each:",
        "  export ETCDCTL_ENDPOINTS='https://10.77.0.11:2379,...'",
        "Values are single-quoted for POSIX sh (by the same function that quotes commands run on hosts), so the output is safe to eval in sh and bash",
        "whatever the addresses and paths contain:",
        "  eval \"$(etcdwright client-env -i INVENTORY -f SPEC)\"",
        "-o json prints the same names and values as one JSON object, for scripts."})
final class ClientEnvCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "text: export lines for eval; json: one object of names and values (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ETCDCTL_API", "3");
        env.put("ETCDCTL_ENDPOINTS", String.join(",", Endpoints.clientUrls(desired.members(), Layouts.of(desired))));
        // tls.transport.clients plaintext: http:// endpoints, and no certificate etcdctl would offer for nothing.
        if (desired.spec().tls().transport().clients() == Tls.Mode.MUTUAL_TLS) {
            ClusterPki pki = Pkis.of(desired);
            // The admin's pair; a read-only runner's reader pair (etcd with authentication off serves it alike).
            ClusterPki.LocalPair admin = pki.accessPair();
            if (!Files.exists(admin.cert())) {
                throw new IllegalStateException("no admin certificate in " + pki.settings().dir()
                        + " yet: run 'etcdwright apply' first");
            }
            // During a CA rotation, the bundle of the old and the new CA: members serve either.
            env.put("ETCDCTL_CACERT", pki.trustedCaFile().toAbsolutePath().toString());
            env.put("ETCDCTL_CERT", admin.cert().toAbsolutePath().toString());
            env.put("ETCDCTL_KEY", admin.key().toAbsolutePath().toString());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(output == OutputFormat.json ? Json.write(document(env)) + "\n" : exportLines(env));
        return Main.OK;
    }

    /** {@code -o json} (schemas/client-env.schema.json): the format's {@code version}, then each variable by name. */
    static Map<String, Object> document(Map<String, String> env) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.putAll(env);
        return doc;
    }

    /** {@code export NAME='value'} lines, one per variable, each safe to eval in any POSIX shell. */
    static String exportLines(Map<String, String> env) {
        StringBuilder lines = new StringBuilder();
        env.forEach((name, value) -> lines.append("export ").append(name).append('=').append(ShellQuoting.word(value)).append('\n'));
        return lines.toString();
    }

}
