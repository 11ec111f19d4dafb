package io.etcdwright.engine.exec;

import java.time.Duration;

/**
 * Where a transfer or a wait inside a step has got, as the progress display renders it.
 *
 * @param total     bytes the transfer will move, -1 when unknown (and for a wait)
 * @param waitingOn what a wait still waits on, empty when nothing was said
 */
public record Activity(String what, Kind kind, long done, long total, String waitingOn, Duration elapsed) {
    public enum Kind { TRANSFER, WAIT }
}
