package io.etcdwright.cli;

import io.etcdwright.run.RunContext;
import io.etcdwright.engine.source.InvalidInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;

/** The {@code etcdwright} command. Exit codes: 0 ok, 1 error, 2 changes present (--detailed-exitcode). */
@Command(name = "etcdwright", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT,
        versionProvider = Main.Version.class,
        description = "Declarative, agentless lifecycle for etcd clusters: plan, apply, status.")
public final class Main {
    /** The subcommands, in the order help lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(ValidateCommand.class, FactsCommand.class, PlanCommand.class,
            ApplyCommand.class, StatusCommand.class, CertsCommand.class, BackupCommand.class, BackupsCommand.class, RestoreCommand.class,
            DefragCommand.class, UnlockCommand.class, StateCommand.class,
            ClientEnvCommand.class, KubeApiserverFlagsCommand.class, KubeadmConfigCommand.class, DestroyCommand.class, VersionCommand.class,
            ImportCommand.class, WatchCommand.class, RolloutCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class);

    public static final int OK = 0;
    public static final int ERROR = 1;
    public static final int CHANGES = 2;

    public static void main(String[] args) {
        WarmUp.start(args);
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs one command line; the integration tests call this too, in-process. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = commandLine(args);
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> report(ex, err));
        cli.setParameterExceptionHandler((ex, args1) -> {
            err.println("error: " + ex.getMessage());
            // The command's full name ("etcdwright backups list"), the program's name once.
            err.println("Run '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
            return ERROR;
        });
        RunContext context = RunContext.begin(commandName(args), line -> {
            synchronized (err) {
                err.println(line);
                err.flush();
            }
        });
        int code;
        try {
            code = cli.execute(args);
        } finally {
            List<String> problems = context.end();
            if (!problems.isEmpty()) {
                problems.forEach(p -> err.println("error: " + SecretRedaction.redact(p)));
                code = ERROR;
            }
        }
        out.flush();
        err.flush();
        return code;
    }

    /** The command as the state records its writer: "apply", "certs issue-reader", "state push". */
    static String commandName(String[] args) {
        if (args.length == 0) {
            return "etcdwright";
        }
        boolean grouped = List.of("state", "certs", "backups").contains(args[0]);
        return grouped && args.length > 1 && !args[1].startsWith("-") ? args[0] + " " + args[1] : args[0];
    }

    /**
     * The command line with the subcommand that runs, or with all of them when the first word names
     * none (help, a typo): picocli reflects over every option of every subcommand it is given, a
     * fifth of a no-op plan's time on the workstation, for commands that then do not run. Public
     * for the integration tests, which parse the shipped CI examples' command lines with it
     * (parseArgs runs nothing), so that an option renamed here fails them.
     */
    public static CommandLine commandLine(String[] args) {
        CommandLine cli = new CommandLine(new Main());
        if (!asksForVersion(args)) {
            // picocli copies the version text into each subcommand it adds (the INHERIT scope), and
            // so asks the provider every time: the full text reads the version catalogue, a third of
            // the main thread's start-up, for a line no command but -V prints. The catalogue is then
            // read where it is used, or sooner by the warm-up thread (WarmUp).
            cli.getCommandSpec().versionProvider(() -> new String[]{"etcdwright " + BuildInfo.current().describe()});
        }
        String first = args.length == 0 ? "" : args[0];
        if (first.equals("certs") && args.length > 1 && args[1].equals("issue-reader")) {
            // 'certs' itself requires -i/-f, which picocli would demand before its subcommand's own.
            cli.addSubcommand(new CommandLine(new CertsGroup()).addSubcommand(new CertsIssueReaderCommand()));
            return cli;
        }
        List<Class<?>> named = SUBCOMMANDS.stream().filter(c -> c != CommandLine.HelpCommand.class)
                .filter(c -> c.getAnnotation(Command.class).name().equals(first)).toList();
        (named.isEmpty() ? SUBCOMMANDS : named).forEach(cli::addSubcommand);
        return cli;
    }

    /** Whether the command line asks for the version text (-V or --version, on any command). */
    static boolean asksForVersion(String[] args) {
        List<String> words = List.of(args);
        return words.contains("-V") || words.contains("--version");
    }

    /** 'certs' as the parent of its subcommands only: their options are their own. */
    @Command(name = "certs", description = "Certificates of the cluster.")
    static final class CertsGroup implements java.util.concurrent.Callable<Integer> {
        @Override
        public Integer call() {
            return ERROR;
        }
    }

    static int report(Exception ex, PrintWriter err) {
        if (ex instanceof InvalidInputException invalid) {
            invalid.problems().forEach(p -> err.println(SecretRedaction.redact(p.toString())));
            err.println("No host was contacted: fix the input above and run again.");
        } else {
            err.println("error: " + SecretRedaction.redact(ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage()));
            if (System.getenv("ETCDWRIGHT_DEBUG") != null) {
                ex.printStackTrace(err);
            }
        }
        err.flush();
        return ERROR;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"etcdwright " + BuildInfo.current().describe(), "etcd minors: " + String.join(", ",
                    io.etcdwright.modules.catalogue.VersionCatalogue.builtIn().minors().stream().map(Object::toString).toList())
                    + " ('etcdwright version' says more)"};
        }

    }
}
