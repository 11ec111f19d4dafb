package io.etcdwright.engine.facts;

/**
 * One kind of fact about a host. Every probe of a run is pasted into a single shell script so a
 * host answers all of them in one SSH round trip; that is what keeps fact gathering fast (the
 * tools we compete with spend most of their time here).
 *
 * @param <T> the parsed, immutable facts (a record)
 */
public interface Probe<T> {
    /** A short identifier, also the key under which the facts appear in JSON output. */
    String name();

    /**
     * A POSIX sh fragment that prints this probe's raw output on stdout. It runs in its own
     * subshell with stdin closed, so it may exit early or fail without harming other probes.
     * It is fixed program text: every value it needs (a path, a port) comes from
     * {@link #arguments()}, which the fragment sees as {@code "$1"}..{@code "$N"} and {@code "$@"}.
     */
    String script();

    /** The values the script reads as its positional parameters; none by default. */
    default java.util.List<String> arguments() {
        return java.util.List.of();
    }

    /**
     * What facts recorded before this probe existed are read as (their recording has no output
     * for it); empty: such a recording is refused, and must be made again.
     */
    default java.util.Optional<String> outputWhenNotRecorded() {
        return java.util.Optional.empty();
    }

    /**
     * The systemd units whose properties the script reads, and which: the facts script asks systemd
     * once for every probe's units ({@code systemctl show}, a process and a D-Bus round trip, about
     * 15 ms of a host's CPU each time), and the script reads them with
     * {@code unit_show UNIT PROPERTY,...}, which prints what {@code systemctl show UNIT -p PROPERTY,...}
     * would. None by default.
     */
    default java.util.List<UnitProperties> units() {
        return java.util.List.of();
    }

    /** A unit and the properties of it a probe reads. */
    record UnitProperties(String unit, java.util.List<String> properties) {
        public UnitProperties {
            properties = java.util.List.copyOf(properties);
        }
    }

    /** Turns the raw output into facts. Pure: no I/O. */
    T parse(String output);
}
