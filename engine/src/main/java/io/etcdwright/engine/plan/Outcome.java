package io.etcdwright.engine.plan;

/** Ansible's two happy results: the step changed something, or found nothing to do. */
public enum Outcome {
    CHANGED, OK
}
