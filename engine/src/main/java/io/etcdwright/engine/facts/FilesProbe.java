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
     * their position in {@link #paths()} ("@file N" before what belongs to the file), so no path
     * (whatever characters it holds) is ever printed back into the output that {@link #parse} reads.
     *
     * <p>Every process the facts script starts is about a millisecond of the host's CPU, on every
     * host of every plan, so the files are asked in bulk: one stat for all that exist and one
     * sha256sum for the digest-only ones, their lines numbered by the shell's own loop (not awk);
     * one base64 a file whose text is read, which the workstation hashes itself. A file's lines may so come in more than one
     * "@file N" block. Should a file go between the test and stat or sha256sum (their lines would
     * no longer follow the numbers), each file is asked on its own instead. {@code next_file} takes
     * the next number off a list of them ($j) into $n, in the shell itself.
     */
    private static final String SCRIPT = """
            c=$# i=0 k= x= y= z=
            for a do
              if [ -z "$k" ]; then k=$a; continue; fi
              if [ -f "$a" ]; then set -- "$@" "$a"; x="$x $i"; [ "$k" = content ] && y="$y $i" || z="$z $i"; fi
              i=$((i+1)) k=
            done
            shift "$c"
            next_file() { j=${j# }; n=${j%% *}; j=${j#* }; }
            number() { j=$1; while IFS= read -r l; do next_file; echo "@file $n"
              if [ "$2" = sha256= ]; then l=${l%% *}; l=${l#\\\\}; fi; printf '%s%s\\n' "$2" "$l"; done; }
            if [ "$#" -gt 0 ]; then
              if m=$(stat -c 'meta=%a %U %G %.6Y' -- "$@" 2>/dev/null); then
                number "$x" "" <<etcdwright_end
            $m
            etcdwright_end
              else
                j=$x; for p do next_file; echo "@file $n"; stat -c 'meta=%a %U %G %.6Y' -- "$p" 2>/dev/null; done
              fi
              j=$x d=0; for p do next_file
                case " $y " in *" $n "*) echo "@file $n"; printf 'content='; base64 -w0 < "$p"; echo ;; *) set -- "$@" "$p"; d=$((d+1)) ;; esac
              done
              shift $(($# - d))
              if [ "$d" -eq 0 ]; then :
              elif h=$(sha256sum -- "$@" 2>/dev/null); then
                number "$z" sha256= <<etcdwright_end
            $h
            etcdwright_end
              else
                j=$z; for p do next_file; echo "@file $n"; printf 'sha256='; sha256sum < "$p"; done
              fi
            fi
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

    /**
     * What the output says of each file, across all of its "@file N" blocks: the bulk script gives
     * a file's meta, digest and text in separate blocks, earlier recordings in one. A file exists
     * when its meta was seen; a file whose text was read and no digest printed is hashed here.
     */
    @Override
    public Map<String, FileState> parse(String output) {
        Map<String, Seen> seen = new LinkedHashMap<>();
        Seen current = null;
        for (String line : output.split("\n")) {
            if (line.startsWith("@file ")) {
                String path = pathAt(line.substring(6).strip());
                current = path == null ? null : seen.computeIfAbsent(path, p -> new Seen());
            } else if (current == null) {
                continue;
            } else if (line.startsWith("meta=")) {
                String[] parts = line.substring(5).strip().split(" ");
                if (parts.length == 4) {
                    current.meta = parts;
                }
            } else if (line.startsWith("sha256=")) {
                // "sha256=HASH  -" as sha256sum prints it for its input, "sha256=HASH" from the bulk script
                current.sha = line.substring(7).strip().split("\\s+")[0];
            } else if (line.startsWith("content=")) {
                try {
                    current.content = Base64.getDecoder().decode(line.substring(8).strip());
                } catch (IllegalArgumentException e) {
                    current.content = null;
                }
            }
        }
        Map<String, FileState> files = new LinkedHashMap<>();
        for (String path : paths) {
            Seen s = seen.get(path);
            if (s == null || s.meta == null) {
                files.put(path, FileState.missing(path));
                continue;
            }
            String sha = s.sha.isEmpty() && s.content != null ? io.etcdwright.engine.ssh.HostSession.sha256(s.content) : s.sha;
            Optional<String> content = s.content == null ? Optional.empty() : Optional.of(new String(s.content, StandardCharsets.UTF_8));
            files.put(path, new FileState(path, true, sha, s.meta[0], s.meta[1], s.meta[2], micros(s.meta[3]), content));
        }
        return java.util.Collections.unmodifiableMap(files);
    }

    /** One file's lines so far. */
    private static final class Seen {
        String[] meta;
        String sha = "";
        byte[] content;
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
