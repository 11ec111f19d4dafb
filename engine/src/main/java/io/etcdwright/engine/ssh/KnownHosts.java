package io.etcdwright.engine.ssh;

import com.jcraft.jsch.HostKey;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.UserInfo;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An OpenSSH known_hosts file, read the way OpenSSH reads it (plain and hashed names,
 * {@code [host]:port}, wildcards, negations, {@code @revoked}).
 *
 * <p>We check keys ourselves instead of using JSch's KnownHosts because the policy matters more
 * than the parsing: an unknown key is refused unless trust on first use was asked for, and a
 * changed or revoked key is refused always. JSch's "no" mode would silently replace a changed
 * key, which is exactly the attack host-key checking exists to stop.
 */
public final class KnownHosts {
    /** What the file says about a key a host presented. */
    public enum Verdict { KNOWN, UNKNOWN, CHANGED, REVOKED }

    private record Entry(String marker, List<String> patterns, String keyType, byte[] key) {}

    private static final Object FILE_LOCK = new Object();

    private final Path file;
    private final List<Entry> entries;

    private KnownHosts(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** Reads the file; a missing file is an empty one (every host is then unknown). */
    public static KnownHosts read(Path file) {
        List<Entry> entries = new ArrayList<>();
        if (Files.exists(file)) {
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    parseLine(line.strip(), entries);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read known_hosts file " + file + ": " + e.getMessage(), e);
            }
        }
        return new KnownHosts(file, List.copyOf(entries));
    }

    public Path file() {
        return file;
    }

    private static void parseLine(String line, List<Entry> into) {
        if (line.isEmpty() || line.startsWith("#")) {
            return;
        }
        String[] fields = line.split("\\s+");
        int i = 0;
        String marker = null;
        if (fields[0].startsWith("@")) {
            marker = fields[0];
            i = 1;
        }
        if (fields.length < i + 3) {
            return;
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(fields[i + 2]);
        } catch (IllegalArgumentException e) {
            return; // OpenSSH skips lines it cannot decode too
        }
        into.add(new Entry(marker, List.of(fields[i].split(",")), fields[i + 1], key));
    }

    /** The key types recorded for a host, so the handshake can ask for one of those first. */
    public Set<String> keyTypesFor(String knownHostsName) {
        Set<String> types = new LinkedHashSet<>();
        for (Entry e : entries) {
            if (e.marker() == null && matches(e, knownHostsName)) {
                types.add(e.keyType());
            }
        }
        return types;
    }

    public Verdict check(String knownHostsName, byte[] presentedKey) {
        String presentedType = keyType(presentedKey);
        boolean hostKnown = false;
        boolean sameTypeDifferentKey = false;
        for (Entry e : entries) {
            if (!matches(e, knownHostsName)) {
                continue;
            }
            if ("@revoked".equals(e.marker())) {
                if (Arrays.equals(e.key(), presentedKey)) {
                    return Verdict.REVOKED;
                }
                continue;
            }
            if (e.marker() != null) {
                continue; // @cert-authority lines: host certificates are not used here
            }
            hostKnown = true;
            if (Arrays.equals(e.key(), presentedKey)) {
                return Verdict.KNOWN;
            }
            if (e.keyType().equals(presentedType)) {
                sameTypeDifferentKey = true;
            }
        }
        if (sameTypeDifferentKey) {
            return Verdict.CHANGED;
        }
        // Known under another key type only: OpenSSH refuses that too, and so do we.
        return hostKnown ? Verdict.CHANGED : Verdict.UNKNOWN;
    }

    /** Records a host's key (trust on first use); safe when several hosts connect at once. */
    public void append(String knownHostsName, byte[] key) {
        String line = knownHostsName + " " + keyType(key) + " " + Base64.getEncoder().encodeToString(key) + "\n";
        synchronized (FILE_LOCK) {
            try {
                Path parent = file.toAbsolutePath().getParent();
                if (parent != null && !Files.isDirectory(parent)) {
                    Files.createDirectories(parent, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
                }
                Files.writeString(file, line, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot record host key in " + file + ": " + e.getMessage(), e);
            }
        }
    }

    static String keyType(byte[] blob) {
        if (blob.length < 4) {
            return "unknown";
        }
        int len = ((blob[0] & 0xff) << 24) | ((blob[1] & 0xff) << 16) | ((blob[2] & 0xff) << 8) | (blob[3] & 0xff);
        if (len <= 0 || 4 + len > blob.length) {
            return "unknown";
        }
        return new String(blob, 4, len, StandardCharsets.US_ASCII);
    }

    /** SHA256 fingerprint in OpenSSH's form, so operators can compare it with ssh-keygen -lf. */
    public static String fingerprint(byte[] key) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(key);
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean matches(Entry e, String host) {
        boolean positive = false;
        for (String pattern : e.patterns()) {
            boolean negated = pattern.startsWith("!");
            String p = negated ? pattern.substring(1) : pattern;
            boolean hit = p.startsWith("|1|") ? hashedMatches(p, host) : globMatches(p, host);
            if (hit && negated) {
                return false;
            }
            positive |= hit;
        }
        return positive;
    }

    private static boolean globMatches(String pattern, String host) {
        if (pattern.indexOf('*') < 0 && pattern.indexOf('?') < 0) {
            return pattern.equalsIgnoreCase(host);
        }
        StringBuilder regex = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE).matcher(host).matches();
    }

    private static boolean hashedMatches(String hashed, String host) {
        String[] parts = hashed.split("\\|");
        if (parts.length != 4) {
            return false;
        }
        try {
            byte[] salt = Base64.getDecoder().decode(parts[2]);
            byte[] expected = Base64.getDecoder().decode(parts[3]);
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(salt, "HmacSHA1"));
            return Arrays.equals(expected, mac.doFinal(host.getBytes(StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * The JSch side of one connection: remembers the verdict so the connection code can explain a
     * refusal precisely instead of parsing JSch's exception text.
     */
    final class Repository implements HostKeyRepository {
        private final boolean acceptNew;
        private volatile Verdict verdict;
        private volatile byte[] presented;

        Repository(boolean acceptNew) {
            this.acceptNew = acceptNew;
        }

        Verdict verdict() {
            return verdict;
        }

        byte[] presentedKey() {
            return presented;
        }

        @Override
        public int check(String host, byte[] key) {
            presented = key.clone();
            verdict = KnownHosts.this.check(host, key);
            return switch (verdict) {
                case KNOWN -> OK;
                case UNKNOWN -> {
                    if (acceptNew) {
                        append(host, key);
                        yield OK;
                    }
                    yield NOT_INCLUDED;
                }
                case CHANGED, REVOKED -> CHANGED;
            };
        }

        @Override
        public void add(HostKey hostkey, UserInfo ui) {
            // JSch only calls this in its own trust-on-first-use mode, which we never enable.
        }

        @Override
        public void remove(String host, String type) {
        }

        @Override
        public void remove(String host, String type, byte[] key) {
        }

        @Override
        public String getKnownHostsRepositoryID() {
            return file.toString();
        }

        @Override
        public HostKey[] getHostKey() {
            return new HostKey[0];
        }

        @Override
        public HostKey[] getHostKey(String host, String type) {
            List<HostKey> keys = new ArrayList<>();
            for (Entry e : entries) {
                if (e.marker() == null && matches(e, host) && (type == null || type.equals(e.keyType()))) {
                    try {
                        keys.add(new HostKey(host, e.key()));
                    } catch (JSchException ignored) {
                        // a key type JSch does not know cannot be used for the handshake anyway
                    }
                }
            }
            return keys.toArray(new HostKey[0]);
        }
    }

    Repository repository(boolean acceptNew) {
        return new Repository(acceptNew);
    }
}
