package io.etcdwright.modules.pki;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The workstation's record of a CA rotation under way, in {@code PKI_DIR/rotation}; the directory
 * exists only while one runs. The phase recorded here is what {@code status} shows between applies;
 * the planner derives the phase from the hosts' files and checks it against the members when each
 * step runs, so a lost or stale record never decides anything on its own.
 *
 * <pre>
 * old-cas.crt          the CA certificates being replaced (public; their keys never leave the PKI directory)
 * ca-bundle.crt        old CAs then the new one: what members and clients trust while both are in use
 * phase                trust-both | reissue | drop-old
 * probe-client.crt|key a client certificate of the new CA, used only to prove members accept it
 * old-admin.crt|key    the admin certificate of the old CA, kept to prove members refuse it at the end
 * </pre>
 */
public record CaRotationFiles(Path dir) {

    /** The phases, in order, as recorded and shown. */
    public enum Phase {
        TRUST_BOTH("trust-both", "1/3: members trust the old and the new CA (rolling restart)"),
        REISSUE("reissue", "2/3: every certificate reissued from the new CA (no restart)"),
        DROP_OLD("drop-old", "3/3: the old CA dropped (rolling restart)");

        private final String label;
        private final String description;

        Phase(String label, String description) {
            this.label = label;
            this.description = description;
        }

        public String label() {
            return label;
        }

        public String description() {
            return description;
        }

        static Optional<Phase> ofLabel(String label) {
            return Arrays.stream(values()).filter(p -> p.label.equals(label)).findFirst();
        }
    }

    public Path bundle() {
        return dir.resolve("ca-bundle.crt");
    }

    public Path oldCasFile() {
        return dir.resolve("old-cas.crt");
    }

    private Path phaseFile() {
        return dir.resolve("phase");
    }

    public ClusterPki.LocalPair probe() {
        return new ClusterPki.LocalPair(dir.resolve("probe-client.crt"), dir.resolve("probe-client.key"));
    }

    public ClusterPki.LocalPair oldAdmin() {
        return new ClusterPki.LocalPair(dir.resolve("old-admin.crt"), dir.resolve("old-admin.key"));
    }

    public boolean active() {
        return Files.isDirectory(dir);
    }

    /** The phase recorded by the last step that verified one; empty when no rotation runs. */
    public Optional<Phase> recordedPhase() {
        if (!Files.exists(phaseFile())) {
            return Optional.empty();
        }
        try {
            return Phase.ofLabel(Files.readString(phaseFile()).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + phaseFile() + ": " + e.getMessage(), e);
        }
    }

    public void recordPhase(Phase phase) {
        SecureFiles.writePublic(phaseFile(), phase.label() + "\n", "CA rotation phase");
    }

    /** The old CAs recorded when the rotation began; empty without a rotation. */
    public List<X509Certificate> oldCas() {
        if (!Files.exists(oldCasFile())) {
            return List.of();
        }
        return Pem.readCertificates(Pem.readFile(oldCasFile(), "old CA certificates"), oldCasFile().toString());
    }

    /**
     * Records the old CAs (with any recorded before) and writes the bundle of them and the new CA.
     * Returns whether a file changed.
     */
    public boolean begin(List<X509Certificate> old, X509Certificate newCa) {
        List<X509Certificate> olds = distinct(Stream.concat(oldCas().stream(), old.stream())
                .filter(c -> !same(c, newCa)).toList());
        String oldPem = pem(olds);
        String bundlePem = pem(Stream.concat(olds.stream(), Stream.of(newCa)).toList());
        boolean changed = write(oldCasFile(), oldPem, "old CA certificates");
        changed |= write(bundle(), bundlePem, "CA bundle");
        if (recordedPhase().isEmpty()) {
            recordPhase(Phase.TRUST_BOTH);
            changed = true;
        }
        return changed;
    }

    /**
     * Ends the rotation: the bundle, the record, the probe and the old admin go, with what a write of
     * one of them left when its run was killed; nothing else in the PKI directory. A file not ours
     * in the directory stops it, named.
     */
    public void finish() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        for (Path file : List.of(bundle(), oldCasFile(), phaseFile(), probe().cert(), probe().key(), oldAdmin().cert(),
                oldAdmin().key())) {
            try {
                Files.deleteIfExists(file);
                SecureFiles.removeLeftovers(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove " + file + ": " + e.getMessage(), e);
            }
        }
        try (Stream<Path> left = Files.list(dir)) {
            List<String> names = left.map(p -> p.getFileName().toString()).sorted().toList();
            if (!names.isEmpty()) {
                throw new IllegalStateException("cannot remove " + dir + ": it holds " + names + ", which etcdwright did not"
                        + " put there. Move them elsewhere (the rotation itself is done), then apply again");
            }
            Files.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir + ": " + e.getMessage(), e);
        }
    }

    private static boolean write(Path file, String content, String what) {
        try {
            if (Files.exists(file) && Files.readString(file).equals(content)) {
                return false;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        SecureFiles.writePublic(file, content, what);
        return true;
    }

    /** The PEM of these certificates, one after another. */
    public static String pem(List<X509Certificate> certificates) {
        StringBuilder s = new StringBuilder();
        certificates.forEach(c -> s.append(Pem.certificate(c)));
        return s.toString();
    }

    /** The same certificate: the same DER bytes. */
    public static boolean same(X509Certificate a, X509Certificate b) {
        try {
            return Arrays.equals(a.getEncoded(), b.getEncoded());
        } catch (CertificateEncodingException e) {
            return false;
        }
    }

    public static List<X509Certificate> distinct(List<X509Certificate> certificates) {
        List<X509Certificate> out = new ArrayList<>();
        for (X509Certificate c : certificates) {
            if (out.stream().noneMatch(o -> same(o, c))) {
                out.add(c);
            }
        }
        return out;
    }

    /** Whether both lists hold the same certificates, in any order. */
    public static boolean sameSet(List<X509Certificate> a, List<X509Certificate> b) {
        List<X509Certificate> da = distinct(a);
        List<X509Certificate> db = distinct(b);
        return da.size() == db.size() && da.stream().allMatch(x -> db.stream().anyMatch(y -> same(x, y)));
    }
}
