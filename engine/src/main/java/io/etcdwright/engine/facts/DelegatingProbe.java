package io.etcdwright.engine.facts;

import java.util.List;
import java.util.Optional;

/**
 * A probe that is another probe with one thing changed: everything is forwarded to
 * {@link #delegate()}, and a decorator overrides only what it changes (see {@link LaterProbe}).
 */
public interface DelegatingProbe<T> extends Probe<T> {
    /** The probe this one decorates. */
    Probe<T> delegate();

    @Override
    default String name() {
        return delegate().name();
    }

    @Override
    default String script() {
        return delegate().script();
    }

    @Override
    default List<String> arguments() {
        return delegate().arguments();
    }

    @Override
    default Optional<String> outputWhenNotRecorded() {
        return delegate().outputWhenNotRecorded();
    }

    @Override
    default List<UnitProperties> units() {
        return delegate().units();
    }

    @Override
    default T parse(String output) {
        return delegate().parse(output);
    }
}
