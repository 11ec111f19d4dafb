package io.etcdwright.cli;

import io.etcdwright.engine.ssh.HostSession;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps "one way to build a remote command" true as the code grows: a source-level check over
 * the main sources of engine, modules and cli (the tests of each module prove the commands they
 * build; this proves nobody builds one another way).
 */
class RemoteCommandGuardTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<Path> MAIN_SOURCES = List.of(ROOT.resolve("engine/src/main/java"),
            ROOT.resolve("modules/src/main/java"), ROOT.resolve("run/src/main/java"), ROOT.resolve("cli/src/main/java"));
    /** The one component that quotes. */
    private static final String COMPONENT = "engine/src/main/java/io/etcdwright/engine/ssh/";
    /** Where a script is built by composing fixed fragments, with the reason it is still constant. */
    private static final Map<String, String> COMPOSED_SCRIPTS = Map.of(
            "engine/src/main/java/io/etcdwright/engine/facts/FactsScript.java",
            "joins the probes' fixed fragments; FactsScriptTest proves the text is the same whatever the values");

    private static final Pattern SCRIPT_CALL = Pattern.compile(
            "(RemoteCommand\\.script\\(|new RemoteCommand\\.Script\\(|new RemoteCommand\\.StdinScript\\()");
    private static final Pattern CONSTANT = Pattern.compile("[A-Z][A-Z0-9_]*");
    private static final Pattern ONE_LITERAL = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    record Source(String name, String text) {
    }

    private static List<Source> mainSources() throws IOException {
        List<Source> sources = new ArrayList<>();
        for (Path root : MAIN_SOURCES) {
            assertTrue(Files.isDirectory(root), "main sources not found at " + root);
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    sources.add(new Source(ROOT.relativize(f).toString(), Files.readString(f)));
                }
            }
        }
        assertTrue(sources.size() > 50, "expected the project's sources, found " + sources.size());
        return sources;
    }

    @Test
    void onlyTheComponentQuotes() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Source s : mainSources()) {
            if (s.name().startsWith(COMPONENT)) {
                continue;
            }
            if (s.text().contains("Shell.quote") || s.text().contains("Shell.join") || s.text().contains("'\\\"'\\\"'")
                    || s.text().contains("'\\\\''")) {
                offenders.add(s.name());
            }
        }
        assertEquals(List.of(), offenders, "shell quoting outside engine/ssh/RemoteCommand");
    }

    @Test
    void noSessionTakesACommandAsAString() {
        List<String> stringCommands = new ArrayList<>();
        for (Method m : HostSession.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || !m.getDeclaringClass().equals(HostSession.class)) {
                continue;
            }
            if (m.getName().startsWith("run") && Arrays.asList(m.getParameterTypes()).contains(String.class)) {
                stringCommands.add(m.toString());
            }
        }
        assertEquals(List.of(), stringCommands, "HostSession must take a RemoteCommand, never a command string");
    }

    @Test
    void noCommandStringIsHandedToASession() throws IOException {
        Pattern stringRun = Pattern.compile("(?s)session\\(\\w*\\)\\s*\\.run\\(\\s*(\"|[^;]*\"\\s*\\+)");
        List<String> offenders = new ArrayList<>();
        for (Source s : mainSources()) {
            Matcher m = stringRun.matcher(s.text());
            while (m.find()) {
                offenders.add(s.name() + ": " + firstLine(s.text().substring(m.start())));
            }
        }
        assertEquals(List.of(), offenders);
    }

    @Test
    void scriptCodeIsAConstantNeverAnExpressionThatCouldHoldAValue() throws IOException {
        List<String> offenders = new ArrayList<>();
        int calls = 0;
        for (Source s : mainSources()) {
            Matcher m = SCRIPT_CALL.matcher(s.text());
            while (m.find()) {
                calls++;
                String code = firstArgument(s.text(), m.end()).strip();
                boolean constant = CONSTANT.matcher(code).matches() || ONE_LITERAL.matcher(code).matches();
                if (!constant && !COMPOSED_SCRIPTS.containsKey(s.name())) {
                    offenders.add(s.name() + ": code argument '" + code + "'");
                }
            }
        }
        assertTrue(calls >= 8, "the scan must see the modules' scripts, saw " + calls);
        assertEquals(List.of(), offenders, "script code must be a constant (values go in the argument list)");
    }

    @Test
    void theGuardCatchesWhatItLooksFor() {
        assertEquals("\"rm -rf \" + dir", firstArgument("RemoteCommand.script(\"rm -rf \" + dir, x)", 21).strip());
        assertEquals("CODE", firstArgument("new RemoteCommand.Script(CODE, List.of(a, b))", 25).strip());
        assertTrue(!ONE_LITERAL.matcher("\"a\" + b").matches() && ONE_LITERAL.matcher("\"a \\\" b\"").matches());
        assertTrue(Pattern.compile("(?s)session\\(\\w*\\)\\s*\\.run\\(\\s*(\"|[^;]*\"\\s*\\+)")
                .matcher("ctx.session().run(\"rm -rf \" + dir)").find());
    }

    /** The text of the first argument of a call whose "(" ends just before {@code from}. */
    static String firstArgument(String text, int from) {
        int depth = 0;
        boolean inString = false;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            if (c == '"') {
                inString = true;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if ((c == ',' || c == ')') && depth == 0) {
                return text.substring(from, i);
            }
        }
        return text.substring(from);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
