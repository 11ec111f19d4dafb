package io.etcdwright.modules.pki;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Least key material on a member host: the admin and kube-apiserver client certificates and keys
 * it holds although the spec's {@code clients} does not name it (an older etcdwright put them on
 * every member; a host dropped from {@code clients}) are removed. Only those files, at
 * etcdwright's own paths in /etc/etcd/pki, named in the step. Last in the host's chain: after the
 * scheduled backup script moved to the member's own healthcheck client. Nothing restarts: they are
 * not etcd's files.
 */
public final class ClientKeyRemovalModule implements MemberModule {
    private final DesiredState desired;

    public ClientKeyRemovalModule(DesiredState desired) {
        this.desired = desired;
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        Set<String> keep = HostCertificates.clientRoles(desired, member.host());
        List<String> surplus = PkiSteps.surplus(keep, member.facts().files());
        if (surplus.isEmpty()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>(List.of("rm", "-fv", "--"));
        argv.addAll(surplus);
        RemoteCommand remove = new RemoteCommand.Exec(argv);
        String host = member.host();
        // Keys someone may be using removed because the spec's clients no longer names the host (or this
        // etcdwright hands them out more narrowly than the last): a change, never unattended.
        Step.Builder step = Step.on(host, "pki", "client-keys").kind(ChangeKind.DELETE).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("remove " + String.join(", ", surplus))
                .reason("clients does not name " + host + " for " + roles(surplus)
                        + ": client keys stay on the workstation unless the spec names the host; no restart")
                .observed(String.join(" ", surplus));
        return Optional.of(new Change(step, ctx -> ctx.session().run(remove).orThrow(host).stdout().isBlank()
                ? Outcome.OK : Outcome.CHANGED, Optional.empty()));
    }

    private static String roles(List<String> paths) {
        List<String> clients = new ArrayList<>();
        for (String role : HostCertificates.CLIENTS) {
            if (paths.contains(HostCertificates.certPath(role)) || paths.contains(HostCertificates.keyPath(role))) {
                clients.add(HostCertificates.clientOf(role));
            }
        }
        return String.join(" or ", clients);
    }
}
