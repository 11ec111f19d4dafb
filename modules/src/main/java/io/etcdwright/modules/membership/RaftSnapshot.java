package io.etcdwright.modules.membership;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's raft snapshot file, {@code member/snap/<term>-<index>.snap}, named by etcd's snap
 * package as two 16-digit hex numbers ({@code %016x-%016x.snap}): the raft term and index the
 * snapshot covers. etcd writes it together with a snapshot record in the WAL, and at start replays
 * its log from the newest such record: every entry up to {@code index} is never read again.
 *
 * @param term  the raft term of the last entry it covers
 * @param index the raft index of the last entry it covers
 */
public record RaftSnapshot(long term, long index) {
    private static final Pattern NAME = Pattern.compile("([0-9a-f]{16})-([0-9a-f]{16})\\.snap");

    /** The snapshot a file name stands for; empty for any other name (etcd's .snap.db, a .broken, a temp file). */
    public static Optional<RaftSnapshot> fromFileName(String name) {
        Matcher m = NAME.matcher(name.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new RaftSnapshot(Long.parseUnsignedLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16)));
    }

    /** The file name etcd gives it. */
    public String fileName() {
        return String.format("%016x-%016x.snap", term, index);
    }
}
