package io.etcdwright.watch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The watcher's audit trail: one JSON object a line ({@link WatchEvent}), appended and flushed as
 * each happens, so a watcher killed mid-cycle has logged every action that ended before it died,
 * and `tail -f | jq` follows it live. Appended to, never truncated: a restarted watcher continues
 * the same file. Without a file (no {@code --event-log}), events go nowhere but the metrics.
 */
public final class EventLog implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private final Optional<BufferedWriter> out;

    private EventLog(Optional<BufferedWriter> out) {
        this.out = out;
    }

    public static EventLog none() {
        return new EventLog(Optional.empty());
    }

    public static EventLog appendingTo(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return new EventLog(Optional.of(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the event log " + file + ": " + e.getMessage(), e);
        }
    }

    /** The line {@link #write} appends for {@code event}. */
    public static String line(WatchEvent event) {
        try {
            return JSON.writeValueAsString(event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized void write(WatchEvent event) {
        if (out.isEmpty()) {
            return;
        }
        try {
            out.get().write(line(event));
            out.get().write('\n');
            out.get().flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the event log: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (out.isPresent()) {
            try {
                out.get().close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
