package io.etcdwright.modules.backup;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.etcd.jetcd.api.StatusResponse;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcd 3.6's Status fields read from jetcd's older message, which keeps them as unknown fields:
 * {@code storageVersion = 11}, {@code downgradeInfo = 13 {enabled = 1, targetVersion = 2}}, as
 * etcd@v3.6.14 api/etcdserverpb/rpc.proto numbers them. The bytes are written here as etcd writes
 * them (proto3: false and empty fields left out).
 */
class MemberRpcStatusFieldsTest {

    private static StatusResponse status(Optional<String> storage, Optional<byte[]> downgradeInfo) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeString(2, "3.6.16");
        storage.ifPresent(s -> write(() -> out.writeString(11, s)));
        out.writeInt64(12, 2147483648L);
        downgradeInfo.ifPresent(info -> write(() -> out.writeBytes(13, ByteString.copyFrom(info))));
        out.flush();
        return StatusResponse.parseFrom(bytes.toByteArray());
    }

    private static byte[] downgradeInfo(boolean enabled, String target) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        if (enabled) {
            out.writeBool(1, true);
        }
        if (!target.isEmpty()) {
            out.writeString(2, target);
        }
        out.flush();
        return bytes.toByteArray();
    }

    private interface Write {
        void run() throws IOException;
    }

    private static void write(Write w) {
        try {
            w.run();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aDowngradeUnderWayAndTheStorageVersionAreRead() throws IOException {
        StatusResponse s = status(Optional.of("3.5.0"), Optional.of(downgradeInfo(true, "3.5.0")));
        assertEquals("3.6.16", s.getVersion());
        assertEquals(Optional.of("3.5.0"), MemberRpc.storageVersion(s));
        assertEquals(Optional.of("3.5.0"), MemberRpc.downgradeTarget(s));
        assertTrue(MemberRpc.reportsDowngrade(s));
    }

    @Test
    void noDowngradeIsAnEmptyDowngradeInfoAndSaysSo() throws IOException {
        // etcd 3.6 always sets downgradeInfo; with nothing under way it is an empty message.
        StatusResponse s = status(Optional.of("3.6.0"), Optional.of(new byte[0]));
        assertTrue(MemberRpc.downgradeTarget(s).isEmpty());
        assertTrue(MemberRpc.reportsDowngrade(s));
        // A target left over without 'enabled' (a cancelled downgrade keeps none, but the check is on enabled).
        StatusResponse cancelled = status(Optional.of("3.6.0"), Optional.of(downgradeInfo(false, "3.5.0")));
        assertTrue(MemberRpc.downgradeTarget(cancelled).isEmpty());
    }

    @Test
    void anOlderMemberSaysNeither() throws IOException {
        StatusResponse s = status(Optional.empty(), Optional.empty());
        assertTrue(MemberRpc.storageVersion(s).isEmpty());
        assertTrue(MemberRpc.downgradeTarget(s).isEmpty());
        assertFalse(MemberRpc.reportsDowngrade(s));
    }
}
