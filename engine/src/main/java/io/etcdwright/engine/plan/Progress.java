package io.etcdwright.engine.plan;

/**
 * A long piece of work inside a step (a transfer, a wait), reported while it moves so that an
 * apply is never silent for more than a few seconds. Closing it ends the report; it never fails
 * the work it reports on.
 */
public interface Progress extends AutoCloseable {
    /** Bytes moved so far, for a transfer. */
    void advanced(long bytesSoFar);

    /** What a wait still waits on ("h2: connection refused"), shown beside the time waited. */
    void waitingOn(String reason);

    @Override
    void close();

    /** For work nobody watches (tests, commands without a progress display). */
    Progress NONE = new Progress() {
        @Override
        public void advanced(long bytesSoFar) {
        }

        @Override
        public void waitingOn(String reason) {
        }

        @Override
        public void close() {
        }
    };
}
