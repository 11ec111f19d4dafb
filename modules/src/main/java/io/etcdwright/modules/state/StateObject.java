package io.etcdwright.modules.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state as one object in the store: two text lines and the encrypted rest.
 *
 * <pre>
 * etcdwright-state 1
 * {"format":1,"cluster":"prod","serial":7,...}        the header, readable without a key, no secret
 * CMS AuthEnvelopedData (DER), AES-256-GCM            {"header":{...the same...},"files":[{path, secret, content}]}
 * </pre>
 *
 * The header outside is only a label: what counts is the copy inside, proven by the GCM tag, and
 * an object whose two copies differ was changed by someone without the key and is refused. The
 * encrypted part is standard CMS: {@code tail -n +3 OBJECT | openssl cms -decrypt -inform DER
 * -secretkey HEX -secretkeyid ID} opens it by hand (docs/state.md).
 */
public final class StateObject {
    static final String MAGIC = "etcdwright-state 1";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What an opened object holds. */
    public record Content(StateHeader header, SortedMap<String, SharedTree.Entry> files) {
    }

    private StateObject() {
    }

    static byte[] seal(StateHeader header, SortedMap<String, SharedTree.Entry> files, StateCipher cipher) throws IOException {
        ObjectNode payload = JSON.createObjectNode();
        payload.set("header", header.toJson());
        ArrayNode list = payload.putArray("files");
        for (SharedTree.Entry e : files.values()) {
            ObjectNode f = list.addObject();
            f.put("path", e.path());
            f.put("secret", e.secret());
            f.put("content", Base64.getEncoder().encodeToString(e.content()));
        }
        byte[] encrypted = cipher.encrypt(JSON.writeValueAsBytes(payload));
        ByteArrayOutputStream out = new ByteArrayOutputStream(encrypted.length + 512);
        out.writeBytes((MAGIC + "\n" + header.toJsonLine() + "\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(encrypted);
        return out.toByteArray();
    }

    /** The header as the object labels itself, without decrypting: for 'state show' and a conflict's message. */
    public static StateHeader peek(byte[] object, String where) throws IOException {
        return parts(object, where).header;
    }

    /**
     * Decrypts and proves the object: the GCM tag checked over all of it, the inner header equal to
     * the outer, the cluster the expected one.
     */
    static Content open(byte[] object, StateCipher cipher, String where, String cluster) throws IOException {
        Parts parts = parts(object, where);
        byte[] plaintext;
        try {
            plaintext = cipher.decrypt(parts.encrypted);
        } catch (IOException e) {
            throw new IOException("cannot decrypt the state at " + where + ": " + reword(e.getMessage()), e);
        }
        JsonNode payload;
        try {
            payload = JSON.readTree(plaintext);
        } catch (IOException e) {
            throw new IOException("the state at " + where + " decrypted to something that is not etcdwright state", e);
        }
        StateHeader inner = StateHeader.parse(payload.path("header"));
        if (!inner.equals(parts.header)) {
            throw new IOException("the state at " + where + " was changed: its readable header (" + parts.header.describe()
                    + ") is not the one its encrypted part proves (" + inner.describe() + "); nothing was read from it."
                    + " Find out who can write to the store; 'etcdwright state show' lists what it holds");
        }
        if (!inner.cluster().equals(cluster)) {
            throw new IOException("the state at " + where + " is cluster '" + inner.cluster() + "''s, not '" + cluster
                    + "''s: two specs name the same state store location; give each cluster its own (state.store)");
        }
        SortedMap<String, SharedTree.Entry> files = new TreeMap<>();
        for (JsonNode f : payload.path("files")) {
            String path = f.path("path").asText("");
            byte[] content;
            try {
                content = Base64.getDecoder().decode(f.path("content").asText(""));
            } catch (IllegalArgumentException e) {
                throw new IOException("the state at " + where + " holds a damaged file entry (" + path + ")", e);
            }
            files.put(path, new SharedTree.Entry(path, f.path("secret").asBoolean(true), content));
        }
        if (files.size() != inner.files()) {
            throw new IOException("the state at " + where + " says it holds " + inner.files() + " files but holds " + files.size());
        }
        return new Content(inner, files);
    }

    /** BouncyCastle's and backup/crypto's words for a damaged message, said of the state. */
    private static String reword(String message) {
        return String.valueOf(message).replace("the backup was changed or damaged", "the state object was changed or damaged")
                .replace("the backup is incomplete or damaged", "the state object is incomplete or damaged")
                .replace("the backup is damaged", "the state object is damaged")
                .replace("this backup", "the state object");
    }

    private record Parts(StateHeader header, byte[] encrypted) {
    }

    private static Parts parts(byte[] object, String where) throws IOException {
        int first = indexOf(object, 0);
        int second = first < 0 ? -1 : indexOf(object, first + 1);
        if (first < 0 || second < 0 || !new String(object, 0, first, StandardCharsets.UTF_8).equals(MAGIC)) {
            throw new IOException(where + " is not an etcdwright state object (it does not start with '" + MAGIC
                    + "'): was something else written there, or is state.store pointing at the wrong place?");
        }
        StateHeader header;
        try {
            header = StateHeader.parse(new String(object, first + 1, second - first - 1, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IOException(where + " is damaged: " + e.getMessage(), e);
        }
        if (header.format() != StateHeader.FORMAT) {
            throw new IOException(where + " is state format " + header.format() + ", which this etcdwright does not read"
                    + " (it reads format " + StateHeader.FORMAT + "): use the etcdwright that wrote it, or a newer one");
        }
        return new Parts(header, Arrays.copyOfRange(object, second + 1, object.length));
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < Math.min(b.length, from + 4096); i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
