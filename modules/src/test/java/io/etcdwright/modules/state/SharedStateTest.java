package io.etcdwright.modules.state;

import io.etcdwright.modules.backup.crypto.Openssl;
import io.etcdwright.modules.backup.crypto.PrivateKeys;
import io.etcdwright.modules.backup.crypto.Recipients;
import io.etcdwright.modules.backup.crypto.SharedKey;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.backup.store.VersionConflictException;
import io.etcdwright.modules.lock.ClusterLockedException;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.KeyAlgorithm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared state's rules on a real directory store: two workstations' caches, one store; what a
 * refresh takes, what a write-back refuses, and that the store holds ciphertext only.
 */
class SharedStateTest {
    @TempDir
    Path tmp;

    private DirectoryStore store;
    private SharedKey key;
    private final List<String> notes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        store = new DirectoryStore(tmp.resolve("store"));
        byte[] raw = new byte[32];
        new java.security.SecureRandom().nextBytes(raw);
        key = SharedKey.parse(Base64.getEncoder().encodeToString(raw), "the test's key");
    }

    private StateCipher cipher(SharedKey k) {
        return new StateCipher(Optional.of(k), "the test's key", Optional.empty(), List.of(), Optional.empty(), Optional.empty(),
                Optional.empty(), true);
    }

    private SharedState workstation(String name) {
        return workstation(name, cipher(key));
    }

    private SharedState workstation(String name, StateCipher c) {
        Path home = tmp.resolve(name);
        SharedTree tree = new SharedTree(Map.of("pki", home.resolve("pki"), "removed-hosts", home.resolve("removed-hosts")));
        return new SharedState(store, c, "prod", tree, home.resolve("state.json"), home.resolve("state-aside"), "apply", notes::add);
    }

    private static Path pki(SharedState ws) {
        return ws.tree().roots().get("pki");
    }

    /** A real CA in a workstation's PKI directory, as the first apply makes it. */
    private static CertificateAuthority createCa(SharedState ws) {
        CertificateAuthority ca = CertificateAuthority.generate("etcd CA for cluster prod", KeyAlgorithm.fromName("ecdsa-p256"),
                Duration.ofDays(3650), Clock.systemUTC());
        ca.writeTo(pki(ws));
        return ca;
    }

    @Test
    void aSecondWorkstationGetsTheFirstsPkiAndTheStoreHoldsNoSecretInClear() throws Exception {
        SharedState first = workstation("ws1");
        first.refresh(SharedState.Purpose.WRITE);
        createCa(first);
        first.writeBack();
        byte[] caKey = Files.readAllBytes(pki(first).resolve("ca.key"));

        SharedState second = workstation("ws2");
        second.refresh(SharedState.Purpose.READ);
        assertArrayEquals(caKey, Files.readAllBytes(pki(second).resolve("ca.key")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pki(second).resolve("ca.key"))));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(pki(second).resolve("ca.crt"))));
        assertTrue(notes.stream().anyMatch(n -> n.contains("read from") && n.contains("serial 1")), notes.toString());

        for (Store.StoredObject o : store.list("")) {
            byte[] bytes = store.read(o.key()).orElseThrow().content();
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            assertFalse(text.contains("PRIVATE KEY"), o.key() + " holds a PEM private key");
            assertFalse(text.contains("BEGIN CERTIFICATE"), o.key() + " holds a certificate in clear");
            String pem = new String(caKey, StandardCharsets.US_ASCII);
            byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").strip());
            assertTrue(indexOf(bytes, der) < 0, "the CA key's DER is in " + o.key() + " in clear");
            for (int i = 0; i + 16 <= der.length; i += 16) {
                byte[] piece = java.util.Arrays.copyOfRange(der, i, i + 16);
                assertTrue(indexOf(bytes, piece) < 0, "16 bytes of the CA key at " + i + " are in " + o.key());
            }
        }
    }

    @Test
    void aStaleCacheIsRefreshedAndANewerStoreIsNeverOverwritten() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        first.push(false);
        SharedState second = workstation("ws2");
        second.refresh(SharedState.Purpose.WRITE);
        // The second workstation issues something and writes it back: serial 2.
        Files.writeString(pki(second).resolve("issued.crt"), "renewed\n");
        second.writeBack();
        assertEquals(2, second.record().orElseThrow().serial());

        // The first, still at serial 1, changes its cache without reading the store first (locks bypassed):
        Files.writeString(pki(first).resolve("other.crt"), "mine\n");
        StateException refused = assertThrows(StateException.class, first::writeBack);
        assertTrue(refused.getMessage().contains("serial 2, written by"), refused.getMessage());
        assertTrue(refused.getMessage().contains("Nothing was overwritten"), refused.getMessage());
        assertEquals(2, StateObject.peek(store.read(SharedState.key("prod")).orElseThrow().content(), "x").serial());
        // ... and both moved: a command that would write is refused, one that reads warns and goes on.
        assertThrows(StateException.class, () -> first.refresh(SharedState.Purpose.WRITE));
        notes.clear();
        first.refresh(SharedState.Purpose.READ);
        assertTrue(notes.get(0).contains("warning"), notes.toString());
        // Taking the store's keeps its own aside.
        SharedState.Pulled pulled = first.pull(true);
        assertEquals(2, pulled.header().serial());
        assertTrue(Files.exists(pulled.setAside().orElseThrow().resolve("pki/other.crt")));
        assertFalse(Files.exists(pki(first).resolve("other.crt")));
        assertEquals("renewed\n", Files.readString(pki(first).resolve("issued.crt")));
    }

    @Test
    void aCacheWithNothingOfItsOwnIsRefreshedWhenTheStoreMovesOn() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        first.push(false);
        SharedState second = workstation("ws2");
        second.refresh(SharedState.Purpose.READ);
        Files.writeString(pki(second).resolve("members-h4.crt"), "grown\n");
        second.writeBack();
        notes.clear();
        first.refresh(SharedState.Purpose.READ);
        assertEquals("grown\n", Files.readString(pki(first).resolve("members-h4.crt")));
        assertTrue(notes.get(0).contains("refreshed") && notes.get(0).contains("serial 2"), notes.toString());
        // A file the store no longer holds goes from the cache too.
        Files.delete(pki(second).resolve("members-h4.crt"));
        second.writeBack();
        first.refresh(SharedState.Purpose.READ);
        assertFalse(Files.exists(pki(first).resolve("members-h4.crt")));
    }

    @Test
    void anEmptyStoreBesideALocalPkiIsMovedOnlyByAPush() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        StateException refused = assertThrows(StateException.class, () -> first.refresh(SharedState.Purpose.WRITE));
        assertTrue(refused.getMessage().contains("state push"), refused.getMessage());
        assertTrue(store.read(SharedState.key("prod")).isEmpty(), "nothing was moved silently");
        SharedState.Pushed pushed = first.push(false);
        assertEquals(1, pushed.header().orElseThrow().serial());
        assertTrue(pushed.files().stream().anyMatch(f -> f.path().equals("pki/ca.key") && f.secret()));
        first.refresh(SharedState.Purpose.WRITE);
    }

    @Test
    void aStoreThatWentBackIsRefusedAndPushedOverOnlyExplicitly() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        first.push(false);
        byte[] serial1 = store.read(SharedState.key("prod")).orElseThrow().content();
        Files.writeString(pki(first).resolve("more.crt"), "x\n");
        first.writeBack();
        // Someone restores the older object.
        store.put(SharedState.key("prod"), serial1);
        StateException refused = assertThrows(StateException.class, () -> first.refresh(SharedState.Purpose.WRITE));
        assertTrue(refused.getMessage().contains("went back"), refused.getMessage());
        assertTrue(Files.exists(pki(first).resolve("more.crt")), "the newer local copy is kept");
        SharedState.Pushed pushed = first.push(false);
        assertEquals(3, pushed.header().orElseThrow().serial());
        assertTrue(pushed.keptAs().isPresent(), "the older version is kept in the store");
    }

    @Test
    void aWrongKeyATamperedObjectAndAForgedHeaderAreRefusedNamingWhatToDo() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        first.push(false);
        byte[] raw = new byte[32];
        SharedKey other = SharedKey.parse(Base64.getEncoder().encodeToString(raw), "the environment variable ETCDWRIGHT_STATE_KEY");
        StateException wrong = assertThrows(StateException.class,
                () -> workstation("ws2", cipher(other)).refresh(SharedState.Purpose.READ));
        assertTrue(wrong.getMessage().contains("not encrypted with this key") && wrong.getMessage().contains(key.idHex()),
                wrong.getMessage());
        assertTrue(wrong.getMessage().contains("Give the key"), wrong.getMessage());
        assertFalse(Files.exists(tmp.resolve("ws2/pki")), "nothing half-written");

        byte[] object = store.read(SharedState.key("prod")).orElseThrow().content();
        byte[] flipped = object.clone();
        flipped[flipped.length - 40] ^= 1;
        store.put(SharedState.key("prod"), flipped);
        StateException tampered = assertThrows(StateException.class,
                () -> workstation("ws3").refresh(SharedState.Purpose.READ));
        assertTrue(tampered.getMessage().contains("changed or damaged"), tampered.getMessage());
        assertFalse(Files.exists(tmp.resolve("ws3/pki")), "nothing half-written");

        String text = new String(object, StandardCharsets.ISO_8859_1).replaceFirst("\"serial\":1", "\"serial\":9");
        store.put(SharedState.key("prod"), text.getBytes(StandardCharsets.ISO_8859_1));
        StateException forged = assertThrows(StateException.class,
                () -> workstation("ws4").refresh(SharedState.Purpose.READ));
        assertTrue(forged.getMessage().contains("was changed"), forged.getMessage());
    }

    @Test
    void recipientsAloneEncryptAndTheirPrivateKeyOpens() throws Exception {
        Openssl.KeyFiles pair = Openssl.ecKeyPair(tmp, "alice");
        StateCipher toAlice = new StateCipher(Optional.empty(), "", Optional.empty(), Recipients.read(pair.certificate()),
                Optional.of(PrivateKeys.read(pair.key())), Optional.empty(), Optional.empty(), false);
        SharedState first = workstation("ws1", toAlice);
        createCa(first);
        first.push(false);
        SharedState second = workstation("ws2", toAlice);
        second.refresh(SharedState.Purpose.READ);
        assertTrue(Files.exists(pki(second).resolve("ca.key")));
        StateCipher noKey = new StateCipher(Optional.empty(), "", Optional.empty(), Recipients.read(pair.certificate()),
                Optional.empty(), Optional.empty(), Optional.of("ETCDWRIGHT_STATE_PRIVATE_KEY is not set"), false);
        StateException refused = assertThrows(StateException.class, () -> workstation("ws3", noKey).refresh(SharedState.Purpose.READ));
        assertTrue(refused.getMessage().contains("ETCDWRIGHT_STATE_PRIVATE_KEY is not set"), refused.getMessage());
    }

    @Test
    void opensslOpensTheStateByHandWithTheSharedKey() throws Exception {
        SharedState first = workstation("ws1");
        createCa(first);
        first.push(false);
        byte[] object = store.read(SharedState.key("prod")).orElseThrow().content();
        int second = 0;
        for (int i = 0, lines = 0; i < object.length && lines < 2; i++) {
            if (object[i] == '\n') {
                lines++;
                second = i;
            }
        }
        Path cms = tmp.resolve("state.p7m");
        Files.write(cms, java.util.Arrays.copyOfRange(object, second + 1, object.length));
        Path plain = tmp.resolve("state.json");
        java.lang.reflect.Field raw = SharedKey.class.getDeclaredField("key");
        raw.setAccessible(true);
        String out = runOpenssl("cms", "-decrypt", "-inform", "DER", "-in", cms.toString(), "-out", plain.toString(),
                "-secretkey", HexFormat.of().formatHex((byte[]) raw.get(key)), "-secretkeyid", key.idHex());
        assertTrue(Files.readString(plain).contains("\"pki/ca.key\""), out);
    }

    private static String runOpenssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("/usr/bin/openssl"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), output);
        return output;
    }

    @Test
    void theStoresLockDecidesBetweenWorkstationsAndEndsWithItsHolder() throws Exception {
        LockHolder alice = new LockHolder("alice", "ws1", 1, "apply", Instant.now(), "t1", "elsewhere");
        LockHolder bob = new LockHolder("bob", "ws2", 2, "apply", Instant.now(), "t2", "elsewhere");
        try (StoreLock held = StoreLock.take(store, "prod", alice, Duration.ZERO, notes::add)) {
            ClusterLockedException refused = assertThrows(ClusterLockedException.class,
                    () -> StoreLock.take(store, "prod", bob, Duration.ZERO, notes::add));
            assertTrue(refused.getMessage().contains("alice@ws1 (etcdwright apply"), refused.getMessage());
            assertFalse(refused.getMessage().contains("t1"), "the token is never shown");
        }
        assertTrue(store.read(StoreLock.key("prod")).isEmpty(), "released");
        // A holder that stopped renewing: its lock is taken over once expired.
        store.put(StoreLock.key("prod"), StoreLock.body(alice, Instant.now().minusSeconds(1)));
        try (StoreLock taken = StoreLock.take(store, "prod", bob, Duration.ZERO, notes::add)) {
            assertTrue(notes.stream().anyMatch(n -> n.contains("took over") && n.contains("alice@ws1")), notes.toString());
        }
    }

    @Test
    void theDirectoryStoresCompareAndSwapHasOneWinner() throws Exception {
        String v1 = store.putIfVersion("k", "one".getBytes(), Optional.empty());
        assertThrows(VersionConflictException.class, () -> store.putIfVersion("k", "two".getBytes(), Optional.empty()));
        String v2 = store.putIfVersion("k", "two".getBytes(), Optional.of(v1));
        VersionConflictException stale = assertThrows(VersionConflictException.class,
                () -> store.putIfVersion("k", "three".getBytes(), Optional.of(v1)));
        assertEquals(Optional.of(v2), stale.current());
        assertThrows(VersionConflictException.class, () -> store.deleteIfVersion("k", v1));
        store.deleteIfVersion("k", v2);
        assertTrue(store.read("k").isEmpty());
        assertTrue(store.list("").isEmpty(), "the lock file is never listed: " + store.list(""));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
