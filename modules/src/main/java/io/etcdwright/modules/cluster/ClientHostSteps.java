package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.pki.CertificateVerdict;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClientHostFiles;
import io.etcdwright.modules.pki.ClientHostsRecord;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The hosts that hold client pairs without running a member (a control plane beside an external
 * etcd): each named host gets the CA file and the pairs of the clients the spec names it for;
 * a host the spec stops naming (recorded in {@link ClientHostsRecord} when it was given them) has
 * them removed; a recorded host gone from the inventory is named in a note with what to remove
 * there. Nothing here restarts anything: the client there (kube-apiserver) reads its files itself,
 * its CA file only at start.
 */
final class ClientHostSteps {
    /** What the step says of the client on the host: it must be restarted to read a new CA file. */
    static final String CLIENT_RESTART = "the client there (kube-apiserver) reads its CA file only at start: restart it"
            + " after this apply when ca.crt changed";

    private final DesiredState desired;
    private final ClusterPki pki;
    private final ClientHostFacts facts;
    private final List<Step> steps;

    ClientHostSteps(DesiredState desired, ClusterPki pki, ClientHostFacts facts, List<Step> steps) {
        this.desired = desired;
        this.pki = pki;
        this.facts = facts;
        this.steps = steps;
    }

    /** Hosts named for a client that could not be asked: nothing is known of their files, so nothing is planned there. */
    List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        facts.unreachable().forEach((host, why) -> warnings.add("client host " + host + " could not be reached (" + why
                + "): its client files are neither checked nor changed by this apply; apply again once it answers"));
        for (InventoryHost h : desired.clientOnlyHosts()) {
            if (!facts.files().containsKey(h.name()) && !facts.unreachable().containsKey(h.name())) {
                warnings.add("client host " + h.name() + " was not asked (no facts of it were gathered or recorded): its client"
                        + " files are neither checked nor changed by this plan");
            }
        }
        return warnings;
    }

    /**
     * The files of each named host brought to the workstation's, after {@code after}: the CA file
     * {@code caFile}, the clients it is named for, and the removal of a client pair it is no longer
     * named for. {@code due} adds a reason a host's copy must be replaced although it equals the
     * workstation's at plan time (a client certificate an earlier step of the apply issues again).
     */
    List<Step> deliver(List<Step> after, Path caFile, String summary, String note, java.util.function.BiFunction<Set<String>, Map<String, FileState>, List<String>> due) {
        List<Step> delivered = new ArrayList<>();
        ClientHostsRecord record = pki.clientHosts();
        for (InventoryHost h : desired.clientOnlyHosts()) {
            String host = h.name();
            Map<String, FileState> files = facts.files().get(host);
            if (files == null) {
                continue; // unreachable or not asked: warned about
            }
            Set<String> roles = HostCertificates.clientRoles(desired, host);
            ClientKeys.Layout layout = desired.spec().clients().kubeApiserverLayout();
            List<String> reasons = new ArrayList<>(ClientHostFiles.differences(pki, roles, caFile, layout, files));
            reasons.addAll(due.apply(roles, files));
            List<String> surplus = ClientHostFiles.surplus(pki, roles, layout, files);
            surplus.forEach(p -> reasons.add(ClientHostFiles.shown(p) + " no longer named for " + host));
            if (reasons.isEmpty()) {
                continue;
            }
            List<String> unique = List.copyOf(new LinkedHashSet<>(reasons));
            boolean any = files.values().stream().anyMatch(FileState::exists);
            // Copies that differ from the workstation's (a renewal handed on, a hand edit) or in mode: routine.
            // A file missing (the spec's clients names the host anew, or it was removed) or one no longer named: the
            // facts cannot tell a spec edit from a host's, so a change.
            List<String> paths = ClientHostFiles.paths(pki, roles, layout);
            boolean missing = paths.stream().anyMatch(p -> !files.containsKey(p) || !files.get(p).exists());
            Step step = Step.on(host, "pki", "client-files").kind(any ? ChangeKind.UPDATE : ChangeKind.CREATE)
                    .safety(missing || !surplus.isEmpty() ? io.etcdwright.engine.plan.SafetyClass.CHANGE : io.etcdwright.engine.plan.SafetyClass.ROUTINE)
                    .summary(summary + " for " + host + " (" + String.join(", ", roles)
                            + (layout == ClientKeys.Layout.KUBEADM && roles.contains(HostCertificates.APISERVER)
                            ? " at kubeadm's paths" : "") + "; runs no member)")
                    .reason(String.join("; ", unique) + "; " + note)
                    .observed(digest(files))
                    .after(after)
                    .does(ctx -> {
                        // Recorded first: an apply killed after the files went out still knows to remove them later.
                        boolean changed = record.add(host);
                        changed |= ClientHostFiles.land(ctx.session(), pki, roles, caFile, layout, files);
                        if (!surplus.isEmpty()) {
                            changed |= ClientHostFiles.remove(ctx.session(), surplus);
                        }
                        return changed ? Outcome.CHANGED : Outcome.OK;
                    });
            steps.add(step);
            delivered.add(step);
        }
        return delivered;
    }

    /** {@link #deliver} outside a CA rotation: the CA file, and the client pairs as the workstation issues them. */
    List<Step> deliver(List<Step> after) {
        return deliver(after, pki.caCertFile(), "client certificates", CLIENT_RESTART, (roles, files) -> {
            // A pair the workstation issues again in this apply (new, due for renewal) goes out again.
            List<String> due = new ArrayList<>();
            for (String role : roles) {
                if (pki.verdict(pki.clientPair(role), pki.clientRequest(role)) instanceof CertificateVerdict.Reissue r) {
                    due.add(role + ": " + r.reason());
                }
            }
            return due;
        });
    }

    /**
     * Hosts given client files that the spec no longer names and that run no member: the files
     * removed where the host is still in the inventory, the host named in a note where it is not.
     */
    List<Step> remove(List<Step> after) {
        List<Step> removed = new ArrayList<>();
        ClientHostsRecord record = pki.clientHosts();
        Set<String> named = new LinkedHashSet<>();
        desired.clientOnlyHosts().forEach(h -> named.add(h.name()));
        Set<String> memberHosts = new LinkedHashSet<>();
        desired.members().forEach(m -> memberHosts.add(m.host().name()));
        List<String> gone = new ArrayList<>();
        for (String host : record.hosts()) {
            if (named.contains(host) || memberHosts.contains(host)) {
                continue;
            }
            if (!desired.inventory().hosts().containsKey(host)) {
                gone.add(host);
                continue;
            }
            Map<String, FileState> files = facts.files().get(host);
            if (files == null) {
                continue; // unreachable: warned about
            }
            List<String> surplus = ClientHostFiles.surplus(pki, Set.of(), desired.spec().clients().kubeApiserverLayout(), files);
            Step step = Step.on(host, "pki", "client-keys").kind(ChangeKind.DELETE).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                    .summary(surplus.isEmpty() ? "forget " + host + " as a client host (it holds no client files)"
                            : "remove " + String.join(", ", surplus))
                    .reason("clients does not name " + host + " any more and it runs no member: client keys stay on the"
                            + " workstation unless the spec names the host; no restart")
                    .observed(String.join(" ", surplus))
                    .after(after)
                    .does(ctx -> {
                        boolean changed = !surplus.isEmpty() && ClientHostFiles.remove(ctx.session(), surplus);
                        // Struck off only once the files are gone: an apply killed before finds the host again.
                        changed |= record.remove(host);
                        return changed ? Outcome.CHANGED : Outcome.OK;
                    });
            steps.add(step);
            removed.add(step);
        }
        if (!gone.isEmpty()) {
            String paths = ClientHostFiles.removalAdvice();
            Step forget = Step.cluster("pki", "client-hosts-gone").kind(ChangeKind.DELETE).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                    .summary("forget client host" + (gone.size() == 1 ? " " : "s ") + String.join(", ", gone)
                            + " (no longer in the inventory)")
                    .reason("given client files by an earlier apply, now in no inventory, so not reachable from here: run"
                            + " " + paths + " there yourself if the host still exists")
                    .observed(String.join(" ", gone))
                    .after(after)
                    .does(ctx -> {
                        boolean changed = false;
                        for (String host : gone) {
                            ctx.note(host + ": run " + paths + " there (it is not in the inventory)");
                            changed |= record.remove(host);
                        }
                        return changed ? Outcome.CHANGED : Outcome.OK;
                    });
            steps.add(forget);
            removed.add(forget);
        }
        return removed;
    }

    private static String digest(Map<String, FileState> files) {
        StringBuilder s = new StringBuilder();
        files.forEach((path, f) -> s.append(path).append('=').append(f.sha256()).append(' ').append(f.mode()).append(';'));
        return s.toString();
    }
}
