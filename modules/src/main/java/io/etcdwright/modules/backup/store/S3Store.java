package io.etcdwright.modules.backup.store;

import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Backups in an S3 bucket (AWS or an S3-compatible server), under the settings' prefix. An
 * object becomes visible only when its upload completes, so every write is all or nothing:
 * small files in one PUT, larger ones in a multipart upload streamed part by part from the
 * file (re-read from disk on a retry, never held in memory) and aborted on any failure, so no
 * parts are left behind to be billed.
 */
public final class S3Store implements Store {
    /** Parts of 64 MiB: a 10 GiB snapshot is 160 parts, far below S3's 10,000. */
    public static final long DEFAULT_PART_SIZE = 64L * 1024 * 1024;
    /** S3 refuses smaller parts (except the last). */
    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    private static final int MAX_PARTS = 10_000;

    private final S3Settings settings;
    private final long partSize;
    private final S3Client s3;

    public S3Store(S3Settings settings) {
        this(settings, DEFAULT_PART_SIZE);
    }

    /** @param partSize files larger than this go up in parts of this size (at least 5 MiB) */
    public S3Store(S3Settings settings, long partSize) {
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("an S3 part must be at least 5 MiB, not " + partSize + " bytes");
        }
        this.settings = settings;
        this.partSize = partSize;
        this.s3 = client(settings);
    }

    private static S3Client client(S3Settings settings) {
        S3ClientBuilder b = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(60)))
                // Only the SDK's default chain: environment, AWS_PROFILE, web identity, instance role.
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .forcePathStyle(settings.pathStyle())
                // Newer SDKs add CRC32 checksums by default, which several S3-compatible servers reject.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        settings.region().ifPresent(r -> b.region(Region.of(r)));
        settings.endpoint().ifPresent(b::endpointOverride);
        return b.build();
    }

    public S3Settings settings() {
        return settings;
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    /** The key inside the URL, the endpoint after it: never "...:9000KEY". */
    @Override
    public String describe(String key) {
        return "s3://" + settings.bucket() + "/" + settings.prefix() + key + settings.endpoint().map(e -> " at " + e).orElse("");
    }

    @Override
    public void put(String key, Path file) throws IOException {
        String objectKey = objectKey(key);
        long size = Files.size(file);
        if (size <= partSize) {
            try {
                s3.putObject(r -> r.bucket(settings.bucket()).key(objectKey), RequestBody.fromFile(file));
            } catch (SdkException e) {
                throw S3Errors.explain("writing " + key, key, settings, e);
            } catch (java.io.UncheckedIOException | IllegalStateException e) {
                throw new IOException("cannot write " + key + " to " + settings.describe() + ": " + e.getMessage(), e);
            }
            return;
        }
        new MultipartUpload(s3, settings, key, objectKey, partSizeFor(size)).upload(file, size);
    }

    /** The configured part size, grown when a file would need more than S3's 10,000 parts. */
    private long partSizeFor(long size) {
        long needed = (size + MAX_PARTS - 1) / MAX_PARTS;
        return Math.max(partSize, needed);
    }

    @Override
    public void put(String key, byte[] content) throws IOException {
        String objectKey = objectKey(key);
        try {
            s3.putObject(r -> r.bucket(settings.bucket()).key(objectKey), RequestBody.fromBytes(content));
        } catch (SdkException e) {
            throw S3Errors.explain("writing " + key, key, settings, e);
        }
    }

    @Override
    public InputStream open(String key) throws IOException {
        String objectKey = objectKey(key);
        try {
            return s3.getObject(r -> r.bucket(settings.bucket()).key(objectKey));
        } catch (SdkException e) {
            throw S3Errors.explain("reading " + key, key, settings, e);
        }
    }

    @Override
    public List<StoredObject> list(String prefix) throws IOException {
        StoreKeys.checkPrefix(prefix);
        ListObjectsV2Request request = ListObjectsV2Request.builder()
                .bucket(settings.bucket()).prefix(settings.prefix() + prefix).build();
        List<StoredObject> found = new ArrayList<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(request).contents()) {
                found.add(new StoredObject(o.key().substring(settings.prefix().length()), o.size(), o.lastModified()));
            }
        } catch (SdkException e) {
            throw S3Errors.explain("listing " + (prefix.isEmpty() ? "backups" : prefix + "*"), prefix, settings, e);
        }
        found.sort(Comparator.comparing(StoredObject::key));
        return found;
    }

    @Override
    public void delete(String key) throws IOException {
        String objectKey = objectKey(key);
        try {
            s3.deleteObject(r -> r.bucket(settings.bucket()).key(objectKey));
        } catch (SdkException e) {
            throw S3Errors.explain("deleting " + key, key, settings, e);
        }
    }

    @Override
    public Optional<Versioned> read(String key) throws IOException {
        String objectKey = objectKey(key);
        try {
            var response = s3.getObjectAsBytes(r -> r.bucket(settings.bucket()).key(objectKey));
            return Optional.of(new Versioned(response.asByteArray(), response.response().eTag()));
        } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
            return Optional.empty();
        } catch (SdkException e) {
            IOException explained = S3Errors.explain("reading " + key, key, settings, e);
            if (explained instanceof java.nio.file.NoSuchFileException) {
                return Optional.empty();
            }
            throw explained;
        }
    }

    /**
     * A conditional PUT: {@code If-Match: ETAG}, or {@code If-None-Match: *} to create. S3 answers
     * 412 when the condition fails and 409 when a concurrent conditional write won; either way
     * nothing of ours was written.
     */
    @Override
    public String putIfVersion(String key, byte[] content, Optional<String> expected) throws IOException {
        String objectKey = objectKey(key);
        try {
            return s3.putObject(r -> {
                r.bucket(settings.bucket()).key(objectKey);
                expected.ifPresentOrElse(r::ifMatch, () -> r.ifNoneMatch("*"));
            }, RequestBody.fromBytes(content)).eTag();
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                throw new VersionConflictException(describe(), key, expected, current(objectKey));
            }
            throw S3Errors.explain("writing " + key, key, settings, e);
        } catch (SdkException e) {
            throw S3Errors.explain("writing " + key, key, settings, e);
        }
    }

    @Override
    public void deleteIfVersion(String key, String expected) throws IOException {
        String objectKey = objectKey(key);
        try {
            s3.deleteObject(r -> r.bucket(settings.bucket()).key(objectKey).ifMatch(expected));
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409 || e.statusCode() == 404) {
                throw new VersionConflictException(describe(), key, Optional.of(expected), current(objectKey));
            }
            throw S3Errors.explain("deleting " + key, key, settings, e);
        } catch (SdkException e) {
            throw S3Errors.explain("deleting " + key, key, settings, e);
        }
    }

    /** The ETag now, for a conflict's message; empty when absent or when the store does not say. */
    private Optional<String> current(String objectKey) {
        try {
            return Optional.of(s3.headObject(r -> r.bucket(settings.bucket()).key(objectKey)).eTag());
        } catch (SdkException e) {
            return Optional.empty();
        }
    }

    private String objectKey(String key) {
        return settings.prefix() + StoreKeys.check(key);
    }

    @Override
    public void close() {
        s3.close();
    }

    /** One multipart upload: parts streamed from the file, completed in order, or aborted. */
    private record MultipartUpload(S3Client s3, S3Settings settings, String key, String objectKey, long partSize) {
        void upload(Path file, long size) throws IOException {
            String uploadId;
            try {
                uploadId = s3.createMultipartUpload(r -> r.bucket(settings.bucket()).key(objectKey)).uploadId();
            } catch (SdkException e) {
                throw S3Errors.explain("starting the upload of " + key, key, settings, e);
            }
            try {
                List<CompletedPart> parts = new ArrayList<>();
                int number = 1;
                for (long offset = 0; offset < size; offset += partSize, number++) {
                    long length = Math.min(partSize, size - offset);
                    int n = number;
                    try (FileSlices slices = new FileSlices(file, offset, length)) {
                        String etag = s3.uploadPart(r -> r.bucket(settings.bucket()).key(objectKey)
                                        .uploadId(uploadId).partNumber(n).contentLength(length),
                                RequestBody.fromContentProvider(slices, length, "application/octet-stream")).eTag();
                        parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
                    }
                }
                s3.completeMultipartUpload(r -> r.bucket(settings.bucket()).key(objectKey).uploadId(uploadId)
                        .multipartUpload(m -> m.parts(parts)));
            } catch (RuntimeException | Error e) {
                abort(uploadId, e);
                if (e instanceof SdkException sdk) {
                    throw S3Errors.explain("writing " + key, key, settings, sdk);
                }
                if (e instanceof java.io.UncheckedIOException || e instanceof IllegalStateException) {
                    // The local file failed us (unreadable, or shorter than when the upload began).
                    throw new IOException("cannot write " + key + " to " + settings.describe() + ": " + e.getMessage()
                            + "; the upload was aborted, nothing was stored", e);
                }
                throw e;
            }
        }

        /** No partial object is ever visible; the parts would be kept (and billed) until aborted. */
        private void abort(String uploadId, Throwable cause) {
            try {
                s3.abortMultipartUpload(r -> r.bucket(settings.bucket()).key(objectKey).uploadId(uploadId));
            } catch (SdkException e) {
                cause.addSuppressed(new IOException("could not abort the multipart upload of " + key + " (id " + uploadId
                        + "); a bucket lifecycle rule for incomplete uploads removes its parts", e));
            }
        }
    }
}
