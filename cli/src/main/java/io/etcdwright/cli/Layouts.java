package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.EtcdLayout;

final class Layouts {
    private Layouts() {
    }

    static EtcdLayout of(DesiredState desired) {
        var etcd = desired.spec().etcd();
        return new EtcdLayout(etcd.dataDir(), etcd.ports().client(), etcd.ports().peer(),
                io.etcdwright.modules.config.MemberTransport.of(desired.spec().tls().transport()));
    }
}
