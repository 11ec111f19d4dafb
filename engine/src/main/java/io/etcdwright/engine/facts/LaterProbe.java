package io.etcdwright.engine.facts;

import java.util.Optional;

/**
 * A probe added after facts files were first recorded: a recording without its output reads as
 * {@code unrecorded} (for files, as missing), instead of being refused, so facts recorded before
 * it still plan offline.
 */
public record LaterProbe<T>(Probe<T> probe, String unrecorded) implements DelegatingProbe<T> {
    @Override
    public Probe<T> delegate() {
        return probe;
    }

    @Override
    public Optional<String> outputWhenNotRecorded() {
        return Optional.of(unrecorded);
    }
}
