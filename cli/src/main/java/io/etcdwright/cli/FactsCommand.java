package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.FactsFile;
import io.etcdwright.run.Hosts;
import io.etcdwright.run.Layouts;
import io.etcdwright.run.Pkis;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.inventory.InventoryLoader;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.cluster.FactsView;
import io.etcdwright.modules.pki.ClientHostFacts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "facts", description = "Gather facts from hosts: OS, etcd installs, service, data, certificates, clock.")
final class FactsCommand implements Callable<Integer> {
    @Option(names = {"-i", "--inventory"}, required = true, paramLabel = "INVENTORY", description = "YAML inventory.")
    Path inventoryFile;

    @Option(names = {"-f", "--file"}, paramLabel = "SPEC",
            description = "Desired state: limits to its members and uses its paths and ports.")
    Path specFile;

    @Option(names = "--limit", paramLabel = "PATTERN", description = "Hosts or groups, like Ansible's --limit.")
    String limit;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "Output format (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Mixin
    ConnectionOptions connection;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Inventory inventory;
        List<InventoryHost> hosts;
        EtcdLayout layout;
        String cluster = null;
        List<InventoryHost> clientHosts = List.of();
        if (specFile != null) {
            DesiredState desired = DesiredStateLoader.load(inventoryFile, specFile);
            inventory = desired.inventory();
            hosts = desired.members().stream().map(m -> m.host()).toList();
            layout = Layouts.of(desired);
            cluster = desired.spec().name();
            clientHosts = ClientHostFacts.hostsToAsk(desired, Pkis.of(desired));
        } else {
            inventory = InventoryLoader.load(inventoryFile);
            hosts = List.copyOf(inventory.hosts().values());
            layout = EtcdLayout.DEFAULT;
        }
        // Where a leaving member may be asked too: the inventory, within --limit.
        Map<String, InventoryHost> scope = new LinkedHashMap<>(inventory.hosts());
        if (limit != null) {
            List<String> allowed = inventory.limit(limit).stream().map(InventoryHost::name).toList();
            hosts = hosts.stream().filter(h -> allowed.contains(h.name())).toList();
            scope.keySet().retainAll(allowed);
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("no hosts match" + (limit == null ? "" : " --limit " + limit));
        }
        EtcdProbes probes = EtcdProbes.of(layout);
        Instant gatheredAt = Instant.now();
        ClusterRun.Facts facts;
        try (SshConnections connections = Hosts.connect(inventory, connection.settings())) {
            // The same gathering as plan and apply: one round trip a host, the cluster's view from the members.
            facts = ClusterRun.gather(connections, connection.forks, hosts, scope, probes);
            // Hosts that hold client files without running a member: asked for those files only.
            List<InventoryHost> asked = clientHosts.stream().filter(h -> scope.containsKey(h.name())).toList();
            facts = facts.withClientHosts(ClusterRun.gatherClientHosts(connections, connection.forks, asked));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (output == OutputFormat.json) {
            out.println(Json.write(FactsFile.document(cluster, gatheredAt, facts, probes)));
        } else {
            for (HostReport report : facts.reports()) {
                String address = facts.addresses().getOrDefault(report.host(), "");
                if (report instanceof HostReport.Reachable r) {
                    out.print(FactsView.text(FactsView.of(address, EtcdHostFacts.from(r.facts(), probes), r.facts().gatherTime(),
                            r.facts().clockSkewMillis())));
                } else if (report instanceof HostReport.Unreachable u) {
                    out.print(FactsView.text(FactsView.unreachable(u.host(), address, u.reason().name(), u.message())));
                }
            }
            for (HostReport report : facts.clientReports()) {
                InventoryHost host = inventory.hosts().get(report.host());
                String address = host == null ? "" : host.address();
                if (report instanceof HostReport.Reachable r) {
                    out.print(FactsView.clientHostText(r.host(), address, r.facts().get(ClientHostFacts.PROBE)));
                } else if (report instanceof HostReport.Unreachable u) {
                    out.print(FactsView.text(FactsView.unreachable(u.host(), address, u.reason().name(), u.message())));
                }
            }
        }
        return facts.unreachable().isEmpty() ? Main.OK : Main.ERROR;
    }
}
