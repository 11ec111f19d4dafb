package io.etcdwright.watch;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The commands a person runs for a held step, spelled for this cluster's files: what a hold names.
 *
 * @param inventory     the inventory as the watcher was given it
 * @param spec          the spec file as the watcher was given it
 * @param newestBackup  the newest backup the stores hold, when the plan's quorum-lost refusal named one
 *                      (the loop has it from the same lookup the planner asked: RecoveryBackups)
 */
public record Commands(String inventory, String spec, Optional<Backup> newestBackup) {
    public Commands {
        Objects.requireNonNull(inventory, "inventory");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(newestBackup, "newestBackup");
    }

    public Commands(String inventory, String spec) {
        this(inventory, spec, Optional.empty());
    }

    /** A backup by its store and name, as 'etcdwright restore --from NAME --store STORE' takes it. */
    public record Backup(String store, String name) {
    }

    /** What a person runs to apply the plan now: every step, whatever its class. */
    public String apply() {
        return "etcdwright apply " + files();
    }

    /** What a person runs to let the watchers act again. */
    public String resume() {
        return "etcdwright watch resume " + files();
    }

    /** What a person runs to see the whole plan and its refusals. */
    public String plan() {
        return "etcdwright plan " + files();
    }

    /** The restore from the newest backup, or the plan (which names the ways out) when none is known. */
    public String restoreOrPlan() {
        return newestBackup.map(b -> "etcdwright restore " + files() + " --from " + quoted(b.name()) + " --store " + quoted(b.store()))
                .orElse(plan());
    }

    private String files() {
        return "-i " + quoted(inventory) + " -f " + quoted(spec);
    }

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:@%+=,-]+");

    /** As a POSIX shell reads it: plain words as they are, anything else quoted by the project's one quoting function. */
    static String quoted(String word) {
        return PLAIN.matcher(word).matches() ? word : io.etcdwright.engine.ssh.ShellQuoting.word(word);
    }
}
