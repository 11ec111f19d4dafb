package io.etcdwright.modules.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stricter rules refuse nothing the project itself ships as valid: checked with the catalogue's
 * rules (which the examples' etcd versions and settings must pass too), so it lives beside them.
 */
class ExamplesStillValidateTest {

    /** Shaped like the inventory `testbed/testbed up 5` writes, with the files it names. */
    private static final String TESTBED_INVENTORY = """
            all:
              vars:
                ansible_user: root
                ansible_ssh_private_key_file: id_ed25519
                etcdwright_known_hosts_file: known_hosts
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 10.77.0.11}
                    h2: {ansible_host: 10.77.0.12}
                    h3: {ansible_host: 10.77.0.13}
                    h4: {ansible_host: 10.77.0.14}
                    h5: {ansible_host: 10.77.0.15}
            """;

    @TempDir
    Path dir;

    @Test
    void everyShippedExampleValidatesAgainstATestbedInventory() throws IOException {
        Fixtures.write(dir, "id_ed25519", "placeholder");
        Fixtures.write(dir, "known_hosts", "");
        Path inventory = Fixtures.write(dir, "hosts.yaml", TESTBED_INVENTORY);
        List<Path> examples;
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            examples = files.filter(file -> file.toString().endsWith(".yaml")).sorted().toList();
        }
        assertFalse(examples.isEmpty(), "no examples found in ../examples");
        for (Path example : examples) {
            DesiredState state = DesiredStateLoader.load(inventory, example);
            assertEquals(List.of(), state.warnings().stream().filter(w -> !w.message().contains("members tolerate")).toList(),
                    example.toString());
        }
    }

}
