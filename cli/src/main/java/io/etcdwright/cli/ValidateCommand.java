package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

@Command(name = "validate", description = "Check the inventory and desired state without contacting any host.")
final class ValidateCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        desired.warnings().forEach(w -> spec.commandLine().getErr().println(SecretRedaction.redact(w.toString())));
        spec.commandLine().getOut().printf("%s and %s are valid: cluster %s, %d member%s (%s)%n",
                input.inventory, input.spec, desired.spec().name(), desired.members().size(),
                desired.members().size() == 1 ? "" : "s",
                String.join(", ", desired.members().stream().map(m -> m.name()).toList()));
        return Main.OK;
    }
}
