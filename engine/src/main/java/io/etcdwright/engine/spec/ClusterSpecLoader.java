package io.etcdwright.engine.spec;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads a desired-state file on its own (no inventory), reporting every problem in it at once.
 * {@link DesiredStateLoader} adds the checks that need the inventory.
 */
public final class ClusterSpecLoader {

    private ClusterSpecLoader() {}

    /**
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static ClusterSpec load(Path file) {
        return load(file, VersionRules.installed());
    }

    /**
     * @param rules what the spec's etcd release makes of its version and settings
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static ClusterSpec load(Path file, VersionRules rules) {
        Problems problems = new Problems();
        Optional<Read> read = read(file, problems, rules);
        problems.throwIfErrors();
        return read.orElseThrow().spec();
    }

    /** The document and the spec built from it, however wrong; empty when the file is not a YAML mapping. */
    record Read(YamlDocument document, ClusterSpec spec) {}

    /** Reads {@code file}, adding its problems to {@code problems}. */
    static Optional<Read> read(Path file, Problems problems, VersionRules rules) {
        YamlDocument document;
        try {
            document = YamlDocument.load(file);
        } catch (InvalidInputException e) {
            problems.addAll(e.problems());
            return Optional.empty();
        }
        problems.addAll(document.warnings());
        List<Problem> schemaProblems = SchemaCheck.check(document, SchemaCheck.CLUSTER_SCHEMA);
        problems.addAll(schemaProblems);
        if (!document.root().isObject()) {
            return Optional.empty();
        }
        ClusterSpec spec = new ClusterSpecReader(document, problems).read();
        new ClusterSpecChecks(document, spec, problems, rules).run();
        return Optional.of(new Read(document, spec));
    }
}
