package io.etcdwright.engine.facts;

import java.util.List;
import java.util.Optional;

/**
 * A probe added after facts files were first recorded: a recording without its output reads as
 * {@code unrecorded} (for files, as missing), instead of being refused, so facts recorded before
 * it still plan offline.
 */
public record LaterProbe<T>(Probe<T> probe, String unrecorded) implements Probe<T> {
    @Override
    public String name() {
        return probe.name();
    }

    @Override
    public String script() {
        return probe.script();
    }

    @Override
    public List<String> arguments() {
        return probe.arguments();
    }

    @Override
    public List<UnitProperties> units() {
        return probe.units();
    }

    @Override
    public Optional<String> outputWhenNotRecorded() {
        return Optional.of(unrecorded);
    }

    @Override
    public T parse(String output) {
        return probe.parse(output);
    }
}
