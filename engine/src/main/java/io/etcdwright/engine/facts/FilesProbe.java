package io.etcdwright.engine.facts;

import io.etcdwright.engine.ssh.Shell;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Digest, mode and ownership of a set of files; the text of those named in {@code readContent}.
 * Secrets are probed by digest only: their bytes never leave the host.
 */
public record FilesProbe(String name, List<String> paths, Set<String> readContent)
        implements Probe<Map<String, FileState>> {

    @Override
    public String script() {
        StringBuilder s = new StringBuilder();
        for (String path : paths) {
            String q = Shell.quote(path);
            s.append("echo '@file ").append(path).append("'\n")
                    .append("if [ -f ").append(q).append(" ]; then\n")
                    .append("  stat -c 'meta=%a %U %G %.6Y' ").append(q).append("\n")
                    .append("  echo \"sha256=$(sha256sum < ").append(q).append(" | cut -d' ' -f1)\"\n");
            if (readContent.contains(path)) {
                s.append("  echo \"content=$(base64 -w0 < ").append(q).append(")\"\n");
            }
            s.append("fi\n");
        }
        return s.toString();
    }

    @Override
    public Map<String, FileState> parse(String output) {
        Map<String, FileState> files = new LinkedHashMap<>();
        paths.forEach(p -> files.put(p, FileState.missing(p)));
        String path = null;
        String[] meta = null;
        String sha = "";
        Optional<String> content = Optional.empty();
        for (String line : (output + "@file \n").split("\n")) {
            if (line.startsWith("@file ")) {
                if (path != null && meta != null && files.containsKey(path)) {
                    files.put(path, new FileState(path, true, sha, meta[0], meta[1], meta[2], micros(meta[3]), content));
                }
                path = line.substring(6).strip();
                meta = null;
                sha = "";
                content = Optional.empty();
            } else if (line.startsWith("meta=")) {
                String[] parts = line.substring(5).strip().split(" ");
                if (parts.length == 4) {
                    meta = parts;
                }
            } else if (line.startsWith("sha256=")) {
                sha = line.substring(7).strip();
            } else if (line.startsWith("content=")) {
                try {
                    content = Optional.of(new String(Base64.getDecoder().decode(line.substring(8).strip()),
                            StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    content = Optional.empty();
                }
            }
        }
        return java.util.Collections.unmodifiableMap(files);
    }

    /** "1795297500.520641" (stat's %.6Y) to microseconds. */
    public static long micros(String secondsWithFraction) {
        try {
            return new java.math.BigDecimal(secondsWithFraction).movePointRight(6).longValue();
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
