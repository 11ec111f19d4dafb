package io.etcdwright.engine.plan;

/**
 * Before and after of a file a step writes, for {@code --diff}. Only files without secrets get
 * one (config, unit); key material is compared by digest and never has a diff.
 */
public record FileDiff(String path, String before, String after) {
}
