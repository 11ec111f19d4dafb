package io.etcdwright.engine.source;

import java.util.Locale;

/** Errors stop etcdwright before it touches a host; warnings are printed and it goes on. */
public enum Severity {
    ERROR,
    WARNING;

    /** Lower case, as compilers print it: {@code error}, {@code warning}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
