package io.etcdwright.run;

import io.etcdwright.modules.state.StateException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What one command's run shares across the code it calls, on its thread and the threads it starts
 * (steps, fleets): the command's name (recorded as the state's writer), where notes for the operator
 * go (the command line sends them to stderr: stdout may be a JSON document), and the shared states it
 * opened, each refreshed once and written back at the end.
 */
public final class RunContext {
    private static final InheritableThreadLocal<RunContext> CURRENT = new InheritableThreadLocal<>();

    final String command;
    private final Consumer<String> notes;
    final Map<String, SharedStates.Opened> states = new LinkedHashMap<>();

    private RunContext(String command, Consumer<String> notes) {
        this.command = command;
        this.notes = notes;
    }

    static RunContext current() {
        RunContext c = CURRENT.get();
        return c != null ? c : new RunContext("etcdwright", line -> {
            System.err.println(line);
            System.err.flush();
        });
    }

    /**
     * Begins the run of {@code command} on this thread (and those it starts).
     *
     * @param notes where a line for the operator goes; called from several threads, one line at a time
     */
    public static RunContext begin(String command, Consumer<String> notes) {
        RunContext c = new RunContext(command, notes);
        CURRENT.set(c);
        return c;
    }

    void note(String line) {
        synchronized (this) {
            notes.accept(line);
        }
    }

    /**
     * Ends the run: what a command changed and no step wrote back yet is written now (a command
     * that issued reports success only once that is done), then the stores are closed.
     *
     * @return the problems that make a successful command a failed one
     */
    public List<String> end() {
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
