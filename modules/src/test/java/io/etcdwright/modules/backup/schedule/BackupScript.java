package io.etcdwright.modules.backup.schedule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs functions of the real backup script (sourced: its main does not run) in bash on this machine. */
final class BackupScript {
    private BackupScript() {
    }

    record Result(int exitCode, String stdout, String stderr) {
    }

    /** {@code code} runs after the script is sourced, with {@code args} as "$1".."$N"; stdin is {@code input}. */
    static Result run(Path dir, String code, String input, String... args) throws IOException, InterruptedException {
        Path script = dir.resolve("etcd-backup.sh");
        Files.write(script, BackupScheduleModule.script());
        List<String> command = new ArrayList<>(List.of("bash", "-c", "source \"$0\"\n" + code, script.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bash did not finish");
        }
        return new Result(p.exitValue(), out, err);
    }
}
