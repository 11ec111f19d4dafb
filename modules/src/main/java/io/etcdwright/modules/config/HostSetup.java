package io.etcdwright.modules.config;

import io.etcdwright.engine.ssh.Shell;
import io.etcdwright.modules.EtcdLayout;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The etcd user and its directories: what they should be and the script that makes them so. */
public final class HostSetup {
    private HostSetup() {
    }

    /** path -> "mode owner group" as the probe reports it. */
    public static Map<String, String> directories(EtcdLayout layout) {
        Map<String, String> dirs = new LinkedHashMap<>();
        dirs.put(EtcdLayout.CONFIG_DIR, "755 root root");
        // Group etcd may read certificates; nobody else may list them.
        dirs.put(EtcdLayout.PKI_DIR, "750 root " + EtcdLayout.USER);
        // etcd refuses a data dir others can read (it warns, then fixes to 0700 itself).
        dirs.put(layout.dataDir(), "700 " + EtcdLayout.USER + " " + EtcdLayout.USER);
        return dirs;
    }

    /** What differs, in words for a plan line; empty when nothing does. */
    public static List<String> differences(HostSetupFacts facts, EtcdLayout layout) {
        List<String> why = new ArrayList<>();
        if (!facts.userExists()) {
            why.add("user " + EtcdLayout.USER + " missing");
        }
        directories(layout).forEach((dir, want) -> {
            String have = facts.dirs().get(dir);
            if (have == null) {
                why.add(dir + " missing");
            } else if (!have.equals(want)) {
                why.add(dir + " is " + have + ", want " + want);
            }
        });
        return why;
    }

    public static String script(EtcdLayout layout) {
        StringBuilder s = new StringBuilder("set -eu\n")
                .append("getent group ").append(EtcdLayout.USER).append(" >/dev/null || groupadd --system ")
                .append(EtcdLayout.USER).append("\n")
                .append("id -u ").append(EtcdLayout.USER).append(" >/dev/null 2>&1 || useradd --system --gid ")
                .append(EtcdLayout.USER).append(" --home-dir ").append(Shell.quote(layout.dataDir()))
                .append(" --no-create-home --shell /usr/sbin/nologin ").append(EtcdLayout.USER).append("\n");
        directories(layout).forEach((dir, want) -> {
            String[] p = want.split(" ");
            String q = Shell.quote(dir);
            s.append("mkdir -p ").append(q).append("\n")
                    .append("chown ").append(p[1]).append(':').append(p[2]).append(' ').append(q).append("\n")
                    .append("chmod ").append(p[0]).append(' ').append(q).append("\n");
        });
        return s.toString();
    }
}
