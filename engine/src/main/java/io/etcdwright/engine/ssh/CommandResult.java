package io.etcdwright.engine.ssh;

/** What one remote command did. */
public record CommandResult(String command, int exitCode, String stdout, String stderr) {
    public boolean succeeded() {
        return exitCode == 0;
    }

    /** Throws with the command's own words when it failed: for steps that cannot go on. */
    public CommandResult orThrow(String host) {
        if (!succeeded()) {
            throw new RemoteCommandException(host, this);
        }
        return this;
    }
}
