package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.YamlDocument;
import java.util.ArrayList;
import java.util.List;

/**
 * etcd's client and peer ports against the SSH port the inventory gives each member's host: etcd
 * listens on the member's address (and the client port on 127.0.0.1 too) while sshd holds its port
 * on every address of the host, so a member whose port is its host's SSH port can never start.
 *
 * <p>The error is where the operator makes the fix: the spec's port field when the spec writes it
 * (sshd really listens where the inventory says, or etcdwright could not connect), else the
 * inventory's {@code ansible_port}, the only one of the two that is written; the message names the other.
 */
final class SshPortCheck {

    private static final FieldPath PORTS = FieldPath.of("etcd", "ports");

    private final YamlDocument document;
    private final ClusterSpec spec;
    private final List<Member> members;
    private final Problems problems;

    SshPortCheck(YamlDocument document, ClusterSpec spec, List<Member> members, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.members = members;
        this.problems = problems;
    }

    void check() {
        if (problems.hasErrorAround(document.file(), PORTS)) {
            return;
        }
        Ports ports = spec.etcd().ports();
        check("client", ports.client(), Ports.DEFAULT_CLIENT);
        check("peer", ports.peer(), Ports.DEFAULT_PEER);
    }

    private void check(String side, int port, int defaultPort) {
        FieldPath field = PORTS.key(side);
        List<InventoryHost> clashing = members.stream().map(Member::host).filter(host -> host.port() == port).toList();
        if (clashing.isEmpty()) {
            return;
        }
        String why = "etcd cannot listen on the port sshd holds on the host, so the member would never start";
        if (document.contains(field)) {
            List<String> named = new ArrayList<>();
            for (InventoryHost host : clashing) {
                named.add(host.name() + " (" + host.portSetAt().map(at -> "ansible_port at " + at.location())
                        .orElse("listed at " + host.location()) + ")");
            }
            problems.error(document, field, "port " + port + " is the SSH port the inventory gives "
                    + (clashing.size() == 1 ? "host " : "hosts ") + Listing.of(named) + ": " + why
                    + "; choose another " + side + " port (etcd's default is " + defaultPort + ")");
            return;
        }
        for (InventoryHost host : clashing) {
            // A port is 22 by default, never 2379 or 2380: a clash with the spec's default is a port written in the inventory.
            host.portSetAt().ifPresent(at -> problems.add(Problem.error(at.location(), at.field(), "SSH port " + port
                    + " of host " + host.name() + " is etcd's " + side + " port (" + field + " in " + document.file()
                    + ", " + defaultPort + " by default): " + why + "; set " + field + " to another port in the spec,"
                    + " or fix ansible_port if sshd listens on another port")));
        }
    }
}
