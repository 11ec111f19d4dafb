package io.etcdwright.engine.plan;

/** The work behind a step. It must be safe to run again after an interruption. */
@FunctionalInterface
public interface Operation {
    Outcome run(StepContext context) throws Exception;
}
