package io.etcdwright.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** -i and -f: what the operator wrote. */
final class InputOptions {
    @Option(names = {"-i", "--inventory"}, required = true, paramLabel = "INVENTORY",
            description = "Ansible-style YAML inventory of the hosts.")
    Path inventory;

    @Option(names = {"-f", "--file"}, required = true, paramLabel = "SPEC",
            description = "Desired state of the cluster (YAML).")
    Path spec;
}
