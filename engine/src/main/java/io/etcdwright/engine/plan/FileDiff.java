package io.etcdwright.engine.plan;

/**
 * Before and after of a file a step writes, for {@code --diff}. Secrets never get here: callers
 * pass redacted text for key material ({@link #redacted}).
 */
public record FileDiff(String path, String before, String after) {
    public static FileDiff redacted(String path, boolean existed) {
        return new FileDiff(path, existed ? "(secret, not shown)" : "", "(secret, not shown)");
    }
}
