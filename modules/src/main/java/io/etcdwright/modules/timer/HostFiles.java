package io.etcdwright.modules.timer;

import io.etcdwright.engine.facts.FileState;

/**
 * A host's files as its facts saw them (a missing file is a missing {@link FileState}): all a timer
 * job reads to tell what differs, what is there and what was observed, so that it depends on the
 * files alone and not on the whole host's facts.
 */
@FunctionalInterface
public interface HostFiles {
    FileState file(String path);
}
