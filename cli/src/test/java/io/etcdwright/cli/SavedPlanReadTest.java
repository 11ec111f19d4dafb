package io.etcdwright.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.ssh.HostSession;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A plan file given to {@code apply} is input like any other: bounded, and refused as file:line:col. */
class SavedPlanReadTest {

    @TempDir
    Path dir;

    private String refusal(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        return refusal(file);
    }

    private static String refusal(Path file) {
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertThrows(InvalidInputException.class, () -> SavedPlan.read(file)));
        assertEquals(1, e.problems().size(), e.getMessage());
        return e.problems().get(0).toString();
    }

    private String plan(String inventorySha) throws Exception {
        return """
                {"format": 1, "created_at": "2026-01-01T00:00:00Z", "inventory": "%s",
                 "inventory_sha256": "%s", "spec": "%s", "spec_sha256": "%s",
                 "fingerprint": "f", "steps": ["h1: install etcd 3.5.16"]}
                """.formatted(input("hosts.yaml", "all: {}\n"), inventorySha, input("demo.yaml", "cluster: {}\n"),
                HostSession.sha256("cluster: {}\n".getBytes(StandardCharsets.UTF_8)));
    }

    private Path input(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private static String sha256(String text) {
        return HostSession.sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aPlanFileWrittenByPlanIsRead() throws Exception {
        Path file = dir.resolve("ok.plan");
        Files.writeString(file, plan(sha256("all: {}\n")));
        SavedPlan read = SavedPlan.read(file);
        assertEquals(dir.resolve("hosts.yaml"), read.inventory());
        assertEquals(List.of("h1: install etcd 3.5.16"), read.lines());
    }

    /** A stale plan costs nothing: it is refused at the digest that no longer matches, before any host. */
    @Test
    void aPlanWhoseInputsChangedOrWentAwayIsRefusedAtTheField() throws Exception {
        String plan = plan(sha256("all: {}\n"));
        Files.writeString(dir.resolve("hosts.yaml"), "all: {hosts: {h9: {}}}\n");
        assertEquals(dir.resolve("changed.plan") + ":2:22: error: inventory_sha256: the inventory " + dir.resolve("hosts.yaml")
                + " changed since this plan was made; run 'etcdwright plan --out' again and review the new plan",
                refusal("changed.plan", plan));
        Files.delete(dir.resolve("demo.yaml"));
        assertEquals(dir.resolve("gone.plan") + ":2:98: error: spec: the desired state this plan was made from, \""
                + dir.resolve("demo.yaml") + "\", is gone (no such file); run 'etcdwright plan --out' again",
                refusal("gone.plan", plan));
    }

    @Test
    void aDuplicateKeyOrTrailingTextIsNotAPlanFile() throws Exception {
        assertEquals(dir.resolve("dup.plan") + ":1:15: error: format: is given twice (a duplicate key): the plan file is"
                + " damaged; run 'etcdwright plan --out' again", refusal("dup.plan", "{\"format\": 1, \"format\": 1}"));
        String trailing = refusal("trailing.plan", "{\"format\": 1}\n{\"format\": 1}\n");
        assertTrue(trailing.startsWith(dir.resolve("trailing.plan") + ":2:"), trailing);
        assertTrue(trailing.contains("error: not a plan file: invalid JSON: Trailing token"), trailing);
    }

    @Test
    void malformedJsonIsRefusedAtItsPosition() throws Exception {
        String problem = refusal("bad.plan", "{\"format\": 1,\n  \"inventory\": oops}\n");
        assertTrue(problem.startsWith(dir.resolve("bad.plan") + ":2:20: error: not a plan file: invalid JSON: Unrecognized token 'oops'"), problem);
    }

    @Test
    void deepJsonIsRefused() throws Exception {
        String problem = refusal("deep.plan", "[".repeat(100_000) + "]".repeat(100_000));
        assertTrue(problem.startsWith(dir.resolve("deep.plan") + ":1:"), problem);
        assertTrue(problem.contains("not a plan file: ") && problem.contains("(plan files are small and flat)"), problem);
    }

    @Test
    void largeBinaryEmptyAndForeignFilesAreRefused() throws Exception {
        Path huge = dir.resolve("huge.plan");
        Files.writeString(huge, "[\"" + "x".repeat(5 * 1024 * 1024) + "\"]");
        assertEquals(huge + ":1:1: error: the file is larger than 4 MiB, so it is not a plan file written by etcdwright plan --out",
                refusal(huge));
        Path binary = dir.resolve("binary.plan");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xfd});
        assertEquals(binary + ":1:1: error: cannot read: not UTF-8 text, so not a plan file (is this the right file?)",
                refusal(binary));
        assertEquals(dir.resolve("empty.plan") + ":1:1: error: the file is empty; expected a plan written by etcdwright plan --out",
                refusal("empty.plan", ""));
        assertEquals(dir.resolve("list.plan") + ":1:1: error: is not a plan file written by etcdwright plan --out (expected a"
                + " JSON object)", refusal("list.plan", "[1]"));
        assertEquals(dir.resolve("v2.plan") + ":1:12: error: format: is not a plan file this etcdwright can apply (format 2,"
                + " expected 1, or \"etcdwright-rollout\" for a rollout saved with 'etcdwright rollout plan --out'); run"
                + " 'etcdwright plan --out' again", refusal("v2.plan", "{\"format\": 2}"));
        assertEquals(dir.resolve("sha.plan") + ":2:22: error: inventory_sha256: must be a sha256 digest (64 hex digits), got"
                + " \"not-a-digest\"", refusal("sha.plan", plan("not-a-digest")));
        assertEquals(dir + ":1:1: error: cannot read: it is a directory, not a plan file", refusal(dir));
        assertEquals("/dev/zero:1:1: error: cannot read: not a regular file", refusal(Path.of("/dev/zero")));
        assertEquals(dir.resolve("nope.plan") + ":1:1: error: cannot read: no such file (looked for " + dir.resolve("nope.plan") + ")",
                refusal(dir.resolve("nope.plan")));
    }

    @Test
    void applyPrintsTheProblemAndExitsOne() throws Exception {
        Path file = dir.resolve("bad.plan");
        Files.writeString(file, "{\"format\": 1,\n  \"inventory\": oops}\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"apply", file.toString()}, new PrintWriter(out), new PrintWriter(err));
        assertEquals(1, code);
        assertTrue(err.toString().startsWith(file + ":2:20: error: not a plan file: invalid JSON: Unrecognized token 'oops'"), err.toString());
        assertFalse(err.toString().contains("\tat "), err.toString());
    }
}
