package io.etcdwright.it;

/** {@link ResizeScenario} on etcd 3.5.16. */
class Resize35IT extends ResizeScenario {
    @Override
    String version() {
        return "3.5.16";
    }
}
