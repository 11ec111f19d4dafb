package io.etcdwright.modules.backup.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where backups are kept: a directory, a host over SFTP, or an S3 bucket. Keys are relative,
 * '/'-separated object names under the store's root (its path, or its prefix in the bucket),
 * like {@code 2026-11-24T20:15:03Z-000001/etcd.backup.gz}; a store never reads or writes
 * outside that root.
 *
 * <p>Every write is all or nothing: a reader sees an object whole or not at all (a directory
 * and SFTP write a temporary name and rename; S3 makes an object visible only when its upload
 * completes). Large objects are streamed, never held in memory.
 */
public interface Store extends AutoCloseable {

    /** For messages: {@code s3://bucket/prefix/}, {@code sftp://host/path/}, {@code /var/backups/etcd/}. */
    String describe();

    /** For messages about one object: {@code s3://bucket/prefix/KEY at ENDPOINT}, {@code /var/backups/etcd/KEY}. */
    default String describe(String key) {
        return describe() + key;
    }

    /** Writes {@code file}'s content as {@code key}, replacing what was there. */
    void put(String key, Path file) throws IOException;

    /** Writes a small object (a meta file, a spec) as {@code key}. */
    void put(String key, byte[] content) throws IOException;

    /** Reads {@code key}; the caller closes the stream. {@link java.nio.file.NoSuchFileException} when absent. */
    InputStream open(String key) throws IOException;

    /** Every object whose key starts with {@code prefix} ("" for all), sorted by key. */
    List<StoredObject> list(String prefix) throws IOException;

    /** Removes {@code key}; removing an absent key is no error. */
    void delete(String key) throws IOException;

    // Versioned writes: compare-and-swap on one small object, for state many workstations share.

    /**
     * Reads a small object whole, with the version the store gives it now: S3's ETag, the SHA-256
     * of the content for a directory or SFTP. Empty when there is no such object.
     */
    Optional<Versioned> read(String key) throws IOException;

    /**
     * Writes {@code content} as {@code key} only while the object is still at {@code expected}, or
     * only while it is absent when {@code expected} is empty: compare-and-swap, one winner among
     * writers racing from several machines. S3 sends {@code If-Match}/{@code If-None-Match: *};
     * a directory and SFTP check and rename under a lock every writer takes ({@code flock}).
     *
     * @return the new version
     * @throws VersionConflictException when the object is not at {@code expected}: nothing was written
     */
    String putIfVersion(String key, byte[] content, Optional<String> expected) throws IOException;

    /**
     * Removes {@code key} only while it is at {@code expected}.
     *
     * @throws VersionConflictException when it is not (or is gone): nothing was removed
     */
    void deleteIfVersion(String key, String expected) throws IOException;

    @Override
    void close() throws IOException;

    /** A small object's content and its version, as {@link #read} found it. */
    record Versioned(byte[] content, String version) {
    }

    /** One object: its key relative to the store's root, its size in bytes, when it was written. */
    record StoredObject(String key, long size, Instant lastModified) {
    }
}
