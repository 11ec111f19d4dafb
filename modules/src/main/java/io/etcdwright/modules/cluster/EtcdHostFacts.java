package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.HostFacts;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.ServiceFacts;

import java.util.Map;

/** One host's facts, typed, as the etcd modules read them. */
public record EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                            Map<String, FileState> files, ServiceFacts service, MemberFacts member) {

    public static EtcdHostFacts from(HostFacts facts, EtcdProbes probes) {
        return new EtcdHostFacts(facts.host(), facts.get(SystemFacts.PROBE),
                facts.get(io.etcdwright.modules.install.InstallFacts.PROBE), facts.get(probes.hostSetup()),
                facts.get(probes.files()), facts.get(ServiceFacts.PROBE), facts.get(probes.member()));
    }

    public FileState file(String path) {
        FileState state = files.get(path);
        return state == null ? FileState.missing(path) : state;
    }
}
