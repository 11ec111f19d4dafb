package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.EtcdLayout;

public final class Layouts {
    private Layouts() {
    }

    public static EtcdLayout of(DesiredState desired) {
        var etcd = desired.spec().etcd();
        return new EtcdLayout(etcd.dataDir(), etcd.ports().client(), etcd.ports().peer(),
                io.etcdwright.modules.config.MemberTransport.of(desired.spec().tls().transport()));
    }
}
