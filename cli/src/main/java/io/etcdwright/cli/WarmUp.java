package io.etcdwright.cli;

import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.ssh.SshAlgorithms;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.util.List;
import java.util.Set;

/**
 * Work a command is sure to do, begun on a second thread at start-up, while the main thread reads
 * the command line and the input files: compiling the JSON Schemas the input is checked against
 * (Jackson's start-up alone loads the JDK's locale data for its date formats, about 45 ms), reading
 * the version catalogue (about 60 ms), and, for commands that reach hosts, one run of the SSH handshake's cryptography
 * ({@link SshAlgorithms#warmUp}). Either would otherwise run cold on the main thread or on every
 * connection's at once. The process is short and the machine has a second core: a no-op plan of
 * five members is some 5% faster (docs/performance.md).
 *
 * <p>Nothing waits for this thread and nothing depends on it: the main thread compiles a schema
 * itself when it gets there first (the JVM and the schemas' map let one of them do it while the
 * other waits), and a daemon thread does not keep the process alive.
 */
final class WarmUp {
    /** Commands that open SSH connections (not with --facts, which plans offline). */
    private static final Set<String> REACH_HOSTS = Set.of("facts", "plan", "apply", "status", "certs", "backup", "backups",
            "restore", "defrag", "destroy", "import", "unlock");
    /** Commands that read no input file. */
    private static final Set<String> READ_NO_INPUT = Set.of("version", "completion", "help", "--help", "-h", "--version", "-V");

    private WarmUp() {
    }

    static void start(String[] args) {
        if (!readsInput(args)) {
            return;
        }
        boolean ssh = reachesHosts(args);
        Thread thread = new Thread(() -> {
            // In the order the main thread needs them: the inventory is read first, then the spec,
            // then the spec is checked against the catalogue.
            SchemaCheck.of(SchemaCheck.INVENTORY_SCHEMA);
            SchemaCheck.of(SchemaCheck.CLUSTER_SCHEMA);
            VersionCatalogue.builtIn();
            if (ssh) {
                SshAlgorithms.warmUp();
            }
        }, "etcdwright-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether the command reads an inventory or a spec (and so checks them against the schemas). */
    static boolean readsInput(String[] args) {
        return args.length > 0 && !READ_NO_INPUT.contains(args[0]) && !List.of(args).contains("--help");
    }

    /** Whether the command opens SSH connections. */
    static boolean reachesHosts(String[] args) {
        return readsInput(args) && REACH_HOSTS.contains(args[0])
                && List.of(args).stream().noneMatch(a -> a.equals("--facts") || a.startsWith("--facts="));
    }
}
