package io.etcdwright.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

@Command(name = "completion", description = {"Prints a shell completion script for every command and option.",
        "bash: source <(etcdwright completion bash), or save it to /etc/bash_completion.d/etcdwright.",
        "zsh: the same script, through zsh's bash completion (autoload -U +X bashcompinit && bashcompinit first)."})
final class CompletionCommand implements Callable<Integer> {
    enum Shell { bash, zsh }

    @Parameters(paramLabel = "bash|zsh", description = "The shell.")
    Shell shell;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // Every subcommand, whatever this command line was started with (Main adds only the one that runs).
        String script = AutoComplete.bash("etcdwright", Main.commandLine(new String[0]));
        if (shell == Shell.zsh) {
            script = "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script;
        }
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return Main.OK;
    }
}
