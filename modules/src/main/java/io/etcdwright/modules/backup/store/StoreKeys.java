package io.etcdwright.modules.backup.store;

/**
 * The keys every store accepts: relative, '/'-separated, no empty, "." or ".." segment, so a
 * key can never name anything outside the store's root, whatever the store maps it to.
 */
public final class StoreKeys {
    private StoreKeys() {
    }

    /** Returns the key when it is acceptable; otherwise says what is wrong with it. */
    public static String check(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a store key must not be empty");
        }
        if (key.startsWith("/")) {
            throw new IllegalArgumentException("a store key must be relative to the store's root, not absolute: '" + key + "'");
        }
        if (key.indexOf('\0') >= 0 || key.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a store key must not contain NUL or '\\': '" + key + "'");
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("a store key must not have an empty, '.' or '..' segment: '" + key + "'");
            }
        }
        if (isTemporary(lastSegment(key))) {
            throw new IllegalArgumentException("'" + key + "' looks like a store's temporary file (.NAME.part); choose another name");
        }
        return key;
    }

    /** A list prefix: "" or the start of a key (may end in '/'), never leaving the root. */
    public static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("a list prefix must not be null; use \"\" for everything");
        }
        if (prefix.startsWith("/") || prefix.indexOf('\0') >= 0 || prefix.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a list prefix must be relative to the store's root: '" + prefix + "'");
        }
        for (String segment : prefix.split("/", -1)) {
            if (segment.equals("..") || segment.equals(".")) {
                throw new IllegalArgumentException("a list prefix must not have a '.' or '..' segment: '" + prefix + "'");
            }
        }
        return prefix;
    }

    /**
     * Names the directory and SFTP stores write before the rename ({@code .NAME.part} or
     * {@code .NAME.RANDOM.part}): never listed, so a reader never sees a write in progress.
     */
    static boolean isTemporary(String fileName) {
        return fileName.startsWith(".") && fileName.endsWith(".part");
    }

    /** A content's version where the store has no ETag of its own: its SHA-256, in hex. */
    static String sha256(byte[] content) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(content));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    static String lastSegment(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }
}
