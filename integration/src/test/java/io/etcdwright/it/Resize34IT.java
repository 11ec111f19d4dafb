package io.etcdwright.it;

/**
 * {@link ResizeScenario} on etcd 3.4.23: learners exist since 3.4, and 3.4 refuses any member add
 * while a voter is down, so a dead member must leave before its successor joins.
 */
class Resize34IT extends ResizeScenario {
    @Override
    String version() {
        return "3.4.23";
    }
}
