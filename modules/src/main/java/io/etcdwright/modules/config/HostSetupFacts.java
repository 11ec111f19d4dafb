package io.etcdwright.modules.config;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.ssh.Shell;
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

    public static Probe<HostSetupFacts> probe(EtcdLayout layout) {
        return new Probe<>() {
            @Override
            public String name() {
                return "etcd_host_setup";
            }

            @Override
            public String script() {
                StringBuilder s = new StringBuilder("id -u " + EtcdLayout.USER + " >/dev/null 2>&1 && echo user=1\n");
                for (String dir : HostSetup.directories(layout).keySet()) {
                    s.append("[ -d ").append(Shell.quote(dir)).append(" ] && stat -c 'dir=%n %a %U %G' ")
                            .append(Shell.quote(dir)).append("\n");
                }
                return s.append("true\n").toString();
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
