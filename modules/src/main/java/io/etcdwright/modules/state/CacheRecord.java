package io.etcdwright.modules.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.modules.pki.SecureFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What this workstation's cache of the state is a copy of ({@code clusters/NAME/state.json}): the
 * store's serial and version it last read or wrote, the digest of the files as they were then (so
 * a change made here since is told from a store that moved on), and whether the files are being
 * replaced (set before, cleared after: an interrupted replace is redone from the store, never taken
 * for work of this workstation). No secret: versions and digests only.
 *
 * @param store     the store it was synced with ({@link io.etcdwright.modules.backup.store.Store#describe()})
 * @param serial    the serial of the object it holds a copy of
 * @param version   that object's version in the store (its ETag, or its SHA-256)
 * @param digest    {@link SharedTree#digest} of the files as synced
 * @param replacing the files are being replaced with the store's
 */
public record CacheRecord(String store, long serial, String version, String digest, boolean replacing) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static Optional<CacheRecord> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            JsonNode n = JSON.readTree(Files.readString(file));
            if (n == null || !n.path("serial").canConvertToLong() || !n.path("version").isTextual()) {
                throw new IOException("not a record of etcdwright's state cache");
            }
            return Optional.of(new CacheRecord(n.path("store").asText(""), n.path("serial").asLong(), n.path("version").asText(),
                    n.path("digest").asText(""), n.path("replacing").asBoolean(false)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " (which state this workstation's cache holds): "
                    + e.getMessage() + "; remove it and run 'etcdwright state pull' to fill the cache again from the store", e);
        }
    }

    public void write(Path file) {
        ObjectNode n = JSON.createObjectNode();
        n.put("store", store);
        n.put("serial", serial);
        n.put("version", version);
        n.put("digest", digest);
        n.put("replacing", replacing);
        SecureFiles.writePublic(file, n.toString() + "\n", "the state cache's record");
    }

    CacheRecord replacing(boolean now) {
        return new CacheRecord(store, serial, version, digest, now);
    }
}
