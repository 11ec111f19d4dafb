package io.etcdwright.engine.facts;

import io.etcdwright.engine.ssh.SshException;

/** What fact gathering got from one host: its facts, or why it could not be reached. */
public sealed interface HostReport {
    String host();

    record Reachable(HostFacts facts) implements HostReport {
        @Override
        public String host() {
            return facts.host();
        }
    }

    record Unreachable(String host, SshException.Reason reason, String message) implements HostReport {
    }
}
