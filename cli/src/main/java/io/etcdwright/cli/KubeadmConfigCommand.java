package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.KubeApiserverFlags;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.Map;
import java.util.concurrent.Callable;

/**
 * kubeadm's ClusterConfiguration (kubeadm.k8s.io/v1beta4) with this cluster as its external
 * etcd, made of the flags kube-apiserver-flags prints ({@link KubeApiserverFlagsCommand#flags},
 * {@link KubeApiserverFlags#kubeadmClusterConfiguration}): kubeadm hands exactly these to
 * kube-apiserver. SnakeYAML writes it, so a path or URL is quoted wherever YAML needs it.
 */
@Command(name = "kubeadm-config", description = {"Print kubeadm's ClusterConfiguration that makes this cluster its external etcd.",
        "One YAML document (apiVersion kubeadm.k8s.io/v1beta4, kind ClusterConfiguration) with etcd.external: the members'",
        "client URLs as endpoints and, with TLS, caFile, certFile and keyFile at the paths the hosts named in the spec's",
        "clients.kube-apiserver hold them (layout kubeadm: /etc/kubernetes/pki/etcd/ca.crt and",
        "/etc/kubernetes/pki/apiserver-etcd-client.crt and .key, where kubeadm's external etcd reads them).",
        "Merge it into the ClusterConfiguration given to 'kubeadm init --config'; kube-apiserver-flags prints the same",
        "values as flags. --workstation-paths names the workstation's copies instead."})
final class KubeadmConfigCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = "--workstation-paths", description = "Name the files in the workstation's PKI directory.")
    boolean workstationPaths;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        Map<String, String> flags = KubeApiserverFlagsCommand.flags(desired, workstationPaths, spec.commandLine().getErr(),
                input.spec.toString());
        spec.commandLine().getOut().print(yaml(KubeApiserverFlags.kubeadmClusterConfiguration(flags)));
        return Main.OK;
    }

    static String yaml(Map<String, Object> document) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndicatorIndent(2);
        options.setIndentWithIndicator(true);
        return new Yaml(options).dump(document);
    }
}
