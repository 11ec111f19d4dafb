package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The snapshot a restore plan restores, as far as it is known when planned: a file or backup the
 * operator named (known, checked on the workstation), the snapshot an interrupted restore staged on
 * the members (known from their markers), or one a step of the same plan takes when the apply runs
 * (a minor downgrade's: one taken when planning would miss every write made before the apply).
 * Steps read it with {@link #get()} when they run; the step taking it hands it over with
 * {@link #taken}.
 */
public final class RestoreSnapshot {
    private final String origin;
    private final Optional<SnapshotSource> known;
    private final Optional<Version> takenBy;
    private final AtomicReference<SnapshotSource> taken = new AtomicReference<>();

    private RestoreSnapshot(String origin, Optional<SnapshotSource> known, Optional<Version> takenBy) {
        this.origin = origin;
        this.known = known;
        this.takenBy = takenBy;
    }

    public static RestoreSnapshot of(SnapshotSource source) {
        return new RestoreSnapshot(source.origin(), Optional.of(source), source.takenBy());
    }

    /** Taken by a step of the plan when it runs, from a cluster running {@code takenBy}. */
    public static RestoreSnapshot takenWhenApplied(String origin, Version takenBy) {
        return new RestoreSnapshot(origin, Optional.empty(), Optional.of(takenBy));
    }

    /**
     * The snapshot a restore interrupted after its stops staged on every member, as the markers
     * describe it; the file itself is on the members ({@link RestoreSteps#stagedPath}), not here.
     */
    static RestoreSnapshot staged(RestoreMarker marker) {
        RestoreMarker.Snapshot s = marker.snapshot().orElseThrow();
        String staged = RestoreSteps.stagedPath(marker.snapshotSha256());
        return of(new SnapshotSource("the snapshot an interrupted restore staged on the members (" + staged + ")",
                Path.of(staged), marker.snapshotSha256(), s.bytes(), true, s.takenBy(), s.revision(), s.liveKeys()));
    }

    /** The step taking it hands it over here. */
    public void taken(SnapshotSource source) {
        if (known.isPresent()) {
            throw new IllegalStateException("the snapshot of this restore was known when planned: " + origin);
        }
        taken.set(source);
    }

    /** The snapshot, when a step runs. */
    public SnapshotSource get() {
        return known.or(() -> Optional.ofNullable(taken.get())).orElseThrow(() -> new IllegalStateException(
                "the snapshot (" + origin + ") was not taken in this apply: the step taking it did not run"));
    }

    /** What the plan names it by. */
    public String origin() {
        return origin;
    }

    /** The snapshot itself, when it is known before the apply runs. */
    public Optional<SnapshotSource> known() {
        return known;
    }

    /** The etcd version of the cluster that took it, when known. */
    public Optional<Version> takenBy() {
        return takenBy;
    }
}
