package io.etcdwright.engine.source;

/**
 * How large an input file may be, so that a hostile or broken file is refused within a second
 * instead of eating the workstation's memory or time. Real inventories and specs are a few
 * kilobytes; every limit is far above that.
 */
public final class InputLimits {

    /** Bytes of one inventory or spec file: checked before anything is read. */
    public static final int MAX_FILE_BYTES = 1024 * 1024;
    /**
     * Characters of one line. snakeyaml's scanner is quadratic in the length of a single-line
     * scalar (a 1 MB value takes a second, 20 MB minutes), so long lines are refused before it
     * ever sees them.
     */
    public static final int MAX_LINE_CHARS = 64 * 1024;
    /** Characters of one value, however many lines it spans. */
    public static final int MAX_SCALAR_CHARS = 64 * 1024;
    /** Mappings and lists inside each other. */
    public static final int MAX_DEPTH = 50;
    /**
     * Aliases may repeat parts of a document, but never expand it to more than this many times
     * the values it writes (or {@link #MIN_EXPANDED_VALUES}, for small files): a "billion laughs"
     * file within snakeyaml's alias count still expands to hundreds of millions of values.
     */
    public static final int EXPANSION_FACTOR = 10;
    public static final int MIN_EXPANDED_VALUES = 10_000;

    private InputLimits() {}

    /** {@code 1 MiB}, {@code 64 KiB}: sizes as operators read them. */
    static String size(long bytes) {
        if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + " MiB";
        }
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " bytes";
    }
}
