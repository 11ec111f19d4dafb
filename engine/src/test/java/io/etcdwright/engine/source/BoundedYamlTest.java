package io.etcdwright.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile or broken files are refused quickly as file:line:col problems: never an
 * OutOfMemoryError, a stack trace or a hang. The time bound only guards against hangs.
 */
class BoundedYamlTest {

    private static final Duration BOUND = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private Problem onlyProblem(Path file) {
        InvalidInputException e = assertTimeoutPreemptively(BOUND,
                () -> assertThrows(InvalidInputException.class, () -> YamlDocument.load(file)));
        assertEquals(1, e.errors().size(), e.getMessage());
        return e.errors().get(0);
    }

    private List<Problem> problems(Path file) {
        InvalidInputException e = assertTimeoutPreemptively(BOUND,
                () -> assertThrows(InvalidInputException.class, () -> YamlDocument.load(file)));
        return e.errors();
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    /**
     * The classic bomb, kept inside snakeyaml's cap of 50 aliases: sixteen levels of three aliases
     * each over ten strings expand to 10 x 3^16, about 430 million values.
     */
    private static String billionLaughs() {
        StringBuilder yaml = new StringBuilder("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (int level = 1; level <= 16; level++) {
            String previous = "*a" + (level - 1);
            yaml.append("a").append(level).append(": &a").append(level).append(" [")
                    .append(String.join(",", previous, previous, previous)).append("]\n");
        }
        return yaml.toString();
    }

    @Test
    void aBillionLaughsBombStopsAtTheExpansionLimit() throws IOException {
        Problem problem = onlyProblem(write("bomb.yaml", billionLaughs()));
        assertTrue(problem.toString().startsWith(dir.resolve("bomb.yaml") + ":"), problem.toString());
        assertTrue(problem.message().startsWith("aliases expand this document to more than 10000 values, 10 times what it writes;"
                + " this looks like a YAML alias bomb"), problem.message());
    }

    @Test
    void mergeKeysCountAsExpansionToo() throws IOException {
        StringBuilder yaml = new StringBuilder("m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n");
        // Eight levels of six merges each: 48 aliases, 8 x 6^8 (13 million) keys once merged.
        for (int level = 1; level <= 8; level++) {
            yaml.append("m").append(level).append(": &m").append(level).append(" {");
            for (int i = 0; i < 6; i++) {
                yaml.append("k").append(i).append(": {<<: *m").append(level - 1).append("}, ");
            }
            yaml.append("z: 0}\n");
        }
        Problem problem = onlyProblem(write("merge-bomb.yaml", yaml.toString()));
        assertTrue(problem.message().contains("looks like a YAML alias bomb"), problem.message());
    }

    @Test
    void ordinaryAliasesStillWork() {
        YamlDocument document = YamlDocument.parse(Path.of("x.yaml"), "defaults: &d {ansible_user: root}\nh1: *d\nh2: *d\n");
        assertEquals("root", document.root().get("h2").get("ansible_user").textValue());
    }

    @Test
    void aFileLargerThanTheLimitIsRefusedBeforeItIsParsed() throws IOException {
        Path huge = write("huge.yaml", "k: v\n".repeat(300_000));
        Problem problem = onlyProblem(huge);
        assertEquals(huge + ":1:1: error: the file is larger than 1 MiB (1500000 bytes); an inventory or desired state is a few"
                + " kilobytes: is this the right file?", problem.toString());
    }

    @Test
    void aTwentyMegabyteValueIsRefusedBySizeNotScannedForMinutes() throws IOException {
        Path file = write("scalar.yaml", "k: " + "x".repeat(20 * 1024 * 1024) + "\n");
        assertTrue(onlyProblem(file).message().startsWith("the file is larger than 1 MiB"));
    }

    @Test
    void aLongLineIsRefusedBeforeTheScannerSeesIt() throws IOException {
        Path file = write("line.yaml", "a: 1\nk: \"" + "x".repeat(900_000) + "\"\n");
        assertEquals(file + ":2:1: error: line 2 is 900005 characters long; etcdwright reads lines of at most 64 KiB"
                + " (no setting needs a value that long)", onlyProblem(file).toString());
    }

    @Test
    void aLongValueOverManyLinesIsRefusedAtItsStart() throws IOException {
        Path file = write("folded.yaml", "a: 1\nk: >\n" + ("  " + "y".repeat(70) + "\n").repeat(1000));
        assertEquals(file + ":2:4: error: k: the value is 71000 characters long; etcdwright reads values of at most 64 KiB",
                onlyProblem(file).toString());
    }

    @Test
    void deepNestingIsRefusedWithAPlace() throws IOException {
        Path file = write("deep.yaml", "k: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n");
        Problem problem = onlyProblem(file);
        assertTrue(problem.toString().startsWith(file + ":1:"), problem.toString());
        assertTrue(problem.message().contains("nested more than 50 levels deep"), problem.message());
    }

    @Test
    void deepNestingThroughAliasesIsRefusedToo() throws IOException {
        StringBuilder yaml = new StringBuilder("l0: &l0 " + "[".repeat(40) + "x" + "]".repeat(40) + "\n");
        for (int i = 1; i <= 3; i++) {
            yaml.append("l").append(i).append(": &l").append(i).append(" ").append("[".repeat(40)).append("*l").append(i - 1)
                    .append("]".repeat(40)).append("\n");
        }
        Problem problem = onlyProblem(write("alias-deep.yaml", yaml.toString()));
        assertTrue(problem.message().startsWith("mappings and lists are nested more than 50 levels deep (counting what aliases"
                + " refer to)"), problem.message());
    }

    @Test
    void globalTagsAreRefusedAndNothingIsConstructed() throws IOException {
        Path file = write("tag.yaml", "k: !!javax.script.ScriptEngineManager [!!java.net.URLClassLoader [[!!java.net.URL"
                + " [\"http://127.0.0.1:1/\"]]]]\n");
        Problem problem = onlyProblem(file);
        assertEquals(file + ":1:4: error: k: tag !!javax.script.ScriptEngineManager is a global tag, which asks a YAML"
                + " loader to construct an object or run code; etcdwright reads plain values only: remove the tag",
                problem.toString());
    }

    @Test
    void aGlobalTagIsReportedAtItsLineWithTheFieldItSitsOn() throws IOException {
        Path file = write("python.yaml", "etcd:\n  settings:\n    a: 1\n    x: !!python/object/apply:os.system [\"touch /tmp/p\"]\n"
                + "    y: &t !!python/name:os.system ''\n    z: *t\n");
        List<Problem> problems = problems(file);
        assertEquals(List.of(file + ":4:8: error: etcd.settings.x: tag !!python/object/apply:os.system is a global tag, which"
                        + " asks a YAML loader to construct an object or run code; etcdwright reads plain values only: remove the tag",
                file + ":5:8: error: etcd.settings.y: tag !!python/name:os.system is a global tag, which asks a YAML loader to"
                        + " construct an object or run code; etcdwright reads plain values only: remove the tag"),
                problems.stream().map(Problem::toString).toList());
    }

    @Test
    void binaryAndNulAreRefused() throws IOException {
        Path binary = dir.resolve("binary.yaml");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});
        assertEquals(binary + ":1:1: error: cannot read: not UTF-8 text (is this the right file?)", onlyProblem(binary).toString());
        Path nul = dir.resolve("nul.yaml");
        Files.write(nul, "a: b\u0000c\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(nul + ":1:1: error: cannot read: the file contains NUL bytes, so it is binary, not YAML text"
                + " (is this the right file?)", onlyProblem(nul).toString());
    }

    @Test
    void devicesAndDirectoriesAreNotFiles() {
        assertEquals("/dev/zero:1:1: error: cannot read: not a regular file or a pipe (a device or a socket); give the path"
                + " of a YAML file", onlyProblem(Path.of("/dev/zero")).toString());
        assertEquals(dir + ":1:1: error: cannot read: it is a directory, not a file", onlyProblem(dir).toString());
    }

    /** -f <(sops -d spec.yaml): a pipe is read to its end, once; a second read in the same run gets the same text. */
    @Test
    void aPipeIsReadOnceWithinTheLimits() throws Exception {
        Path fifo = fifo("spec.fifo");
        Thread writer = write(fifo, "cluster:\n  name: piped\n".getBytes(StandardCharsets.UTF_8));
        YamlDocument document = assertTimeoutPreemptively(BOUND, () -> YamlDocument.load(fifo));
        assertEquals("piped", document.root().path("cluster").path("name").asText());
        writer.join(5_000);
        assertEquals("piped", assertTimeoutPreemptively(BOUND, () -> YamlDocument.load(fifo)).root().path("cluster")
                .path("name").asText(), "read again from what came the first time, not from the drained pipe");
    }

    @Test
    void aPipeThatNeverEndsIsGivenUpAfterTheTimeout() throws Exception {
        Path fifo = fifo("silent.fifo");
        InvalidInputException e = assertTimeoutPreemptively(BOUND, () -> assertThrows(InvalidInputException.class,
                () -> YamlDocument.read(fifo, Duration.ofMillis(300))));
        assertEquals(fifo + ":1:1: error: cannot read: the pipe did not end within 300 ms (is the command that writes it still"
                + " running, or waiting for input?)", e.errors().get(0).toString());
    }

    @Test
    void moreThanTheLimitThroughAPipeIsRefused() throws Exception {
        Path fifo = fifo("big.fifo");
        write(fifo, new byte[InputLimits.MAX_FILE_BYTES + 4096]);
        assertEquals(fifo + ":1:1: error: more than 1 MiB came through the pipe; an inventory or desired state is a few"
                + " kilobytes: is this the right file?", onlyProblem(fifo).toString());
    }

    @Test
    void pathsInAHandedOverDescriptorAreRelativeToTheWorkingDirectory() {
        assertTrue(PipedInput.isHandedOverDescriptor(Path.of("/dev/fd/63")));
        assertTrue(PipedInput.isHandedOverDescriptor(Path.of("/proc/self/fd/63")));
        assertTrue(!PipedInput.isHandedOverDescriptor(dir.resolve("spec.fifo")));
        assertEquals(Path.of("keys/ca.crt"), RelativePaths.resolve(Path.of("/dev/fd/63"), "keys/ca.crt"));
        assertEquals(dir.resolve("keys/ca.crt"), RelativePaths.resolve(dir.resolve("spec.yaml"), "keys/ca.crt"));
    }

    private Path fifo(String name) throws IOException, InterruptedException {
        Path fifo = dir.resolve(name);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        assertTrue(PipedInput.isPipe(fifo));
        return fifo;
    }

    private static Thread write(Path fifo, byte[] bytes) {
        Thread writer = new Thread(() -> {
            try (java.io.OutputStream out = Files.newOutputStream(fifo)) {
                out.write(bytes);
            } catch (IOException e) {
                // the reader stopped early: it read what it wanted
            }
        });
        writer.setDaemon(true);
        writer.start();
        return writer;
    }

    @Test
    void anUnreadableFileIsRefused() throws IOException {
        Path file = write("secret.yaml", "a: 1\n");
        assertTrue(file.toFile().setReadable(false));
        try {
            if (Files.isReadable(file)) {
                return; // running as root: every file is readable, there is nothing to refuse
            }
            assertEquals(file + ":1:1: error: cannot read: permission denied", onlyProblem(file).toString());
        } finally {
            file.toFile().setReadable(true);
        }
    }
}
