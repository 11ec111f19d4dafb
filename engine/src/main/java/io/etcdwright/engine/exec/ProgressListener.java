package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.Step;

/** Where the executor reports as it goes, so a long apply is never silent. */
public interface ProgressListener {
    void started(Step step);

    void finished(StepResult result);

    void note(Step step, String message);

    /**
     * A transfer or wait inside a running step has moved; called often (each buffer of a
     * transfer), so a listener keeps it cheap and decides itself how often to show it.
     * {@code id} tells apart several activities of one step.
     */
    default void moving(Step step, long id, Activity activity) {
    }

    /** That transfer or wait is over (done or failed: the step's result says which). */
    default void ended(Step step, long id, Activity activity) {
    }

    ProgressListener SILENT = new ProgressListener() {
        @Override
        public void started(Step step) {
        }

        @Override
        public void finished(StepResult result) {
        }

        @Override
        public void note(Step step, String message) {
        }
    };
}
