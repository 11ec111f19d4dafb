package io.etcdwright.engine.facts;

import io.etcdwright.engine.ssh.RemoteCommand;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds the one script that runs every probe on a host, and splits its output back apart. */
final class FactsScript {
    private static final String MARK = "@@etcdwright-probe ";
    static final String CLOCK = "@@etcdwright-clock ";

    private FactsScript() {
    }

    /**
     * Every probe's fragment, in order, and every probe's arguments as the script's own: for each
     * probe its argument count, then its arguments. Each fragment runs in a subshell that keeps
     * exactly its own arguments as "$@", so the text of the script depends only on which probes
     * run, never on the values they are given.
     */
    static RemoteCommand command(List<? extends Probe<?>> probes) {
        StringBuilder script = new StringBuilder("export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n");
        List<String> args = new ArrayList<>();
        // Every probe's systemd units, asked of systemd once: the properties, then the unit names.
        Set<String> units = new LinkedHashSet<>();
        Set<String> properties = new LinkedHashSet<>(List.of("Id"));
        for (Probe<?> probe : probes) {
            for (Probe.UnitProperties unit : probe.units()) {
                units.add(unit.unit());
                properties.addAll(unit.properties());
            }
        }
        args.add(String.join(",", properties));
        args.add(Integer.toString(units.size()));
        args.addAll(units);
        script.append(UNITS);
        for (Probe<?> probe : probes) {
            List<String> own = probe.arguments();
            args.add(Integer.toString(own.size()));
            args.addAll(own);
            script.append("echo '").append(MARK).append(probe.name()).append("'\n")
                    .append(OWN_ARGUMENTS)
                    .append("(\n").append(KEEP_OWN_ARGUMENTS).append(probe.script()).append("\n) </dev/null 2>/dev/null\n")
                    .append("shift \"$n\"\n");
        }
        // Read the clock last, so the only delay between it and the workstation's clock is the
        // trip back; the skew then reflects the clocks, not the probes' running time.
        script.append("echo \"").append(CLOCK).append("$(date +%s%3N)\"\n");
        return new RemoteCommand.StdinScript(script.toString(), args);
    }

    /**
     * $1 the properties to ask (comma-separated), $2 the number of units, then their names:
     * {@code systemctl show} of all of them at once, each line of its answer kept in
     * {@code etcdwright_units} after its unit's name ({@code etcd.service ActiveState=active}; one
     * awk, {@code units_by_id}, reads the blocks, one a unit, apart by empty lines, and finds each
     * block's {@code Id=}), and {@code unit_show UNIT PROPERTY,... [PREFIX]} for the probes, which
     * prints that unit's lines of those properties as {@code systemctl show UNIT -p ...} does, each
     * after PREFIX. unit_show is the shell's own loop over those lines, with no process of its own;
     * it was an awk at every call, eight a host and plan, and the facts script's time on a host is
     * mostly the processes it starts. Its variables are prefixed because it runs inside the
     * probes' own code, and it gives back IFS and globbing as it found them. Without systemd it
     * prints nothing, as systemctl did.
     */
    private static final String UNITS = """
            units_by_id() { awk 'BEGIN { RS = ""; FS = "\\n" }
              { id = ""; for (i = 1; i <= NF; i++) if ($i ~ /^Id=/) id = substr($i, 4)
                for (i = 1; i <= NF; i++) print id " " $i }'; }
            p=$1 n=$2; shift 2
            etcdwright_units=$(c=$# i=0
              for a do [ "$i" -lt "$n" ] && set -- "$@" "$a"; i=$((i+1)); done
              shift "$c"
              [ "$#" -gt 0 ] && systemctl show --timestamp=us+utc -p "$p" -- "$@" 2>/dev/null | units_by_id)
            shift "$n"
            unit_show() {
              etcdwright_ifs=$IFS; IFS='
            '; set -f
              for etcdwright_line in $etcdwright_units; do
                case $etcdwright_line in "$1 "*)
                  etcdwright_line=${etcdwright_line#"$1 "}
                  case ",$2," in *",${etcdwright_line%%=*},"*) printf '%s%s\\n' "$3" "$etcdwright_line" ;; esac ;;
                esac
              done
              IFS=$etcdwright_ifs; set +f
            }
            """;

    /** Takes this probe's argument count off the front. */
    private static final String OWN_ARGUMENTS = "n=$1; shift\n";

    /**
     * Keeps only the first $n arguments: "for a do" walks the arguments as they were when it
     * started, appending the first $n, then the originals are shifted away.
     */
    private static final String KEEP_OWN_ARGUMENTS = "c=$# i=0\nfor a do [ \"$i\" -lt \"$n\" ] && set -- \"$@\" \"$a\"; i=$((i+1)); done\nshift \"$c\"\n";

    /** Raw output per probe name; a probe whose section is missing gets no entry. */
    static Map<String, String> split(String output) {
        Map<String, String> sections = new HashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : output.split("\n", -1)) {
            if (line.startsWith(CLOCK)) {
                sections.put(CLOCK, line.substring(CLOCK.length()).strip());
                continue;
            }
            if (line.startsWith(MARK)) {
                if (current != null) {
                    sections.put(current, body.toString());
                }
                current = line.substring(MARK.length()).strip();
                body.setLength(0);
            } else if (current != null) {
                body.append(line).append('\n');
            }
        }
        if (current != null) {
            sections.put(current, body.toString());
        }
        return sections;
    }
}
