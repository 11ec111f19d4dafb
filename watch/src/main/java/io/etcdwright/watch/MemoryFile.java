package io.etcdwright.watch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.run.EtcdwrightHome;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The loop's {@link Memory} of a cluster on this workstation, {@code $ETCDWRIGHT_HOME/clusters/NAME/watch.json}:
 * since when each member has been seen down, and the steps that failed under which facts. Written
 * after every cycle (to a temporary file, then moved over the old one: a watcher killed mid-write
 * leaves the previous cycle's memory whole); a file that cannot be read is started afresh, which is
 * the safe side (a member's time down counts from now, a failed step may be tried once more).
 * The suspension is not kept here: it lives in the cluster's etcd, where every watcher reads it.
 */
final class MemoryFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryFile() {
    }

    static Path of(String cluster) {
        return EtcdwrightHome.dir().resolve("clusters").resolve(cluster).resolve("watch.json");
    }

    static Memory read(String cluster) {
        Path file = of(cluster);
        if (!Files.isRegularFile(file)) {
            return Memory.EMPTY;
        }
        try {
            JsonNode root = JSON.readTree(file.toFile());
            Map<String, Instant> down = new HashMap<>();
            root.path("down_since").fields().forEachRemaining(e -> down.put(e.getKey(), Instant.parse(e.getValue().asText())));
            List<Memory.FailedStep> failures = new ArrayList<>();
            for (JsonNode f : root.path("failures")) {
                failures.add(new Memory.FailedStep(f.path("step").asText(), f.path("digest").asText(),
                        Instant.parse(f.path("at").asText()), f.path("error").asText()));
            }
            return new Memory(down, failures, Optional.empty());
        } catch (IOException | RuntimeException e) {
            return Memory.EMPTY;
        }
    }

    static void write(String cluster, Memory memory) {
        Path file = of(cluster);
        ObjectNode root = JSON.createObjectNode();
        ObjectNode down = root.putObject("down_since");
        memory.downSince().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> down.put(e.getKey(), e.getValue().toString()));
        ArrayNode failures = root.putArray("failures");
        for (Memory.FailedStep f : memory.failures()) {
            ObjectNode n = failures.addObject();
            n.put("step", f.stepId());
            n.put("digest", f.digest());
            n.put("at", f.at().toString());
            n.put("error", f.error());
        }
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling("watch.json.tmp");
            Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the watcher's memory " + file + ": " + e.getMessage(), e);
        }
    }
}
