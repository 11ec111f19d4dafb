package io.etcdwright.run;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshOptions;
import io.etcdwright.engine.ssh.SshTarget;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns inventory hosts into SSH targets and opens the run's connections. */
public final class Hosts {
    private Hosts() {
    }

    public static SshTarget target(InventoryHost host) {
        return new SshTarget(host.name(), host.address(), host.port(), host.user(), host.privateKeyFile(), host.become());
    }

    public static Map<String, SshTarget> targets(List<InventoryHost> hosts) {
        Map<String, SshTarget> targets = new LinkedHashMap<>();
        hosts.forEach(h -> targets.put(h.name(), target(h)));
        return targets;
    }

    public static SshConnections connect(Inventory inventory, ConnectionSettings options) {
        options.check();
        return new SshConnections(new SshOptions(
                inventory.knownHostsFile().orElse(SshOptions.defaultKnownHostsFile()),
                options.acceptNewHostKeys(),
                options.connectTimeout(),
                options.commandTimeout()));
    }
}
