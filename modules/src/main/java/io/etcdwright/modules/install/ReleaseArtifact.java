package io.etcdwright.modules.install;

import java.util.Optional;

/**
 * One etcd release tarball: where it comes from and how to check it.
 *
 * @param version      X.Y.Z
 * @param arch         amd64, arm64, ... as etcd names them
 * @param url          the tarball URL (http, https or file)
 * @param checksumsUrl upstream's SHA256SUMS file for the release, when no digest is pinned
 * @param pinnedSha256 a digest from the desired state; wins over the checksums file
 */
public record ReleaseArtifact(String version, String arch, String url, Optional<String> checksumsUrl,
                              Optional<String> pinnedSha256) {

    public static ReleaseArtifact of(String version, String arch, String urlTemplate,
                                     Optional<String> checksumsUrlTemplate, Optional<String> pinnedSha256) {
        return new ReleaseArtifact(version, arch, expand(urlTemplate, version, arch),
                checksumsUrlTemplate.map(t -> expand(t, version, arch)), pinnedSha256);
    }

    static String expand(String template, String version, String arch) {
        return template.replace("{version}", version).replace("{arch}", arch);
    }

    /** The file name, as it appears in SHA256SUMS. */
    public String fileName() {
        return "etcd-v" + version + "-linux-" + arch + ".tar.gz";
    }

    /** The folder inside the tarball. */
    public String topDir() {
        return "etcd-v" + version + "-linux-" + arch;
    }

    /** Finds this tarball's digest in a SHA256SUMS text ({@code <hex>  <name>} lines). */
    public Optional<String> digestIn(String sha256sums) {
        for (String line : sha256sums.split("\n")) {
            String[] parts = line.strip().split("\\s+");
            if (parts.length == 2 && parts[1].replaceFirst("^\\*", "").equals(fileName())
                    && parts[0].matches("[0-9a-fA-F]{64}")) {
                return Optional.of(parts[0].toLowerCase());
            }
        }
        return Optional.empty();
    }
}
