package io.etcdwright.engine.facts;

/**
 * What any host-managing tool needs to know about a machine. (The clock is read by the facts
 * script itself: see {@link HostFacts#clockSkewMillis()}.)
 */
public record SystemFacts(String hostname, String os, String osId, String osVersion, String kernel,
                          String architecture, String initSystem, long uptimeSeconds, int cpus, long memoryBytes) {

    /** Probes the basics; architecture in the form release artifacts use (amd64, arm64). */
    public static final Probe<SystemFacts> PROBE = new Probe<>() {
        @Override
        public String name() {
            return "system";
        }

        @Override
        public String script() {
            // Shell built-ins where they do (read, parameter expansion): every process the facts
            // script starts is about a millisecond of the host's CPU, on every host of every plan.
            return """
                    . /etc/os-release 2>/dev/null
                    echo "os=${PRETTY_NAME:-unknown}"
                    echo "os_id=${ID:-unknown}"
                    echo "os_version=${VERSION_ID:-}"
                    read -r v </proc/sys/kernel/hostname; echo "hostname=$v"
                    set -- $(uname -rm); echo "kernel=$1"; echo "machine=$2"
                    read -r v </proc/1/comm; echo "init=$v"
                    read -r v _ </proc/uptime; echo "uptime=${v%%.*}"
                    echo "cpus=$(nproc)"
                    while read -r k v _; do [ "$k" = MemTotal: ] && echo "mem_kb=$v" && break; done </proc/meminfo
                    """;
        }

        @Override
        public SystemFacts parse(String output) {
            KeyValues kv = KeyValues.parse(output);
            return new SystemFacts(kv.getOr("hostname", ""), kv.getOr("os", "unknown"), kv.getOr("os_id", "unknown"),
                    kv.getOr("os_version", ""), kv.getOr("kernel", ""), architecture(kv.getOr("machine", "")),
                    kv.getOr("init", "unknown"),
                    kv.getLong("uptime").orElse(0L), kv.getLong("cpus").orElse(0L).intValue(),
                    kv.getLong("mem_kb").orElse(0L) * 1024);
        }
    };

    static String architecture(String machine) {
        return switch (machine) {
            case "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "ppc64le" -> "ppc64le";
            case "s390x" -> "s390x";
            default -> machine.isEmpty() ? "unknown" : machine;
        };
    }
}
