package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.Step;

/** Where the executor reports as it goes, so a long apply is never silent. */
public interface ProgressListener {
    void started(Step step);

    void finished(StepResult result);

    void note(Step step, String message);

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
