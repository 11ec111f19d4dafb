package io.etcdwright.engine.spec;

import java.util.Objects;
import java.util.Optional;

/** Where backups are kept: one of three kinds, each with the fields it needs, under a name. */
public sealed interface BackupStore permits BackupStore.Directory, BackupStore.Sftp, BackupStore.S3 {

    String DEFAULT_PATH = "/var/backups/etcd";

    /** How commands and the schedule refer to it: a DNS label. */
    String name();

    /** The spelling of the kind in the desired state: {@code directory}, {@code sftp}, {@code s3}. */
    String type();

    /**
     * A directory on the machine that takes the backup: the workstation for {@code etcdwright
     * backup}, each member for scheduled backups (mount shared storage there to gather them).
     */
    record Directory(String name, String path) implements BackupStore {
        public Directory {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String type() {
            return "directory";
        }
    }

    /** A directory on another inventory host, reached over SFTP. */
    record Sftp(String name, String host, String path) implements BackupStore {
        public Sftp {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String type() {
            return "sftp";
        }
    }

    /**
     * An S3 (or compatible) bucket. Credentials never live in the spec: the workstation uses
     * the AWS SDK's default chain, scheduled backups a credentials file of their own.
     *
     * @param prefix    key prefix; defaults to the cluster name and '/'
     * @param endpoint  for S3-compatible stores; empty: AWS
     * @param region    empty: the SDK's default (us-east-1 for an endpoint)
     * @param pathStyle bucket in the path rather than in the host name (needed for IP endpoints)
     */
    record S3(String name, String bucket, String prefix, Optional<String> endpoint, Optional<String> region,
              boolean pathStyle) implements BackupStore {
        public S3 {
            Objects.requireNonNull(name, "name");
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
