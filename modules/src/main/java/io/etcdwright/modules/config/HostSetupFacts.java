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
 */
public record HostSetupFacts(boolean userExists, Map<String, String> dirs) {

    /** The directories are the arguments. */
    private static final String SCRIPT = "id -u " + EtcdLayout.USER + " >/dev/null 2>&1 && echo user=1\n"
            + "for d do [ -d \"$d\" ] && stat -c 'dir=%n %a %U %G' -- \"$d\"; done\n"
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
                for (String line : output.split("\n")) {
                    if (line.equals("user=1")) {
                        user = true;
                    } else if (line.startsWith("dir=")) {
                        String[] parts = line.substring(4).split(" ");
                        if (parts.length == 4) {
                            dirs.put(parts[0], Integer.toOctalString(Integer.parseInt(parts[1], 8)) + " " + parts[2] + " " + parts[3]);
                        }
                    }
                }
                return new HostSetupFacts(user, Map.copyOf(dirs));
            }
        };
    }
}
