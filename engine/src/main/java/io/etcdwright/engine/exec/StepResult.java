package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.Step;

import java.time.Duration;
import java.util.Optional;

/** How one step ended. */
public record StepResult(Step step, Status status, Duration took, Optional<String> error) {
    public enum Status { CHANGED, OK, FAILED, SKIPPED, UNREACHABLE }
}
