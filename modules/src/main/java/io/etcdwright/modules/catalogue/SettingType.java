package io.etcdwright.modules.catalogue;

/** How etcd's config file holds a key's value (and so how a flag's text becomes one). */
public enum SettingType {
    BOOL,
    INT,
    /** Go's time.Duration: nanoseconds in the config file; a flag or the spec may say "5s". */
    DURATION,
    STRING,
    /** A YAML list (comma-separated as a flag). */
    LIST,
    /** The feature-gates string, "Name=true,Other=false". */
    GATES,
    /** A mapping (TLS, socket options): never passed through etcd.settings. */
    OBJECT
}
