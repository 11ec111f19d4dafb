package io.etcdwright.modules.adopt;

import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads, over a host's SSH session and without changing anything there, how the host runs an
 * etcd that etcdwright did not set up: its systemd unit (file and drop-ins), the environment files
 * the unit names, the etcd binary's version and the CA its members trust. Files travel as base64,
 * one per line; nothing read is ever run.
 */
public final class ForeignHost {
    /** The unit every layout import knows runs etcd under (kubeadm's guides, etcdadm, distribution packages). */
    public static final String UNIT = "etcd.service";

    /** $1 the unit: where systemd loaded it from, its drop-ins and whether it runs. */
    private static final String SHOW_UNIT = "systemctl show -p LoadState -p FragmentPath -p DropInPaths -p ActiveState -- \"$1\"\n"
            + "echo \"Hostname=$(hostname)\"\n"
            + "[ -f /etc/kubernetes/manifests/etcd.yaml ] && echo StaticPod=1\n"
            + "true\n";

    /** Each argument a path: its content as base64 on one line, or that it is missing or unreadable. */
    private static final String READ_FILES = "for f do\n"
            + "  if [ -f \"$f\" ] && [ -r \"$f\" ]; then printf 'file=%s\\n' \"$f\"; base64 -w0 -- \"$f\"; echo;"
            + " else printf 'missing=%s\\n' \"$f\"; fi\n"
            + "done\n";

    private static final Pattern VERSION = Pattern.compile("etcd Version:\\s*(\\d+\\.\\d+\\.\\d+)");

    /** Candidate names of the CA key beside the CA certificate: kubeadm and etcdadm both use ca.key. */
    private static final List<String> CA_KEY_NAMES = List.of("ca.key");

    private final String host;
    private final HostSession session;

    public ForeignHost(String host, HostSession session) {
        this.host = host;
        this.session = session;
    }

    /** What the unit runs, its environment applied: the member as etcd sees its settings. */
    public record Reading(ForeignMember member, String caPem, String version, List<String> dropIns,
                          Optional<String> caKeyPath, Optional<String> clientCertPath) {
        public Reading(ForeignMember member, String caPem, String version, List<String> dropIns, Optional<String> caKeyPath) {
            this(member, caPem, version, dropIns, caKeyPath, Optional.empty());
        }

        /** The key beside {@link #clientCertPath()}: the same name, .key for .crt. */
        public Optional<String> clientKeyPath() {
            return clientCertPath.map(ForeignHost::keyOf);
        }
    }

    /**
     * Client certificates the layouts leave on a member, beside the CA unless absolute: kubeadm's
     * healthcheck client and the kube-apiserver's, etcdadm's etcdctl client. Trust-only, etcdwright
     * connects with one of them.
     */
    static final List<String> CLIENT_CERTS = List.of("healthcheck-client.crt", "etcdctl-etcd-client.crt",
            "/etc/kubernetes/pki/apiserver-etcd-client.crt");

    public static String keyOf(String cert) {
        return cert.substring(0, cert.length() - 4) + ".key";
    }

    public Reading read() {
        Map<String, String> show = new LinkedHashMap<>();
        CommandResult shown = session.run(new RemoteCommand.Script(SHOW_UNIT, List.of(UNIT))).orThrow(host);
        for (String line : shown.stdout().split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                show.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        if (!"loaded".equals(show.get("LoadState")) || show.getOrDefault("FragmentPath", "").isEmpty()) {
            throw new ClusterImport.Refused(List.of(host + ": no " + UNIT + " (LoadState " + show.getOrDefault("LoadState", "?")
                    + "): import reads members run by a systemd unit named " + UNIT
                    + (show.containsKey("StaticPod") ? "; etcd runs here as a kubelet static pod (/etc/kubernetes/manifests/etcd.yaml),"
                    + " which import does not take over" : "")));
        }
        if (!"active".equals(show.get("ActiveState"))) {
            throw new ClusterImport.Refused(List.of(host + ": " + UNIT + " is " + show.get("ActiveState")
                    + ": import reads a running cluster; start it (or leave the host out with --limit)"));
        }
        List<String> unitPaths = new ArrayList<>();
        unitPaths.add(show.get("FragmentPath"));
        List<String> dropIns = new ArrayList<>();
        for (String d : show.getOrDefault("DropInPaths", "").split(" ")) {
            if (!d.isBlank()) {
                dropIns.add(d);
                unitPaths.add(d);
            }
        }
        Map<String, String> unitTexts = readFiles(unitPaths);
        List<SystemdUnit.SourceText> sources = new ArrayList<>();
        for (String p : unitPaths) {
            String text = unitTexts.get(p);
            if (text == null) {
                throw new ClusterImport.Refused(List.of(host + ": cannot read " + p + " (the login user needs to read it; become: true?)"));
            }
            sources.add(new SystemdUnit.SourceText(host + ":" + p, text));
        }
        for (int i = 1; i < sources.size(); i++) {
            if (SystemdUnit.setsExecStart(sources.get(i))) {
                // It would replace etcdwright's ExecStart too: etcd would go on running the old command line.
                throw new ClusterImport.Refused(List.of(host + ": drop-in " + unitPaths.get(i) + " sets ExecStart, which would"
                        + " override etcdwright's unit as well: fold it into the unit (or remove it), then import"));
            }
        }
        SystemdUnit unit = SystemdUnit.parse(UNIT, Optional.ofNullable(show.get("Hostname")).filter(h -> !h.isEmpty()), sources);
        Map<String, String> env = new LinkedHashMap<>(unit.environment());
        List<String> envPaths = unit.environmentFiles().stream().map(SystemdUnit.EnvironmentFileRef::path).toList();
        Map<String, String> envTexts = envPaths.isEmpty() ? Map.of() : readFiles(envPaths);
        for (SystemdUnit.EnvironmentFileRef ref : unit.environmentFiles()) {
            String text = envTexts.get(ref.path());
            if (text == null) {
                if (ref.optional()) {
                    continue;
                }
                throw new ClusterImport.Refused(List.of(host + ": " + UNIT + " needs " + ref.path() + ", which cannot be read"));
            }
            // Later files and EnvironmentFile= over Environment=, as systemd applies them.
            env.putAll(EnvironmentFile.parse(host + ":" + ref.path(), text));
        }
        String program = unit.argv(env).get(0);
        List<String> argv = unit.argv(env);
        ForeignMember member = new ForeignMember(host, host + ":" + show.get("FragmentPath"), program,
                EtcdFlags.of(argv.subList(1, argv.size()), env, host + ":" + show.get("FragmentPath")));
        if (!member.unsupported().isEmpty()) {
            return new Reading(member, "", "", dropIns, Optional.empty());
        }
        if (member.trustedCaFile().isEmpty()) {
            // Plain HTTP on both sides: no CA to read (etcdwright makes its own for a later move to TLS).
            return new Reading(member, "", version(program), dropIns, Optional.empty());
        }
        String caPath = member.trustedCaFile().get();
        List<String> keyCandidates = new ArrayList<>();
        String caDir = caPath.contains("/") ? caPath.substring(0, caPath.lastIndexOf('/') + 1) : "";
        CA_KEY_NAMES.forEach(n -> keyCandidates.add(caDir + n));
        if (caPath.endsWith(".crt") || caPath.endsWith(".pem")) {
            String sibling = caPath.substring(0, caPath.length() - 4) + ".key";
            if (!keyCandidates.contains(sibling)) {
                keyCandidates.add(sibling);
            }
        }
        Map<String, String> ca = readFiles(List.of(caPath));
        if (!ca.containsKey(caPath)) {
            throw new ClusterImport.Refused(List.of(host + ": cannot read the trusted CA " + caPath));
        }
        Optional<String> keyPath = existing(keyCandidates);
        // The first client pair found whole (certificate and key), in CLIENT_CERTS' order.
        List<String> clientFiles = new ArrayList<>();
        for (String c : CLIENT_CERTS) {
            String cert = c.startsWith("/") ? c : caDir + c;
            clientFiles.add(cert);
            clientFiles.add(keyOf(cert));
        }
        List<String> present = existingAll(clientFiles);
        Optional<String> client = clientFiles.stream().filter(f -> f.endsWith(".crt") && present.contains(f)
                && present.contains(keyOf(f))).findFirst();
        return new Reading(member, ca.get(caPath), version(program), dropIns, keyPath, client);
    }

    /** The etcd binary's own word on its version. */
    private String version(String program) {
        CommandResult r = session.run(new RemoteCommand.Exec(List.of(program, "--version")));
        Matcher m = VERSION.matcher(r.stdout());
        if (!r.succeeded() || !m.find()) {
            throw new ClusterImport.Refused(List.of(host + ": '" + program + " --version' did not say an etcd version: "
                    + r.stderr().strip()));
        }
        return m.group(1);
    }

    /** Which of the paths exist as readable files (nothing of them is read). */
    private Optional<String> existing(List<String> paths) {
        return existingAll(paths).stream().findFirst();
    }

    private List<String> existingAll(List<String> paths) {
        CommandResult r = session.run(new RemoteCommand.Script("for f do [ -f \"$f\" ] && [ -r \"$f\" ] && printf '%s\\n' \"$f\"; done; true\n",
                paths)).orThrow(host);
        return r.stdout().lines().filter(paths::contains).toList();
    }

    /** A public file's text (a certificate): empty when it cannot be read. */
    public Optional<String> readPublic(String path) {
        return Optional.ofNullable(readFiles(List.of(path)).get(path));
    }

    /**
     * The CA key's PEM text. Read on its own, never through an error path that could print it:
     * a failure says only that it could not be read.
     */
    public String readSecret(String path) {
        CommandResult r = session.run(new RemoteCommand.Script(READ_FILES, List.of(path)));
        if (!r.succeeded()) {
            throw new ClusterImport.Refused(List.of(host + ": cannot read " + path + " (exit " + r.exitCode() + ")"));
        }
        Map<String, String> files = parseFiles(r.stdout());
        if (!files.containsKey(path)) {
            throw new ClusterImport.Refused(List.of(host + ": cannot read " + path));
        }
        return files.get(path);
    }

    private Map<String, String> readFiles(List<String> paths) {
        for (String p : paths) {
            if (!p.startsWith("/") || p.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new ClusterImport.Refused(List.of(host + ": '" + p + "' is not an absolute path without control characters"));
            }
        }
        CommandResult r = session.run(new RemoteCommand.Script(READ_FILES, paths)).orThrow(host);
        return parseFiles(r.stdout());
    }

    static Map<String, String> parseFiles(String out) {
        Map<String, String> files = new LinkedHashMap<>();
        String[] lines = out.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("file=") && i + 1 < lines.length) {
                files.put(lines[i].substring(5), new String(Base64.getDecoder().decode(lines[i + 1].strip()), StandardCharsets.UTF_8));
                i++;
            }
        }
        return files;
    }
}
