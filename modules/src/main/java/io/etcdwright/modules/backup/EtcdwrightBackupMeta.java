package io.etcdwright.modules.backup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Our {@code etcdwright-backup.json}, beside etcd-manager's meta: what a restore and a check
 * need that etcd-manager does not record.
 *
 * @param formatVersion     of this file; a reader refuses a newer one instead of misreading it
 * @param clusterName       the spec's cluster name
 * @param revision          etcd's revision the snapshot holds
 * @param keyCount          keys a client sees in the snapshot; -1 when a scheduled backup could not count them
 * @param dbSize            bytes of the snapshot (the db file)
 * @param dbSha256          hex sha256 of the snapshot, checked after a download
 * @param compressedSize    bytes of the data file in the store
 * @param encrypted         whether the data file is {@code etcd.backup.gz.p7m}
 * @param recipients        fingerprints of the keys it is encrypted to (empty when not)
 * @param etcdVersion       of the member that took it
 * @param memberCount       members when it was taken
 * @param takenAt           when the snapshot was taken
 * @param takenFrom         the member it was taken from
 */
public record EtcdwrightBackupMeta(int formatVersion, String clusterName, long revision, long keyCount, long dbSize,
                                   String dbSha256, long compressedSize, boolean encrypted, List<String> recipients,
                                   String etcdVersion, int memberCount, Instant takenAt, String takenFrom) {
    public static final int FORMAT_VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public EtcdwrightBackupMeta {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(dbSha256, "dbSha256");
        Objects.requireNonNull(etcdVersion, "etcdVersion");
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(takenFrom, "takenFrom");
        recipients = List.copyOf(recipients);
        if (dbSha256.length() != 64 || !dbSha256.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("dbSha256 must be 64 hex digits, not '" + dbSha256 + "'");
        }
        if (encrypted == recipients.isEmpty()) {
            throw new IllegalArgumentException(encrypted ? "an encrypted backup needs its recipients' fingerprints"
                    : "a backup that is not encrypted has no recipients");
        }
    }

    public byte[] toBytes() {
        ObjectNode o = JSON.createObjectNode();
        o.put("formatVersion", formatVersion);
        o.put("clusterName", clusterName);
        o.put("revision", revision);
        o.put("keyCount", keyCount);
        o.put("dbSize", dbSize);
        o.put("dbSha256", dbSha256);
        o.put("compressedSize", compressedSize);
        o.put("encrypted", encrypted);
        ArrayNode r = o.putArray("recipients");
        recipients.forEach(r::add);
        o.put("etcdVersion", etcdVersion);
        o.put("memberCount", memberCount);
        o.put("takenAt", takenAt.toString());
        o.put("takenFrom", takenFrom);
        try {
            return (JSON.writeValueAsString(o) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static EtcdwrightBackupMeta parse(String what, byte[] json) throws IOException {
        JsonNode o = EtcdManagerJson.read(what, json);
        int version = o.path("formatVersion").asInt(0);
        if (version < 1 || version > FORMAT_VERSION) {
            throw new IOException(what + " has format version " + o.path("formatVersion")
                    + "; this etcdwright reads version " + FORMAT_VERSION + ": use a newer etcdwright");
        }
        try {
            List<String> recipients = new ArrayList<>();
            o.path("recipients").forEach(n -> recipients.add(n.asText()));
            return new EtcdwrightBackupMeta(version, required(what, o, "clusterName").asText(),
                    required(what, o, "revision").asLong(), required(what, o, "keyCount").asLong(),
                    required(what, o, "dbSize").asLong(), required(what, o, "dbSha256").asText().toLowerCase(),
                    required(what, o, "compressedSize").asLong(), required(what, o, "encrypted").asBoolean(), recipients,
                    required(what, o, "etcdVersion").asText(), required(what, o, "memberCount").asInt(),
                    Instant.parse(required(what, o, "takenAt").asText()), required(what, o, "takenFrom").asText());
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode required(String what, JsonNode o, String field) throws IOException {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            throw new IOException(what + " lacks '" + field + "'");
        }
        return v;
    }
}
