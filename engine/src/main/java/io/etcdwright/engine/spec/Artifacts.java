package io.etcdwright.engine.spec;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where the etcd release comes from and how its download is verified.
 *
 * @param urlTemplate          tarball URL with {@code {version}} and {@code {arch}} placeholders
 * @param checksumsUrlTemplate sha256sum-format file listing the tarball; empty when the spec
 *                             says {@code checksumsUrl: null} (then {@code sha256} pins the version)
 * @param sha256               pinned digests by version (lower-case hex); they win over the checksums file
 */
public record Artifacts(ArtifactSource source, String urlTemplate, Optional<String> checksumsUrlTemplate,
                        Map<String, String> sha256) {

    public static final String DEFAULT_URL_TEMPLATE =
            "https://github.com/etcd-io/etcd/releases/download/v{version}/etcd-v{version}-linux-{arch}.tar.gz";
    public static final String DEFAULT_CHECKSUMS_URL_TEMPLATE =
            "https://github.com/etcd-io/etcd/releases/download/v{version}/SHA256SUMS";
    /** The placeholders templates may use; {arch} as etcd names architectures (amd64, arm64). */
    public static final Set<String> PLACEHOLDERS = Set.of("version", "arch");

    public Artifacts {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(urlTemplate, "urlTemplate");
        Objects.requireNonNull(checksumsUrlTemplate, "checksumsUrlTemplate");
        sha256 = Map.copyOf(sha256);
    }

    public static Artifacts defaults() {
        return new Artifacts(ArtifactSource.PUSH, DEFAULT_URL_TEMPLATE, Optional.of(DEFAULT_CHECKSUMS_URL_TEMPLATE), Map.of());
    }

    /** The tarball URL of {@code version} for {@code arch} (amd64, arm64). */
    public String url(String version, String arch) {
        return fill(urlTemplate, version, arch);
    }

    /** The checksums file URL of {@code version}, if the spec has one. */
    public Optional<String> checksumsUrl(String version, String arch) {
        return checksumsUrlTemplate.map(template -> fill(template, version, arch));
    }

    /** The pinned digest of {@code version}'s tarball, lower-case hex. */
    public Optional<String> pinnedSha256(String version) {
        return Optional.ofNullable(sha256.get(version)).map(digest -> digest.toLowerCase(Locale.ROOT));
    }

    private static String fill(String template, String version, String arch) {
        return template.replace("{version}", version).replace("{arch}", arch);
    }
}
