package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.pki.CaRotationFiles;
import io.etcdwright.modules.pki.CaRotationFiles.Phase;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KubeadmPaths;
import io.etcdwright.modules.pki.PkiSteps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A CA rotation without downtime, in three phases, each done on every member before the next
 * starts (etcd reads its CA files only at start, its own certificate at each new handshake):
 * <ol>
 * <li><b>trust both</b>: each member's ca.crt becomes the bundle of the old and the new CA, and the
 *     members restart one at a time ({@link RollingRestart}: the others healthy first, the member
 *     healthy and a write committed through it after);</li>
 * <li><b>reissue</b>: once every member accepts a client of the new CA, the workstation's client
 *     certificates and then each member's server, peer and healthcheck certificates are issued from
 *     the new CA with the same names and swapped in place, with no restart; each member is then
 *     seen serving the new certificate;</li>
 * <li><b>drop the old CA</b>: once every member serves certificates of the new CA on its client and
 *     peer URLs, each ca.crt becomes the new CA alone, with a second rolling restart; the rotation
 *     ends when every member refuses the old CA's admin certificate.</li>
 * </ol>
 * Each apply does one phase: the first not done on every member ({@link CaRotation}, from the hosts'
 * files), so an apply stopped anywhere resumes there. Between phases the operator moves clients on
 * (the plan's warnings say to what), as kube-apiserver reads its CA file only at start too. While it runs, the workstation's clients
 * (this apply's health checks, {@code client-env}, {@code kube-apiserver-flags}) trust the bundle.
 */
final class CaRotationPlanner {
    static final String TRUST_BOTH_CAUSE = "CA rotation 1/3: trusts the old and the new CA (etcd reads its CA files only at start)";
    /** What the client files' steps on hosts that run no member say, phase by phase: the client reads its CA only at start. */
    static final String CLIENT_TRUST_BOTH = "the client there (kube-apiserver) reads its CA file only at start: restart it"
            + " before the next apply, so that it trusts members serving certificates of the new CA";
    static final String CLIENT_REISSUE = "its new certificate is accepted by every member; restart the client there"
            + " (kube-apiserver) before the next apply, which makes members refuse the old CA";
    static final String CLIENT_DROP_OLD = "every member serves certificates of the new CA; the client there"
            + " (kube-apiserver) reads its CA file only at start: restart it";
    static final String DROP_OLD_CAUSE = "CA rotation 3/3: trusts the new CA alone (etcd reads its CA files only at start)";

    private final ConvergePlanner.Inputs in;
    private final CaRotation rotation;
    private final ConvergePlanner.Context context;
    private final CaRotationFiles files;
    private final List<Step> steps;
    private final ClientHostSteps clientHosts;

    CaRotationPlanner(ConvergePlanner.Inputs in, CaRotation rotation, ConvergePlanner.Context context, List<Step> steps,
                      ClientHostSteps clientHosts) {
        this.in = in;
        this.clientHosts = clientHosts;
        this.rotation = rotation;
        this.context = context;
        this.files = in.pki().rotation();
        this.steps = steps;
    }

    /** How the workstation asks the members while a rotation runs: the bundle as CA, the admin certificate of the moment. */
    static Health.Access access(ClusterPki pki) {
        ClusterPki.LocalPair admin = pki.clientPair(HostCertificates.ADMIN);
        return new Health.Access(pki.rotation().bundle(), admin.cert(), admin.key());
    }

    /** Why the rotation cannot run now: a member down or silent, another change in the same plan, no client the members trust. */
    static List<Refusal> refusals(ConvergePlanner.Inputs in, CaRotation rotation, boolean otherRiskyChange) {
        List<Refusal> refusals = new ArrayList<>();
        String cluster = in.desired().spec().name();
        if (otherRiskyChange) {
            // First things first: members still to join are not "down", and the rest is judged once this is resolved.
            return List.of(new Refusal("ca-rotation-with-other-change", cluster, "a CA rotation is under way and this plan"
                    + " also changes the membership or the etcd version; both roll members, and together their restarts could"
                    + " meet members that do not trust each other",
                    "finish the CA rotation first: apply with the members and version the cluster has now, then change them"));
        }
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            EtcdHostFacts f = in.facts().get(host);
            if (!f.service().running() || f.member().status().isEmpty()) {
                refusals.add(new Refusal("ca-rotation-member-down", host, "member " + m.name() + " is "
                        + (f.service().running() ? "running but does not answer" : "not running (" + f.service().activeState() + ")")
                        + "; a CA rotation restarts members one at a time, each only while all others are healthy",
                        "bring it back first ('journalctl -u " + EtcdLayout.UNIT + "' on " + host + "; 'etcdwright status'"
                                + " shows every member), then apply again: the rotation resumes where it stands"));
            }
        }
        ClusterPki.LocalPair admin = in.pki().clientPair(HostCertificates.ADMIN);
        for (Map.Entry<String, CaRotation.HostState> e : rotation.hosts().entrySet()) {
            List<X509Certificate> trusted = e.getValue().trusted();
            if (!Files.exists(admin.cert()) || trusted.stream().noneMatch(ca -> CaRotation.signedBy(admin.cert(), ca))) {
                refusals.add(new Refusal("ca-rotation-no-client", e.getKey(), "the workstation's admin certificate ("
                        + admin.cert() + ") is " + (Files.exists(admin.cert()) ? "not issued by a CA " : "missing, so none is one ")
                        + e.getKey() + " trusts; a rotation checks every member's health and writes between restarts, which"
                        + " takes a client the members accept",
                        "restore the PKI directory " + in.pki().settings().dir() + " from a backup (or bring the CA the members"
                                + " trust with tls.pki.ca), apply, then start the rotation"));
                break;
            }
        }
        return refusals;
    }

    /**
     * The workstation's part, before anything else: the new generation of a generated CA when the
     * spec raised it, then the record of the rotation (old CAs, the bundle, a probe client of the
     * new CA). Every host step waits for these.
     */
    List<Step> workstationSteps() {
        List<Step> pki = new ArrayList<>();
        ClusterPki p = in.pki();
        if (p.generationPending()) {
            pki.add(add(Step.cluster("pki", "ca-generation").safety(SafetyClass.CHANGE).kind(ChangeKind.CREATE)
                    .summary("generate CA generation " + p.settings().caGeneration() + " in " + p.settings().dir())
                    .reason("tls.pki.caGeneration " + p.settings().caGeneration() + ", the workstation holds generation "
                            + p.caGeneration() + "; the current CA is kept in previous-ca/ (its key never leaves the workstation)")
                    .does(ctx -> p.generateNextCa() ? Outcome.CHANGED : Outcome.OK)));
        }
        List<X509Certificate> old = rotation.oldCas();
        pki.add(add(Step.cluster("pki", "ca-rotation").safety(SafetyClass.CHANGE).kind(ChangeKind.ACTION)
                .summary("CA rotation: record the old CA" + (old.size() == 1 ? "" : "s") + " and write the bundle "
                        + files.bundle())
                .reason("members trust " + old.size() + " CA" + (old.size() == 1 ? "" : "s") + " other than " + p.caCertFile()
                        + "; now at phase " + rotation.phase().description())
                .after(List.copyOf(pki))
                .does(ctx -> {
                    X509Certificate fresh = p.ensureCa().certificate();
                    boolean changed = files.begin(old, fresh);
                    changed |= p.ensure(files.probe(), p.memberRequest(new ClusterPki.MemberIdentity("probe", "", ""),
                            HostCertificates.HEALTHCHECK));
                    return changed ? Outcome.CHANGED : Outcome.OK;
                })));
        return pki;
    }

    /**
     * The phase under way, after {@code first}, beginning with the proof on every member that the
     * phase before it is done (so a resumed or repeated apply proves it again), and ending with the
     * proof of its own; returns the last step. One phase per apply: between them the operator moves
     * clients onto the bundle (before phase 2, members then serve certificates of the new CA) and
     * onto the new certificates (before phase 3, members then refuse the old CA).
     */
    List<Step> steps(List<Step> first) {
        switch (rotation.phase()) {
            case TRUST_BOTH -> {
                // Hosts that hold client files get the bundle beside the members: a client restarted with it
                // reaches members of either CA.
                clientHosts.deliver(first, files.bundle(), "CA rotation 1/3: trust the old and the new CA: client files",
                        CLIENT_TRUST_BOTH, (roles, hostFiles) -> List.of());
                List<Step> rolled = roll(first, "ca-trust-both", "restart-trust-both", files.bundle(), TRUST_BOTH_CAUSE,
                        "CA rotation 1/3: trust the old and the new CA",
                        rotation.newCa().isEmpty() ? hostNames() : rotation.hostsNotTrustingExactly(rotation.bundle()));
                return List.of(trusted(rolled));
            }
            case REISSUE -> {
                return List.of(reissued(reissue(List.of(trusted(first)))));
            }
            default -> {
                Step reissued = reissued(first);
                // Every member serves the new CA's certificates now: the clients there may trust it alone.
                clientHosts.deliver(List.of(reissued), in.pki().caCertFile(), "CA rotation 3/3: trust the new CA alone: client files",
                        CLIENT_DROP_OLD, (roles, hostFiles) -> List.of());
                List<String> dropping = rotation.hostsNotTrustingExactly(rotation.newCa().map(List::of).orElse(List.of()));
                List<Step> last = roll(List.of(reissued), "ca-drop-old", "restart-new-ca-only", in.pki().caCertFile(),
                        DROP_OLD_CAUSE, "CA rotation 3/3: trust the new CA alone", dropping);
                return List.of(add(Step.cluster("pki", "ca-rotation-done").safety(SafetyClass.CHANGE).kind(ChangeKind.ACTION)
                        .summary("CA rotation done: remove the bundle and the record in " + files.dir())
                        .reason("every member refuses the old CA; clients trust " + in.pki().caCertFile() + " again")
                        .after(last)
                        .requires(new CaRotationChecks.OldCaRefused(in.pki().caCertFile(), files.probe(), files.oldAdmin(),
                                targets(), context.timeouts().ready()))
                        .does(ctx -> {
                            files.finish();
                            return Outcome.CHANGED;
                        })));
            }
        }
    }

    /** What the operator must know of this apply's phase, and do before the next one. */
    List<String> warnings() {
        String bundle = files.bundle().toString();
        List<String> phase = switch (rotation.phase()) {
            case TRUST_BOTH -> List.of("CA rotation phase 1/3: members restart to trust the old and the new CA. Before the next"
                    + " apply (phase 2, members then serve certificates of the new CA) point every client at the bundle " + bundle
                    + " ('etcdwright client-env' and 'kube-apiserver-flags --workstation-paths' print it; when to restart"
                    + " kube-apiserver is said after the plan).");
            case REISSUE -> List.of("CA rotation phase 2/3: every certificate is issued again from the new CA, without restarts."
                    + " Before the next apply (phase 3, members then refuse the old CA) give every client its new certificate"
                    + " (the admin and kube-apiserver ones in " + in.pki().settings().dir().resolve("clients") + ").");
            case DROP_OLD -> List.of("CA rotation phase 3/3: members restart to trust the new CA alone; clients of the old CA"
                    + " are refused from now on.");
        };
        List<String> clientOnly = in.desired().clientOnlyHosts().stream().map(h -> h.name()).toList();
        List<String> all = new ArrayList<>(phase);
        if (rotation.phase() != Phase.TRUST_BOTH
                && java.nio.file.Files.exists(in.pki().clientPair(ClusterPki.READER).cert())) {
            // A reader's runner trusts the CA file it was handed, and its certificate is of the old CA.
            all.add("CA rotation: a reader certificate was issued for read-only runners ('certs issue-reader'); it is of the"
                    + " old CA, which members refuse from phase 3: issue it again once this rotation is done and hand the"
                    + " runners the new files (ca.crt, reader.crt, reader.key)");
        }
        if (clientOnly.isEmpty()) {
            return all;
        }
        all.add("CA rotation: " + String.join(", ", clientOnly) + " run" + (clientOnly.size() == 1 ? "s" : "")
                + " no member but hold client files; this apply gives " + (clientOnly.size() == 1 ? "it" : "them")
                + switch (rotation.phase()) {
                    case TRUST_BOTH -> " the bundle as ca.crt";
                    case REISSUE -> " their client certificates from the new CA";
                    case DROP_OLD -> " the new CA alone as ca.crt";
                } + ": the client there (kube-apiserver) reads its CA file only at start, restart it after this apply.");
        return all;
    }

    /** Phase 1 proved on every member: each accepts a client of the new CA. */
    private Step trusted(List<Step> after) {
        return add(Step.cluster("pki", "ca-trusted").safety(SafetyClass.CHANGE).kind(ChangeKind.ACTION)
                .summary("CA rotation 1/3 done: every member trusts the new CA")
                .reason("certificates of the new CA are handed out only once every member accepts them")
                .after(after)
                .requires(new CaRotationChecks.NewCaTrusted(files.bundle(), files.probe(), targets(), context.timeouts().ready()))
                .does(ctx -> {
                    files.recordPhase(Phase.REISSUE);
                    return Outcome.OK;
                }));
    }

    /** Phase 2 proved on every member: each serves certificates of the new CA alone, client and peer. */
    private Step reissued(List<Step> after) {
        return add(Step.cluster("pki", "ca-reissued").safety(SafetyClass.CHANGE).kind(ChangeKind.ACTION)
                .summary("CA rotation 2/3 done: every member serves certificates of the new CA")
                .reason("before the old CA is dropped, no member may present a certificate only the old CA signed")
                .after(after)
                .requires(new CaRotationChecks.ServeNewCa(in.pki().caCertFile(), files.probe(), targets(), true,
                        context.timeouts().ready()))
                .does(ctx -> {
                    files.recordPhase(Phase.DROP_OLD);
                    return Outcome.OK;
                }));
    }

    /**
     * Phase 2: once every member accepts the new CA's client, the workstation's clients (the old
     * admin kept for the last check), then each member's certificates, one member at a time.
     */
    private List<Step> reissue(List<Step> after) {
        ClusterPki p = in.pki();
        Step clients = add(Step.cluster("pki", "ca-reissue-clients").safety(SafetyClass.CHANGE).kind(ChangeKind.UPDATE)
                .summary("CA rotation 2/3: issue the admin and kube-apiserver client certificates from the new CA")
                .reason("clients keep working with either certificate while members trust both")
                .after(after)
                .does(ctx -> {
                    boolean changed = keepOldAdmin(p);
                    for (String role : HostCertificates.CLIENTS) {
                        changed |= p.ensure(p.clientPair(role), p.clientRequest(role));
                    }
                    return changed ? Outcome.CHANGED : Outcome.OK;
                }));
        List<Step> last = List.of(clients);
        // The client pairs just issued go to the hosts that hold them without running a member, with the bundle.
        clientHosts.deliver(List.of(clients), files.bundle(), "CA rotation 2/3: client certificates from the new CA",
                CLIENT_REISSUE, (roles, hostFiles) -> roles.stream()
                        .filter(role -> {
                            // Where the host holds the role's certificate: kube-apiserver's at its layout's path.
                            String cert = KubeadmPaths.certPath(role, in.desired().spec().clients().kubeApiserverLayout());
                            return rotation.newCa().isEmpty() || !hostFiles.containsKey(cert) || hostFiles.get(cert).content()
                                    .map(pem -> !CaRotation.issuedBy(pem, cert, rotation.newCa().get())).orElse(true);
                        })
                        .map(role -> role + ".crt issued by the old CA").toList());
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            CaRotation.HostState state = rotation.hosts().get(host);
            if (state.leavesFromNew()) {
                continue;
            }
            ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(m.name(), host, m.address());
            Set<String> roles = HostCertificates.clientRoles(in.desired(), host);
            var hostFiles = in.facts().get(host).files();
            Step step = add(Step.on(host, "pki", "ca-reissue").safety(SafetyClass.CHANGE).kind(ChangeKind.UPDATE)
                    .summary("CA rotation 2/3: certificates for " + m.name() + " from the new CA")
                    .reason("server, peer and healthcheck-client" + (roles.isEmpty() ? "" : ", " + String.join(", ", roles))
                            + " issued by the old CA; etcd reads its certificate at each new TLS handshake: no restart")
                    .after(last)
                    .readyWhen(new CaRotationChecks.ServeNewCa(p.caCertFile(), files.probe(), List.of(target(m)), false,
                            context.timeouts().ready()))
                    .does(ctx -> PkiSteps.apply(ctx.session(), p, identity, roles, hostFiles, files.bundle())));
            last = List.of(step);
        }
        return last;
    }

    /** The old CA's admin, copied aside before it is replaced: the last check proves members refuse it. */
    private static boolean keepOldAdmin(ClusterPki p) {
        ClusterPki.LocalPair admin = p.clientPair(HostCertificates.ADMIN);
        ClusterPki.LocalPair kept = p.rotation().oldAdmin();
        X509Certificate fresh = p.ensureCa().certificate();
        if (!Files.exists(admin.cert()) || CaRotation.signedBy(admin.cert(), fresh) || Files.exists(kept.cert())) {
            return false;
        }
        try {
            Files.copy(admin.key(), kept.key(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            Files.copy(admin.cert(), kept.cert(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the old admin certificate in " + kept.cert().getParent() + ": "
                    + e.getMessage(), e);
        }
        return true;
    }

    /**
     * One rolling phase: {@code caFile} written to each host's ca.crt (side by side: etcd reads it
     * only at start), then each of {@code hosts} restarted one at a time.
     */
    private List<Step> roll(List<Step> after, String writeId, String restartId, Path caFile, String cause, String summary,
                            List<String> hosts) {
        if (hosts.isEmpty()) {
            return after;
        }
        Map<String, List<Step>> written = new LinkedHashMap<>();
        Map<String, List<String>> causes = new LinkedHashMap<>();
        List<Member> members = new ArrayList<>();
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            if (!hosts.contains(host)) {
                continue;
            }
            members.add(m);
            causes.put(host, List.of(cause));
            var have = in.facts().get(host).file(HostCertificates.certPath(HostCertificates.CA));
            Step write = add(Step.on(host, "pki", writeId).safety(SafetyClass.CHANGE).kind(ChangeKind.UPDATE)
                    .summary(summary + ": " + HostCertificates.certPath(HostCertificates.CA) + " from " + caFile.getFileName())
                    .reason(cause)
                    .after(after)
                    .does(ctx -> PkiSteps.landCa(ctx.session(), caFile, have) ? Outcome.CHANGED : Outcome.OK));
            written.put(host, List.of(write));
        }
        List<Member> ordered = RollingRestart.order(members, m -> in.facts().get(m.host().name()).member().status()
                .map(MemberFacts.LocalStatus::isLeader).orElse(false));
        List<Step> restarts = RollingRestart.steps(restartId, ordered, causes, written, after, context,
                m -> SafetyClass.CHANGE);
        steps.addAll(restarts);
        return List.of(restarts.get(restarts.size() - 1));
    }

    private List<String> hostNames() {
        return in.desired().members().stream().map(m -> m.host().name()).toList();
    }

    private List<CaRotationChecks.Target> targets() {
        return in.desired().members().stream().map(this::target).toList();
    }

    private CaRotationChecks.Target target(Member m) {
        return new CaRotationChecks.Target(m.name(), Endpoints.clientUrl(m, in.layout()), Endpoints.peerUrl(m, in.layout()));
    }

    private Step add(Step step) {
        steps.add(step);
        return step;
    }
}
