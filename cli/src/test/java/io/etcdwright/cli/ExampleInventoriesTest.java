package io.etcdwright.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The committed inventories/ examples are valid with the committed examples/ specs: a new user's first validate passes. */
class ExampleInventoriesTest {

    private static final Path ROOT = Path.of("..");

    @ParameterizedTest
    @CsvSource({
            "inventories/kubespray/inventory.ini, examples/three-node.yaml, '3 members (etcd1, etcd2, etcd3)'",
            "inventories/kubespray/inventory.ini, examples/single-node.yaml, 1 member (etcd1)",
            "inventories/yaml/hosts.yaml, examples/three-node.yaml, '3 members (h1, h2, h3)'",
            "inventories/yaml/hosts.yaml, examples/single-node.yaml, 1 member (h1)",
    })
    void validateAcceptsTheExamples(String inventory, String spec, String members) {
        assertTrue(Files.exists(ROOT.resolve(inventory).getParent().resolve("README.md")), inventory + " has a README");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"validate", "-i", ROOT.resolve(inventory).toString(), "-f", ROOT.resolve(spec).toString()},
                new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, "validate -i " + inventory + " -f " + spec + ": " + out + err);
        assertTrue(out.toString().contains(members), out.toString());
        assertEquals("", err.toString(), "no warnings about the examples");
    }
}
