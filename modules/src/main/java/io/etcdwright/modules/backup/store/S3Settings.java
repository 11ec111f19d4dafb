package io.etcdwright.modules.backup.store;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * Where in S3 (or an S3-compatible server) backups go. No credentials here, on purpose: they
 * come only from the SDK's default chain (environment, AWS_PROFILE, web identity, instance
 * role), so no secret lives in a spec, a plan or a log.
 *
 * @param bucket    the bucket; it must exist
 * @param prefix    "" or a '/'-terminated prefix every key is put under
 * @param endpoint  an S3-compatible server (MinIO, Ceph, S3Proxy); empty for AWS
 * @param region    the signing region; empty means us-east-1 with an endpoint, the SDK's region chain without
 * @param pathStyle address the bucket in the path (needed for an IP endpoint) instead of the host name
 */
public record S3Settings(String bucket, String prefix, Optional<URI> endpoint, Optional<String> region, boolean pathStyle) {
    public S3Settings {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        if (bucket.isBlank() || bucket.contains("/")) {
            throw new IllegalArgumentException("an S3 bucket is a bare name like 'etcd-backups', not '" + bucket + "'");
        }
        prefix = prefix == null ? "" : prefix;
        if (prefix.startsWith("/")) {
            prefix = prefix.substring(1);
        }
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        if (!prefix.isEmpty()) {
            StoreKeys.check(prefix.substring(0, prefix.length() - 1));
        }
        if (region.isEmpty() && endpoint.isPresent()) {
            region = Optional.of("us-east-1"); // S3-compatible servers take any region; SigV4 needs one
        }
    }

    /** The default layout: one cluster's backups under {@code <cluster name>/}. */
    public static S3Settings forCluster(String clusterName, String bucket, Optional<URI> endpoint,
                                        Optional<String> region, boolean pathStyle) {
        return new S3Settings(bucket, clusterName + "/", endpoint, region, pathStyle);
    }

    /** For messages: {@code s3://bucket/prefix/} and the endpoint when it is not AWS. */
    public String describe() {
        return "s3://" + bucket + "/" + prefix + endpoint.map(e -> " at " + e).orElse("");
    }
}
