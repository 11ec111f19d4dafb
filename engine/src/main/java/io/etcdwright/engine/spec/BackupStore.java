package io.etcdwright.engine.spec;

import java.util.Objects;
import java.util.Optional;

/** Where backup snapshots are kept: one of three kinds, each with the fields it needs. */
public sealed interface BackupStore permits BackupStore.Directory, BackupStore.Sftp, BackupStore.S3 {

    String DEFAULT_PATH = "/var/backups/etcd";

    /** The spelling of the kind in the desired state: {@code directory}, {@code sftp}, {@code s3}. */
    String type();

    /** A directory on each member. */
    record Directory(String path) implements BackupStore {
        public Directory {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String type() {
            return "directory";
        }
    }

    /** A directory on another inventory host, reached over SFTP. */
    record Sftp(String host, String path) implements BackupStore {
        public Sftp {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String type() {
            return "sftp";
        }
    }

    /**
     * An S3 (or compatible) bucket.
     *
     * @param prefix   key prefix; defaults to the cluster name and '/'
     * @param endpoint for S3-compatible stores; empty: AWS
     */
    record S3(String bucket, String prefix, Optional<String> endpoint, Optional<String> region) implements BackupStore {
        public S3 {
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(prefix, "prefix");
            Objects.requireNonNull(endpoint, "endpoint");
            Objects.requireNonNull(region, "region");
        }

        @Override
        public String type() {
            return "s3";
        }
    }
}
