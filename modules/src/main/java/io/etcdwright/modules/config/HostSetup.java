package io.etcdwright.modules.config;

import io.etcdwright.engine.ssh.RemoteCommand;
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
        if (facts.mixedOwners().contains(layout.dataDir())) {
            why.add(layout.dataDir() + " holds files not owned by " + EtcdLayout.USER + " (etcd ran as another user before):"
                    + " ownership given to " + EtcdLayout.USER + ", contents untouched");
        }
        return why;
    }

    /**
     * $1 the etcd user's home (the data directory), then for each directory four arguments:
     * path, mode, owner, group.
     */
    private static final String SCRIPT = "set -eu\n"
            + "home=$1; shift; c=\n"
            + "getent group " + EtcdLayout.USER + " >/dev/null || { groupadd --system " + EtcdLayout.USER + "; c=1; }\n"
            + "id -u " + EtcdLayout.USER + " >/dev/null 2>&1 || { useradd --system --gid " + EtcdLayout.USER
            + " --home-dir \"$home\" --no-create-home --shell /usr/sbin/nologin " + EtcdLayout.USER + "; c=1; }\n"
            + "while [ \"$#\" -ge 4 ]; do\n"
            + "  d=$1 mode=$2 owner=$3 group=$4; shift 4\n"
            + "  if [ \"$(stat -c '%a %U %G' -- \"$d\" 2>/dev/null)\" != \"$mode $owner $group\" ]; then\n"
            + "    mkdir -p -- \"$d\"\n"
            + "    chown -- \"$owner:$group\" \"$d\"\n"
            + "    chmod -- \"$mode\" \"$d\"\n"
            + "    c=1\n"
            + "  fi\n"
            // The data dir's contents too: an etcd that ran as root before leaves files etcd could not open.
            + "  if [ \"$d\" = \"$home\" ] && [ -n \"$(find \"$d\" -xdev ! -user \"$owner\" -print -quit 2>/dev/null)\" ]; then\n"
            + "    chown -R -- \"$owner:$group\" \"$d\"\n"
            + "    c=1\n"
            + "  fi\n"
            + "done\n"
            + "[ -z \"$c\" ] || echo changed\n";

    /**
     * Creates the user and group if missing, and every directory with its mode and owner; prints
     * "changed" when it had anything to do.
     */
    public static RemoteCommand command(EtcdLayout layout) {
        List<String> args = new ArrayList<>();
        args.add(layout.dataDir());
        directories(layout).forEach((dir, want) -> {
            String[] p = want.split(" ");
            args.add(dir);
            args.add(p[0]);
            args.add(p[1]);
            args.add(p[2]);
        });
        return new RemoteCommand.Script(SCRIPT, args);
    }
}
