package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a restore in flight is known by: its markers on the hosts, its snapshot, and etcdwright's write fence. */
class RestoreInFlightTest {
    static final String SHA = "0f".repeat(32);
    static final SnapshotSource SOURCE = new SnapshotSource("/snapshots/before-minor-downgrade-x.db",
            Path.of("/snapshots/before-minor-downgrade-x.db"), SHA, 565280, true, Optional.of(Version.parse("3.5.16")),
            Optional.of(4227L), Optional.of(4226L));

    @Test
    void aStoppedMarkerCarriesWhatTheSnapshotHoldsSoTheNextApplyCanFinishWithoutTheFile() {
        RestoreMarker stopped = RestoreMarker.of(SOURCE, "down-1", RestoreMarker.State.STOPPED, Optional.empty());
        String text = new String(stopped.render(), StandardCharsets.UTF_8);
        assertEquals(Optional.of(stopped), RestoreMarker.parse(text), text);
        assertTrue(stopped.inFlight());
        assertFalse(stopped.resumes(SHA, "down-1"), "stopped is not restored: its data must still be restored");

        SnapshotSource staged = RestoreSnapshot.staged(stopped).get();
        assertEquals(SHA, staged.sha256());
        assertEquals("/var/lib/etcdwright/restore/" + SHA.substring(0, 16) + ".db", staged.file().toString());
        assertEquals(List.of(565280L, 4227L, 4226L), List.of(staged.bytes(), staged.revision().orElseThrow(),
                staged.liveKeys().orElseThrow()));
        assertEquals(Optional.of(Version.parse("3.5.16")), staged.takenBy());
        assertFalse(stopped.proven().inFlight());
    }

    @Test
    void aMarkerWrittenBeforeTheSnapshotWasRecordedStillReads() {
        Optional<RestoreMarker> old = RestoreMarker.parse("snapshot=" + SHA + "\ntoken=t\nstate=restored\nmoved-to=/var/lib/etcd.x\n");
        assertTrue(old.isPresent());
        assertEquals(Optional.empty(), old.get().snapshot());
        assertEquals(Optional.empty(), RestoreMarker.parse("snapshot=" + SHA + "\ntoken=t\nstate=halfway\n"));
    }

    @Test
    void aSnapshotTakenWhenAppliedIsReadByTheStepsAfterTheOneTakingIt() {
        RestoreSnapshot later = RestoreSnapshot.takenWhenApplied("a snapshot taken when the apply runs", Version.parse("3.5.16"));
        assertEquals(Optional.empty(), later.known());
        IllegalStateException notYet = assertThrows(IllegalStateException.class, later::get);
        assertTrue(notYet.getMessage().contains("the step taking it did not run"), notYet.getMessage());
        later.taken(SOURCE);
        assertSame(SOURCE, later.get());
        assertThrows(IllegalStateException.class, () -> RestoreSnapshot.of(SOURCE).taken(SOURCE),
                "a snapshot known when planned is not replaced when applied");
    }

    @Test
    void theFenceIsToldFromARealNospaceByItsMemberId() {
        String ours = Long.toHexString(WriteFence.MEMBER_ID);
        assertEquals("6574636477726774", ours);
        assertEquals("etcdwrgt", new String(java.math.BigInteger.valueOf(WriteFence.MEMBER_ID).toByteArray(), StandardCharsets.US_ASCII));
        assertTrue(WriteFence.raisedIn(cluster(new MemberFacts.Alarm(ours, "NOSPACE"))));
        assertFalse(WriteFence.raisedIn(cluster(new MemberFacts.Alarm("8cfd123350307444", "NOSPACE"))), "a real NOSPACE");
        assertFalse(WriteFence.raisedIn(cluster(new MemberFacts.Alarm(ours, "CORRUPT"))));
        assertFalse(WriteFence.raisedIn(Optional.empty()));
    }

    private static Optional<ClusterStatus> cluster(MemberFacts.Alarm alarm) {
        return Optional.of(new ClusterStatus(List.of(), Optional.of("1b44ba5e3cd95b65"), true, Optional.of("3.5.0"), List.of(alarm)));
    }
}
