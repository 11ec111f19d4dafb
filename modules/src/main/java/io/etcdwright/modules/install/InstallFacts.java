package io.etcdwright.modules.install;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which etcd releases a host has and which one is active.
 *
 * @param installedVersions versions unpacked under /opt/etcd, whatever is active
 * @param activeVersion     the version /usr/local/bin/etcd points at
 * @param etcdVersion       what the active etcd binary says it is (trust the binary, not the path)
 * @param etcdctlVersion    what etcdctl says
 * @param etcdutlVersion    what etcdutl says (3.5 and later)
 */
public record InstallFacts(List<String> installedVersions, Optional<String> activeVersion,
                           Optional<String> etcdVersion, Optional<String> etcdctlVersion,
                           Optional<String> etcdutlVersion) {

    public static final Probe<InstallFacts> PROBE = new Probe<>() {
        @Override
        public String name() {
            return "etcd_install";
        }

        @Override
        public String script() {
            String root = EtcdLayout.INSTALL_ROOT;
            String bin = EtcdLayout.LINK_DIR;
            return "for d in " + root + "/v*; do [ -x \"$d/etcd\" ] && echo \"installed=${d##*/v}\"; done\n"
                    // A binary is asked its version only when its link leaves the versioned
                    // directories: one there was run and checked when it was installed, and
                    // starting three Go programs on every host of every plan was most of this
                    // probe's time. A running member's own version also comes in its status.
                    // The three links are read by one readlink when all three are links whose
                    // targets are one word each (as etcdwright makes them), else one at a time.
                    + "set --; if [ -L " + bin + "/etcd ] && [ -L " + bin + "/etcdctl ] && [ -L " + bin + "/etcdutl ]; then\n"
                    + "  set -f; set -- $(readlink -- " + bin + "/etcd " + bin + "/etcdctl " + bin + "/etcdutl); set +f\n"
                    + "fi\n"
                    + "k=$#\n"
                    + "for b in etcd etcdctl etcdutl; do\n"
                    + "  if [ \"$k\" -eq 3 ]; then l=$1; shift; else l=$(readlink " + bin + "/$b); fi\n"
                    + "  [ \"$b\" = etcd ] && echo \"active=$l\"\n"
                    + "  [ -x " + bin + "/$b ] || continue\n"
                    + "  case $l in\n"
                    + "    " + root + "/v*/\"$b\") echo \"$b=$l\" ;;\n"
                    + "    *) if [ \"$b\" = etcd ]; then a=--version; else a=version; fi\n"
                    + "       echo \"$b=$(" + bin + "/$b \"$a\" 2>/dev/null | head -n1)\" ;;\n"
                    + "  esac\n"
                    + "done\n"
                    + "true";
        }

        @Override
        public InstallFacts parse(String output) {
            List<String> installed = new ArrayList<>();
            Optional<String> active = Optional.empty();
            Optional<String> etcd = Optional.empty();
            Optional<String> etcdctl = Optional.empty();
            Optional<String> etcdutl = Optional.empty();
            for (String line : output.split("\n")) {
                int eq = line.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String key = line.substring(0, eq);
                String value = line.substring(eq + 1).strip();
                switch (key) {
                    case "installed" -> installed.add(value);
                    case "active" -> active = versionFromPath(value);
                    case "etcd" -> etcd = versionIn(value);
                    case "etcdctl" -> etcdctl = versionIn(value);
                    case "etcdutl" -> etcdutl = versionIn(value);
                    default -> { }
                }
            }
            return new InstallFacts(List.copyOf(installed), active, etcd, etcdctl, etcdutl);
        }
    };

    private static final Pattern VERSION = Pattern.compile("(\\d+\\.\\d+\\.\\d+)");
    private static final Pattern VERSION_DIR = Pattern.compile("/v(\\d+\\.\\d+\\.\\d+)/");

    static Optional<String> versionIn(String text) {
        Matcher m = VERSION.matcher(text);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    static Optional<String> versionFromPath(String linkTarget) {
        Matcher m = VERSION_DIR.matcher(linkTarget);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    public boolean hasInstalled(String version) {
        return installedVersions.contains(version);
    }

    /** The desired version is what the binaries themselves report, not just what a link says. */
    public boolean isActive(String version) {
        return activeVersion.filter(version::equals).isPresent()
                && etcdVersion.filter(version::equals).isPresent()
                && etcdctlVersion.filter(version::equals).isPresent();
    }
}
