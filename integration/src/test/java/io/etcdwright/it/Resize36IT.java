package io.etcdwright.it;

/**
 * {@link ResizeScenario} on etcd 3.6, the release Kubernetes 1.34 and later run: learners that
 * /readyz calls not ready, adds while a voter is down allowed from 3.6.11. (Every other membership
 * test runs 3.5: MembershipInterruptedIT, KilledAnywhereIT, FaultsIT; 3.4 has Resize34IT.)
 */
class Resize36IT extends ResizeScenario {
    @Override
    String version() {
        return Testbed.newestRelease("3.6");
    }
}
