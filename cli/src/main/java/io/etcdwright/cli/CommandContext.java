package io.etcdwright.cli;

import io.etcdwright.modules.state.SharedState;
import io.etcdwright.modules.state.StateException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one command line's run shares across the code it calls, on its thread and the threads it
 * starts (steps, fleets): the command's name (recorded as the state's writer), where notes for the
 * operator go (stderr: stdout may be a JSON document), and the shared states it opened, each
 * refreshed once and written back at the end.
 */
final class CommandContext {
    private static final InheritableThreadLocal<CommandContext> CURRENT = new InheritableThreadLocal<>();

    final String command;
    private final PrintWriter err;
    final Map<String, SharedStates.Opened> states = new LinkedHashMap<>();

    private CommandContext(String command, PrintWriter err) {
        this.command = command;
        this.err = err;
    }

    static CommandContext current() {
        CommandContext c = CURRENT.get();
        return c != null ? c : new CommandContext("etcdwright", new PrintWriter(System.err, true));
    }

    static CommandContext begin(String command, PrintWriter err) {
        CommandContext c = new CommandContext(command, err);
        CURRENT.set(c);
        return c;
    }

    void note(String line) {
        synchronized (err) {
            err.println(line);
            err.flush();
        }
    }

    /**
     * Ends the run: what a command changed and no step wrote back yet is written now (a command
     * that issued reports success only once that is done), then the stores are closed.
     *
     * @return the problems that make a successful command a failed one
     */
    List<String> end() {
        List<String> problems = new ArrayList<>();
        try {
            synchronized (states) {
                for (SharedStates.Opened opened : states.values()) {
                    try {
                        if (opened.writable()) {
                            opened.state().writeBack();
                        }
                    } catch (StateException e) {
                        problems.add(e.getMessage());
                    } finally {
                        try {
                            opened.state().close();
                        } catch (Exception e) {
                            // closing a client; nothing of the state depends on it
                        }
                    }
                }
                states.clear();
            }
        } finally {
            CURRENT.remove();
        }
        return problems;
    }
}
