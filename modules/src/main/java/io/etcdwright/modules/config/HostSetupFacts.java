package io.etcdwright.modules.config;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The etcd system user and the directories etcd needs, with their modes and owners.
 *
 * @param userExists the {@code etcd} system user exists
 * @param dirs       path -> "mode owner group", for the directories that exist
 * @param mixedOwners directories holding something not owned by the directory's owner (a data
 *                    directory written by an etcd that ran as root before etcdwright took it over)
 */
public record HostSetupFacts(boolean userExists, Map<String, String> dirs, java.util.Set<String> mixedOwners) {

    public HostSetupFacts {
        dirs = Map.copyOf(dirs);
        mixedOwners = java.util.Set.copyOf(mixedOwners);
    }

    public HostSetupFacts(boolean userExists, Map<String, String> dirs) {
        this(userExists, dirs, java.util.Set.of());
    }

    /** The directories are the arguments. */
    private static final String SCRIPT = "id -u " + EtcdLayout.USER + " >/dev/null 2>&1 && echo user=1\n"
            // One stat for every directory there is, a line each in their order (one a directory
            // when that fails: one went meanwhile); each owner cut from its line by the shell (owner
            // names hold no spaces). Every process here is about a millisecond of the host's CPU.
            + "c=$#; for d do [ -d \"$d\" ] && set -- \"$@\" \"$d\"; done; shift \"$c\"\n"
            + "nl='\n'; if [ \"$#\" -gt 0 ] && m=$(stat -c '%a %U %G' -- \"$@\" 2>/dev/null); then m=$m$nl; else m=; fi\n"
            + "for d do\n"
            + "  if [ -n \"$m\" ]; then l=${m%%\"$nl\"*}; m=${m#*\"$nl\"}; else l=$(stat -c '%a %U %G' -- \"$d\") || continue; fi\n"
            + "  echo \"dir=$d $l\"\n"
            + "  o=${l#* }; o=${o%% *}; [ -z \"$(find \"$d\" -xdev ! -user \"$o\" -print -quit 2>/dev/null)\" ] || echo \"mixed=$d\"\n"
            + "done\n"
            + "true\n";

    public static Probe<HostSetupFacts> probe(EtcdLayout layout) {
        return new Probe<>() {
            @Override
            public String name() {
                return "etcd_host_setup";
            }

            @Override
            public String script() {
                return SCRIPT;
            }

            @Override
            public java.util.List<String> arguments() {
                return java.util.List.copyOf(HostSetup.directories(layout).keySet());
            }

            @Override
            public HostSetupFacts parse(String output) {
                boolean user = false;
                Map<String, String> dirs = new LinkedHashMap<>();
                java.util.Set<String> mixed = new java.util.LinkedHashSet<>();
                for (String line : output.split("\n")) {
                    if (line.equals("user=1")) {
                        user = true;
                    } else if (line.startsWith("mixed=")) {
                        mixed.add(line.substring(6));
                    } else if (line.startsWith("dir=")) {
                        String[] parts = line.substring(4).split(" ");
                        if (parts.length == 4) {
                            dirs.put(parts[0], Integer.toOctalString(Integer.parseInt(parts[1], 8)) + " " + parts[2] + " " + parts[3]);
                        }
                    }
                }
                return new HostSetupFacts(user, dirs, mixed);
            }
        };
    }
}
