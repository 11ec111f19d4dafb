package io.etcdwright.cli;

import io.etcdwright.run.BackupStores;
import io.etcdwright.run.ReadOnlyRunner;
import io.etcdwright.run.SharedStates;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.modules.pki.CertificateInfo;
import io.etcdwright.modules.state.SharedState;
import io.etcdwright.modules.state.SharedTree;
import io.etcdwright.modules.state.StateHeader;
import io.etcdwright.modules.state.StoreLock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "state", description = {"The cluster's shared state (the spec's state:, docs/state.md): its PKI and records in an"
        + " encrypted store, this workstation's home a cache of it.",
        "push moves this workstation's copy into the store, pull fills this workstation's from it, show lists what is there."},
        subcommands = {StateCommand.Push.class, StateCommand.Pull.class, StateCommand.Show.class})
final class StateCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Main.ERROR;
    }

    /** The spec's state, opened; a spec without one is an operator mistake, said before anything is contacted. */
    static SharedState open(DesiredState desired) {
        if (desired.spec().state().isEmpty()) {
            throw new BackupStores.UsageProblem(desired.spec().file() + " has no state section: add state.store (for example"
                    + " {type: s3, bucket: etcd-state}) to say where the cluster's PKI is shared; docs/state.md");
        }
        return SharedStates.open(desired).orElseThrow();
    }

    /** The store's own lock around an explicit move: a run of another workstation is never moved over. */
    static StoreLock lock(DesiredState desired, SharedState state, String command, LockOptions locks, PrintWriter out) {
        return StoreLock.take(state.store(), desired.spec().name(), LockHolder.thisProcess(command, Instant.now()),
                locks.waitFor(), out::println);
    }

    static List<String> describe(List<SharedTree.Entry> files) {
        List<String> lines = new ArrayList<>();
        for (SharedTree.Entry e : files) {
            lines.add("  " + e.path() + "  " + what(e));
        }
        return lines;
    }

    /** What a file is, never what a secret says: a certificate's subject and expiry, or "secret (not shown)". */
    static String what(SharedTree.Entry e) {
        if (e.secret()) {
            return "secret, " + e.content().length + " bytes (not shown)";
        }
        String text = new String(e.content(), StandardCharsets.US_ASCII);
        if (text.contains("-----BEGIN CERTIFICATE-----")) {
            try {
                CertificateInfo c = CertificateInfo.parse(text, e.path());
                long more = text.split("-----BEGIN CERTIFICATE-----", -1).length - 2L;
                return "certificate " + c.subject() + ", expires " + c.notAfter() + (more > 0 ? " (and " + more + " more)" : "");
            } catch (RuntimeException notReadable) {
                return "certificate file, " + e.content().length + " bytes (not readable: " + notReadable.getMessage() + ")";
            }
        }
        return e.content().length + " bytes";
    }

    @Command(name = "push", description = {"Moves this workstation's PKI and records into the state store, and says what it moved.",
            "Into an empty store; over the version this workstation's copy is based on; over an older one (a store that went back);",
            "with --replace-store over one it has not seen (kept beside it in the store, never lost)."})
    static final class Push implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Mixin
        LockOptions locks;

        @Option(names = "--replace-store", description = "Overwrite a version in the store this workstation's copy is not based on"
                + " (that version is kept as NAME/replaced/serial-N... in the store).")
        boolean replaceStore;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            ReadOnlyRunner.refuse(desired, "state push");
            SharedState state = open(desired);
            try (StoreLock held = lock(desired, state, "state push", locks, out)) {
                SharedState.Pushed pushed = state.push(replaceStore);
                if (pushed.header().isEmpty()) {
                    out.println("Nothing to push: " + state.where() + " already holds this workstation's state of cluster "
                            + desired.spec().name() + " (" + pushed.files().size() + " files).");
                    return Main.OK;
                }
                out.println("Pushed cluster " + desired.spec().name() + "'s state to " + state.where() + ": "
                        + pushed.header().get().describe() + ", " + pushed.files().size() + " files, encrypted:");
                describe(pushed.files()).forEach(out::println);
                pushed.keptAs().ifPresent(k -> out.println("The version it replaced is kept as " + k + "."));
                out.println("This workstation's home is now a cache of it; other workstations: 'etcdwright state pull'"
                        + " (or any command, which reads it first).");
                return Main.OK;
            }
        }
    }

    @Command(name = "pull", description = {"Fills this workstation's cache from the state store: an empty home, or one the store is newer than.",
            "A copy holding changes of its own is kept unless --replace-local (it is then set aside, never deleted)."})
    static final class Pull implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Mixin
        LockOptions locks;

        @Option(names = "--replace-local", description = "Take the store's version even though this workstation's copy has"
                + " changes of its own (they are set aside in $ETCDWRIGHT_HOME/clusters/NAME/state-aside/).")
        boolean replaceLocal;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            SharedState state = open(desired);
            try (StoreLock held = lock(desired, state, "state pull", locks, out)) {
                SharedState.Pulled pulled = state.pull(replaceLocal);
                out.println("Pulled cluster " + desired.spec().name() + "'s state from " + state.where() + ": "
                        + pulled.header().describe() + ", " + pulled.files().size() + " files:");
                describe(pulled.files()).forEach(out::println);
                pulled.setAside().ifPresent(dir -> out.println("This workstation's own copy was set aside in " + dir + "."));
                return Main.OK;
            }
        }
    }

    @Command(name = "show", description = {"Show what the state store holds for the cluster, and how this workstation's cache stands.",
            "Its version, who wrote it and when, and (with the key) each file: a certificate's subject and expiry, never a secret."})
    static final class Show implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
        OutputFormat output;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            SharedState state = open(desired);
            SharedState.Shown shown = state.show();
            Optional<StoreLock.Held> lock = StoreLock.current(state.store(), desired.spec().name())
                    .map(v -> StoreLock.Held.parse(v.content()));
            if (output == OutputFormat.json) {
                out.println(Json.write(json(desired, state, shown, lock)));
            } else {
                text(desired, state, shown, lock).forEach(out::println);
            }
            return shown.unreadable().isPresent() ? Main.ERROR : Main.OK;
        }

        private static List<String> text(DesiredState desired, SharedState state, SharedState.Shown shown,
                                         Optional<StoreLock.Held> lock) {
            List<String> lines = new ArrayList<>();
            String cluster = desired.spec().name();
            if (shown.header().isEmpty()) {
                lines.add("state of cluster " + cluster + ": none in " + state.where() + " (the first apply creates it,"
                        + " or 'etcdwright state push' moves this workstation's there)");
            } else {
                StateHeader h = shown.header().get();
                lines.add("state of cluster " + cluster + " in " + state.where() + ": " + h.describe() + ", " + h.files() + " files");
                shown.content().ifPresent(c -> describe(List.copyOf(c.files().values())).forEach(lines::add));
                shown.unreadable().ifPresent(why -> lines.add("files not listed: " + why));
            }
            lock.ifPresent(l -> lines.add("lock: held by " + l.describe(Instant.now()) + l.expires().map(e -> ", expires " + e)
                    .orElse("")));
            lines.add(cacheLine(shown));
            lines.add("this workstation's keys: " + keys(state));
            return lines;
        }

        /** Which keys this workstation holds, by id only: compared with an error's ids without showing a key. */
        private static String keys(SharedState state) {
            var cipher = state.cipher();
            List<String> held = new ArrayList<>();
            cipher.sharedKey().ifPresent(k -> held.add(k.toString() + " (" + cipher.sharedKeySource() + ")"));
            cipher.privateKey().ifPresent(k -> held.add("a recipient's private key"));
            return held.isEmpty() ? "none (" + cipher.cannotRead().orElse("") + ")" : String.join("; ", held);
        }

        private static String cacheLine(SharedState.Shown shown) {
            if (shown.cache().isEmpty()) {
                return "this workstation: " + (shown.localChanges() ? "holds state that never came from the store" : "no copy yet");
            }
            var c = shown.cache().get();
            boolean current = shown.version().map(c.version()::equals).orElse(false);
            return "this workstation: a copy of serial " + c.serial() + (current ? " (the store's current version)"
                    : " (the store holds another version: the next command reads it)")
                    + (shown.localChanges() ? "; it holds changes not yet written to the store" : "");
        }

        private static Map<String, Object> json(DesiredState desired, SharedState state, SharedState.Shown shown,
                                                Optional<StoreLock.Held> lock) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("version", 1);
            doc.put("cluster", desired.spec().name());
            doc.put("store", state.where());
            doc.put("serial", shown.header().map(StateHeader::serial).orElse(null));
            doc.put("written_by", shown.header().map(StateHeader::writtenBy).orElse(null));
            doc.put("command", shown.header().map(StateHeader::command).orElse(null));
            doc.put("written_at", shown.header().map(h -> h.writtenAt().toString()).orElse(null));
            doc.put("files", shown.content().map(c -> c.files().values().stream().map(e -> {
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("path", e.path());
                f.put("secret", e.secret());
                f.put("what", what(e));
                return f;
            }).toList()).orElse(null));
            doc.put("unreadable", shown.unreadable().orElse(null));
            doc.put("lock", lock.map(l -> l.describe(Instant.now())).orElse(null));
            doc.put("cache_serial", shown.cache().map(c -> c.serial()).orElse(null));
            doc.put("cache_changes", shown.localChanges());
            return doc;
        }
    }
}
