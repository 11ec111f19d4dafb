package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.ClusterPlanner;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "kube-apiserver-flags", description = {"Print the kube-apiserver flags that connect it to this cluster.",
        "Paths are where every member holds the apiserver's client certificate (a stacked control plane);",
        "--workstation-paths prints the workstation's copies instead, to copy elsewhere."})
final class KubeApiserverFlagsCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = "--workstation-paths", description = "Print paths of the workstation's PKI directory.")
    boolean workstationPaths;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        var layout = Layouts.of(desired);
        PrintWriter out = spec.commandLine().getOut();
        out.println("--etcd-servers=" + String.join(",", ClusterPlanner.clientUrls(desired.members(), layout)));
        if (workstationPaths) {
            ClusterPki pki = Pkis.of(desired);
            ClusterPki.LocalPair pair = pki.clientPair(HostCertificates.APISERVER);
            out.println("--etcd-cafile=" + pki.caCertFile().toAbsolutePath());
            out.println("--etcd-certfile=" + pair.cert().toAbsolutePath());
            out.println("--etcd-keyfile=" + pair.key().toAbsolutePath());
        } else {
            out.println("--etcd-cafile=" + HostCertificates.certPath(HostCertificates.CA));
            out.println("--etcd-certfile=" + HostCertificates.certPath(HostCertificates.APISERVER));
            out.println("--etcd-keyfile=" + HostCertificates.keyPath(HostCertificates.APISERVER));
        }
        return Main.OK;
    }
}
