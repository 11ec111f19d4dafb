package io.etcdwright.modules.backup.store;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Messages name an object as a URL an operator can paste: the endpoint never runs into the key. */
class S3StoreDescribeTest {
    @Test
    void anObjectIsNamedInsideTheBucketUrlWithTheEndpointAfterIt() {
        try (S3Store store = new S3Store(new S3Settings("etcd-backups", "prod/", Optional.of(URI.create("http://10.0.0.5:9000")),
                Optional.of("us-east-1"), true))) {
            // It read "s3://etcd-backups/prod/ at http://10.0.0.5:90002026-11-26T22:30:00Z-000002/etcdwright-backup.json".
            assertEquals("s3://etcd-backups/prod/2026-11-26T22:30:00Z-000002/etcdwright-backup.json at http://10.0.0.5:9000",
                    store.describe("2026-11-26T22:30:00Z-000002/etcdwright-backup.json"));
        }
        try (S3Store aws = new S3Store(new S3Settings("etcd-backups", "prod/", Optional.empty(), Optional.of("eu-west-1"), false))) {
            assertEquals("s3://etcd-backups/prod/control/etcd-cluster-spec", aws.describe("control/etcd-cluster-spec"));
        }
    }
}
