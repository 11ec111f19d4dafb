package io.etcdwright.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YamlDocumentTest {

    private static final Path FILE = Path.of("inventories/x.yaml");

    @TempDir
    Path dir;

    private static YamlDocument parse(String text) {
        return YamlDocument.parse(FILE, text);
    }

    private static Problem onlyProblem(String text) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> parse(text));
        assertEquals(1, e.problems().size(), e.getMessage());
        return e.problems().get(0);
    }

    @Test
    void scalarsAreTypedAsSnakeyamlResolvesYaml11() {
        JsonNode root = parse("""
                port: 22
                hex: 0x1F
                big: 123456789012345678901234567890
                ratio: 3.5
                version: 3.5.16
                quoted: "22"
                yes_: yes
                off_: off
                true_: true
                tilde: ~
                empty:
                word: etcd
                ip: 10.77.0.11
                """).root();
        assertTrue(root.get("port").isInt());
        assertEquals(22, root.get("port").asInt());
        assertEquals(31, root.get("hex").asInt());
        assertEquals(new BigInteger("123456789012345678901234567890"), root.get("big").bigIntegerValue());
        assertTrue(root.get("ratio").isDouble());
        assertTrue(root.get("version").isTextual());
        assertTrue(root.get("quoted").isTextual());
        assertEquals(true, root.get("yes_").booleanValue());
        assertEquals(false, root.get("off_").booleanValue());
        assertEquals(true, root.get("true_").booleanValue());
        assertTrue(root.get("tilde").isNull());
        assertTrue(root.get("empty").isNull());
        assertEquals("etcd", root.get("word").textValue());
        assertEquals("10.77.0.11", root.get("ip").textValue());
    }

    @Test
    void keepsTheSourceTextOfScalars() {
        YamlDocument document = parse("version: 3.10\n");
        assertEquals(3.1, document.root().get("version").doubleValue());
        assertEquals("3.10", document.sourceText(FieldPath.of("version")).orElseThrow());
    }

    @Test
    void locatesValuesKeysAndListItems() {
        YamlDocument document = parse("""
                etcd:
                  ports:
                    peer:   "x"
                members:
                  hosts: [h1, h2,   h3]
                """);
        assertEquals(new Location(FILE, 3, 13), document.locationOf("/etcd/ports/peer"));
        assertEquals(new Location(FILE, 3, 5), document.keyLocationOf("/etcd/ports/peer"));
        assertEquals(new Location(FILE, 5, 21), document.locationOf(FieldPath.of("members", "hosts").index(2)));
        assertEquals("inventories/x.yaml:5:21", document.locationOf("/members/hosts/2").toString());
    }

    @Test
    void aMissingPointerFallsBackToTheNearestParent() {
        YamlDocument document = parse("""
                etcd:
                  version: 3.5.16
                """);
        assertEquals(new Location(FILE, 2, 3), document.locationOf("/etcd/ports/client"));
        assertEquals(new Location(FILE, 1, 1), document.keyLocationOf("/etcd/ports/client"));
        assertEquals(new Location(FILE, 1, 1), document.locationOf("/nothing/here"));
        assertFalse(document.contains(FieldPath.of("etcd", "ports")));
    }

    @Test
    void anEmptyValueIsLocatedAtItsKey() {
        YamlDocument document = parse("""
                hosts:
                  h1:
                """);
        assertEquals(new Location(FILE, 2, 3), document.locationOf("/hosts/h1"));
    }

    @Test
    void refusesADuplicateKeyAtTheDuplicate() {
        Problem problem = onlyProblem("""
                all:
                  hosts:
                    h1:
                      ansible_host: 10.0.0.1
                    h1:
                """);
        assertEquals("inventories/x.yaml:5:5: error: all.hosts.h1: duplicate key 'h1' (first written at line 3);"
                + " YAML would silently keep only the last one, so write it once", problem.toString());
    }

    @Test
    void mergeKeysAreSplicedInAndMayBeOverridden() {
        JsonNode root = parse("""
                defaults: &defaults
                  ansible_user: root
                  ansible_port: 22
                h1:
                  <<: *defaults
                  ansible_port: 2222
                """).root();
        assertEquals("root", root.at("/h1/ansible_user").textValue());
        assertEquals(2222, root.at("/h1/ansible_port").intValue());
    }

    @Test
    void refusesASecondDocument() {
        Problem problem = onlyProblem("""
                a: 1
                ---
                b: 2
                """);
        assertEquals(new Location(FILE, 3, 1), problem.location());
        assertTrue(problem.message().startsWith("a second YAML document starts here"), problem.message());
    }

    @Test
    void aSyntaxErrorIsAProblemAtItsMark() {
        Problem problem = onlyProblem("""
                etcd:
                  version: 3.5.16
                  ports: client: 2379
                """);
        assertEquals("inventories/x.yaml:3:16: error: invalid YAML: mapping values are not allowed here", problem.toString());
    }

    @Test
    void anUnclosedQuoteNamesWhereItStarted() {
        Problem problem = onlyProblem("""
                cluster:
                  name: "demo
                etcd: {}
                """);
        assertEquals(Severity.ERROR, problem.severity());
        assertTrue(problem.message().contains("while scanning a quoted scalar at line 2, column 9"), problem.message());
    }

    @Test
    void tabsInIndentationAreASyntaxError() {
        Problem problem = onlyProblem("all:\n\thosts:\n");
        assertEquals(2, problem.location().line());
        assertTrue(problem.message().startsWith("invalid YAML: "), problem.message());
    }

    @Test
    void anExplicitTagOnTextOfAnotherTypeIsAProblem() {
        Problem problem = onlyProblem("port: !!int twenty-two\n");
        assertEquals("inventories/x.yaml:1:7: error: port: 'twenty-two' is not a valid int", problem.toString());
    }

    @Test
    void aMergeKeyNeedsMappings() {
        Problem problem = onlyProblem("h1:\n  <<: [1, 2]\n");
        assertEquals(new Location(FILE, 2, 7), problem.location());
        assertTrue(problem.message().startsWith("'<<' merges mappings only"), problem.message());
    }

    @Test
    void aRecursiveAliasIsRefused() {
        Problem problem = onlyProblem("a: &loop [*loop]\n");
        assertEquals("a[0]", problem.field());
        assertTrue(problem.message().contains("recursive"), problem.message());
    }

    @Test
    void anEmptyFileHasANullRoot() {
        assertTrue(parse("# nothing but a comment\n").root().isNull());
        assertTrue(parse("").root().isNull());
    }

    @Test
    void unknownTagsAreReadAsTextWithAWarning() {
        YamlDocument document = parse("password: !secret abc\n");
        assertEquals("abc", document.root().get("password").textValue());
        List<Problem> warnings = document.warnings();
        assertEquals(1, warnings.size());
        assertEquals(Severity.WARNING, warnings.get(0).severity());
        assertEquals("password", warnings.get(0).field());
    }

    @Test
    void ansiblesVaultAndUnsafeTagsAreTextWithoutAWarning() {
        // A vaulted password etcdwright never reads is no business of its; where it reads a
        // vaulted value the inventory check refuses it.
        YamlDocument document = parse("password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nraw: !unsafe '{{ x }}'\n");
        assertEquals("$ANSIBLE_VAULT;1.1;AES256\n6162\n", document.root().get("password").textValue());
        assertEquals("{{ x }}", document.root().get("raw").textValue());
        assertEquals(List.of(), document.warnings());
    }

    @Test
    void aMissingFileIsAProblemNotAStackTrace() {
        Path missing = dir.resolve("nope.yaml");
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> YamlDocument.load(missing));
        Problem problem = e.problems().get(0);
        assertEquals(Location.ofFile(missing), problem.location());
        assertEquals(missing + ":1:1: error: cannot read: no such file (looked for " + missing + ")", problem.toString());
    }

    @Test
    void aDirectoryIsRefusedClearly() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> YamlDocument.load(dir));
        assertEquals("cannot read: it is a directory, not a file", e.problems().get(0).message());
    }

    @Test
    void binaryContentIsRefusedClearly() throws IOException {
        Path binary = dir.resolve("binary.yaml");
        Files.write(binary, new byte[] {(byte) 0xC3, (byte) 0x28, 0x0A});
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> YamlDocument.load(binary));
        assertTrue(e.problems().get(0).message().contains("not UTF-8"));
    }

    @Test
    void loadsAFileAndSkipsAByteOrderMark() throws IOException {
        Path file = dir.resolve("bom.yaml");
        Files.writeString(file, "\uFEFFa: 1\n", StandardCharsets.UTF_8);
        YamlDocument document = YamlDocument.load(file);
        assertEquals(1, document.root().get("a").asInt());
        assertEquals(new Location(file, 1, 4), document.locationOf("/a"));
    }

    @Test
    void exceptionMessageListsEveryProblem() {
        InvalidInputException e = new InvalidInputException(List.of(
                Problem.error(new Location(FILE, 7, 12), "etcd.ports.peer", "must be an integer, got string \"x\""),
                Problem.warning(new Location(FILE, 9, 3), "members", "4 members tolerate no more failures than 3; use 3 or 5")));
        assertEquals("""
                cannot use this input: 1 error, 1 warning
                inventories/x.yaml:7:12: error: etcd.ports.peer: must be an integer, got string "x"
                inventories/x.yaml:9:3: warning: members: 4 members tolerate no more failures than 3; use 3 or 5""",
                e.getMessage());
        assertEquals(1, e.errors().size());
        assertEquals(1, e.warnings().size());
    }

    @Test
    void fieldPathsSpellBothWays() {
        FieldPath path = FieldPath.of("members", "hosts").index(2);
        assertEquals("members.hosts[2]", path.toString());
        assertEquals("/members/hosts/2", path.pointer());
        assertEquals("/a~1b/c~0d", FieldPath.of("a/b", "c~d").pointer());
        assertTrue(FieldPath.of("members").contains(path));
        assertFalse(path.contains(FieldPath.of("members")));
    }
}
