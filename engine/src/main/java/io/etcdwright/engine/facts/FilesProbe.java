package io.etcdwright.engine.facts;

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

    /**
     * For each file two arguments: "content" or "digest", then its path. Files are reported by
     * their position in {@link #paths()}, so no path (whatever characters it holds) is ever
     * printed back into the output that {@link #parse} reads.
     */
    private static final String SCRIPT = """
            i=0
            while [ "$#" -ge 2 ]; do
              read_content=$1 p=$2; shift 2
              echo "@file $i"; i=$((i+1))
              if [ -f "$p" ]; then
                stat -c 'meta=%a %U %G %.6Y' -- "$p"
                printf 'sha256='; sha256sum < "$p"
                if [ "$read_content" = content ]; then printf 'content='; base64 -w0 < "$p"; echo; fi
              fi
            done
            true
            """;

    @Override
    public String script() {
        return SCRIPT;
    }

    @Override
    public List<String> arguments() {
        List<String> args = new java.util.ArrayList<>();
        for (String path : paths) {
            args.add(readContent.contains(path) ? "content" : "digest");
            args.add(path);
        }
        return List.copyOf(args);
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
                path = pathAt(line.substring(6).strip());
                meta = null;
                sha = "";
                content = Optional.empty();
            } else if (line.startsWith("meta=")) {
                String[] parts = line.substring(5).strip().split(" ");
                if (parts.length == 4) {
                    meta = parts;
                }
            } else if (line.startsWith("sha256=")) {
                // "sha256=HASH  -" as sha256sum prints it (no subshell on the host to cut it)
                sha = line.substring(7).strip().split("\\s+")[0];
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

    private String pathAt(String index) {
        try {
            int i = Integer.parseInt(index);
            return i >= 0 && i < paths.size() ? paths.get(i) : null;
        } catch (NumberFormatException e) {
            return null;
        }
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
