package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.Probe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Private key files on a host, without their bytes ever leaving it: whether each exists, its mode
 * and owner, and the SHA-256 of its <em>public</em> half as {@code openssl pkey -pubout -outform DER}
 * derives it on the host (the DER SubjectPublicKeyInfo, the same bytes a certificate carries, so
 * the workstation compares it with the certificate's public key). Without openssl on the host, or
 * with a key openssl cannot read, the pair is "not checked", never guessed.
 */
public record KeyFilesProbe(String name, List<String> paths) implements Probe<Map<String, KeyFilesProbe.KeyFile>> {

    /**
     * A key file as the host saw it.
     *
     * @param publicKeySha256 lower-case hex SHA-256 of the DER public key; empty when not checked
     * @param notChecked      why the public key was not derived ("openssl is not installed on the host", ...)
     */
    public record KeyFile(String path, boolean exists, String mode, String owner, String group,
                          Optional<String> publicKeySha256, Optional<String> notChecked) {
        static KeyFile missing(String path) {
            return new KeyFile(path, false, "", "", "", Optional.empty(), Optional.empty());
        }
    }

    /** sha256sum of no bytes: what the pipeline prints when openssl wrote nothing. */
    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /** Keys are reported by their position in {@link #paths()}: no path is printed back. */
    private static final String SCRIPT = """
            i=0
            have_openssl=no
            command -v openssl >/dev/null 2>&1 && have_openssl=yes
            for k do
              echo "@key $i"; i=$((i+1))
              [ -f "$k" ] || continue
              stat -c 'meta=%a %U %G' -- "$k"
              if [ "$have_openssl" = yes ]; then
                d=$(openssl pkey -in "$k" -pubout -outform DER 2>/dev/null | sha256sum)
                echo "public=${d%% *}"
              else
                echo "public=no-openssl"
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
        return paths;
    }

    @Override
    public Map<String, KeyFile> parse(String output) {
        Map<String, KeyFile> keys = new LinkedHashMap<>();
        paths.forEach(p -> keys.put(p, KeyFile.missing(p)));
        String path = null;
        String[] meta = null;
        String pub = "";
        for (String line : (output + "\n@key \n").split("\n")) {
            if (line.startsWith("@key ")) {
                if (path != null && meta != null) {
                    keys.put(path, keyFile(path, meta, pub));
                }
                path = pathAt(line.substring(5).strip());
                meta = null;
                pub = "";
            } else if (line.startsWith("meta=")) {
                String[] parts = line.substring(5).strip().split(" ");
                meta = parts.length == 3 ? parts : null;
            } else if (line.startsWith("public=")) {
                pub = line.substring(7).strip();
            }
        }
        return Collections.unmodifiableMap(keys);
    }

    private static KeyFile keyFile(String path, String[] meta, String pub) {
        String mode = meta[0].length() == 3 ? "0" + meta[0] : meta[0];
        if (pub.equals("no-openssl")) {
            return new KeyFile(path, true, mode, meta[1], meta[2], Optional.empty(),
                    Optional.of("openssl is not installed on the host"));
        }
        if (pub.isEmpty() || pub.equals(EMPTY_SHA256) || !pub.matches("[0-9a-f]{64}")) {
            return new KeyFile(path, true, mode, meta[1], meta[2], Optional.empty(),
                    Optional.of("openssl on the host could not read the key"));
        }
        return new KeyFile(path, true, mode, meta[1], meta[2], Optional.of(pub), Optional.empty());
    }

    private String pathAt(String index) {
        try {
            int i = Integer.parseInt(index);
            return i >= 0 && i < paths.size() ? paths.get(i) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
