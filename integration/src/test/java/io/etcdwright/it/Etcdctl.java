package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An independent etcd client on the workstation: upstream's etcdctl from the same release the
 * hosts run, configured only through the lines 'etcdwright client-env' prints.
 */
final class Etcdctl {
    private final Path binary;

    private Etcdctl(Path binary) {
        this.binary = binary;
    }

    static Etcdctl unpack(Path dir, String version) {
        Path tarball = Testbed.RELEASES.resolve("v" + version + "/etcd-v" + version + "-linux-amd64.tar.gz");
        Testbed.Result r = Testbed.exec(List.of("tar", "-xzf", tarball.toString(), "-C", dir.toString(), "--strip-components=1"));
        if (r.exitCode() != 0) {
            throw new AssertionError("cannot unpack " + tarball + ": " + r.stderr());
        }
        return new Etcdctl(dir.resolve("etcdctl"));
    }

    /**
     * Parses client-env's {@code export NAME='value'} lines into an environment, undoing the
     * single quoting exactly as sh would ('\'' is a quote inside a value).
     */
    static Map<String, String> env(String clientEnvOutput) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        java.util.regex.Matcher line = java.util.regex.Pattern
                .compile("^export ([A-Z_][A-Z0-9_]*)=((?:'[^']*'|\\\\')+)$", java.util.regex.Pattern.MULTILINE)
                .matcher(clientEnvOutput);
        while (line.find()) {
            env.put(line.group(1), line.group(2).replace("'\\''", "'").replaceAll("^'|'$", ""));
        }
        return env;
    }

    /**
     * Each member's server version as this etcdctl gets it from the member itself (endpoint status of
     * every member of the cluster), in the order etcdctl lists them.
     */
    List<String> serverVersions(Map<String, String> env) {
        Testbed.Result endpoints = run(env, "endpoint", "status", "--cluster", "-w", "json");
        if (endpoints.exitCode() != 0) {
            throw new AssertionError("etcdctl endpoint status failed: " + endpoints.stderr());
        }
        try {
            List<String> versions = new ArrayList<>();
            for (JsonNode answer : new ObjectMapper().readTree(endpoints.stdout())) {
                versions.add(answer.path("Status").path("version").asText());
            }
            return versions;
        } catch (IOException e) {
            throw new AssertionError("etcdctl endpoint status printed no JSON: " + endpoints.stdout(), e);
        }
    }

    Testbed.Result run(Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.add("--command-timeout=3s");
        cmd.add("--dial-timeout=2s");
        cmd.addAll(List.of(args));
        try {
            Path err = Files.createTempFile("etcdctl", ".err");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("ETCDCTL_"));
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes());
            int code = p.waitFor();
            String errText = Files.readString(err);
            Files.delete(err);
            System.out.println("$ etcdctl " + String.join(" ", args) + "\n" + out + errText + "[exit " + code + "]");
            return new Testbed.Result(code, out, errText);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
