package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.ClusterPlanner;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "client-env", description = {"Print ETCDCTL_* settings for the admin client on this workstation.",
        "Use: eval \"$(etcdwright client-env -i INVENTORY -f SPEC | sed 's/^/export /')\""})
final class ClientEnvCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        ClusterPki pki = Pkis.of(desired);
        ClusterPki.LocalPair admin = pki.clientPair(HostCertificates.ADMIN);
        if (!java.nio.file.Files.exists(admin.cert())) {
            throw new IllegalStateException("no admin certificate in " + pki.settings().dir()
                    + " yet: run 'etcdwright apply' first");
        }
        PrintWriter out = spec.commandLine().getOut();
        var layout = Layouts.of(desired);
        out.println("ETCDCTL_API=3");
        out.println("ETCDCTL_ENDPOINTS=" + String.join(",", ClusterPlanner.clientUrls(desired.members(), layout)));
        out.println("ETCDCTL_CACERT=" + pki.caCertFile().toAbsolutePath());
        out.println("ETCDCTL_CERT=" + admin.cert().toAbsolutePath());
        out.println("ETCDCTL_KEY=" + admin.key().toAbsolutePath());
        return Main.OK;
    }
}
