package io.etcdwright.modules.monitoring;

import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a member's host has of the certificate expiry metrics: the job's timer and run records, and
 * whether its textfile is as new as the certificates ({@link Freshness}).
 */
public record CertificateMetricsFacts(ScheduleHostFacts timer, Freshness freshness) {
    public static final CertificateMetricsFacts UNKNOWN = new CertificateMetricsFacts(
            CertificateMetricsJob.TIMER_PROBE.parse(""), Freshness.parse(""));

    /**
     * @param probed          false for facts recorded before this was asked: nothing is known
     * @param textfileMtime   the textfile's modification time (seconds since the epoch) in the
     *                        directory the host's job configuration names; empty when it is not there
     * @param newestCertificate the newest modification time of a certificate in the PKI directory
     */
    public record Freshness(boolean probed, OptionalLong textfileMtime, long newestCertificate) {
        /** Why the textfile must be written again; empty when it is current (or nothing is known). */
        public Optional<String> staleness(String textfile) {
            if (!probed) {
                return Optional.empty();
            }
            if (textfileMtime.isEmpty()) {
                return Optional.of(textfile + " missing");
            }
            if (textfileMtime.getAsLong() < newestCertificate) {
                return Optional.of("a certificate changed since " + textfile + " was written");
            }
            return Optional.empty();
        }

        public String observed() {
            return "textfile=" + (textfileMtime.isPresent() ? textfileMtime.getAsLong() : "-") + ";certificates=" + newestCertificate;
        }

        static Freshness parse(String output) {
            KeyValues kv = KeyValues.parse(output);
            return new Freshness(kv.isTrue("probed"), kv.getLong("textfile_mtime").map(OptionalLong::of).orElse(OptionalLong.empty()),
                    kv.getLong("newest_certificate_mtime").orElse(0L));
        }
    }

    /**
     * $1 the job's configuration (its TEXTFILE_DIR line read as data, used only when absolute), $2 the
     * textfile's name, $3 the PKI directory. The configuration is read and the certificates' times
     * asked by the shell and one stat: every process the facts script starts is about a millisecond
     * of the host's CPU, on every host of every plan.
     */
    private static final String SCRIPT = """
            echo probed=1
            dir=
            [ -f "$1" ] && while IFS= read -r l; do case $l in TEXTFILE_DIR=*) dir=${l#TEXTFILE_DIR=}; break ;; esac; done <"$1"
            case $dir in /*) [ -f "$dir/$2" ] && echo "textfile_mtime=$(stat -c %Y -- "$dir/$2")" ;; esac
            newest=0
            set -- "$3"/*.crt
            [ -e "$1" ] && for t in $(stat -c %Y -- "$@" 2>/dev/null); do [ "$t" -gt "$newest" ] && newest=$t; done
            echo "newest_certificate_mtime=$newest"
            true
            """;

    static Probe<Freshness> probe(String conf, String textfile, String pkiDir) {
        return new Probe<>() {
            @Override
            public String name() {
                return "cert_metrics_freshness";
            }

            @Override
            public String script() {
                return SCRIPT;
            }

            @Override
            public List<String> arguments() {
                return List.of(conf, textfile, pkiDir);
            }

            @Override
            public Freshness parse(String output) {
                return Freshness.parse(output);
            }
        };
    }
}
