package io.etcdwright.cli;

import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "validate", description = {"Check the inventory and desired state without contacting any host.",
        "Exits 0 when both are usable (warnings may remain), 1 otherwise; every problem is printed to stderr as",
        "FILE:LINE:COL: error: FIELD: MESSAGE, and with -o json also listed on stdout (schemas/validate.schema.json)."})
final class ValidateCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "Output format (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        DesiredState desired;
        try {
            desired = DesiredStateLoader.load(input.inventory, input.spec);
        } catch (InvalidInputException invalid) {
            if (output == OutputFormat.json) {
                spec.commandLine().getOut().println(Json.write(document(input.inventory, input.spec, null, invalid.problems())));
            }
            // Printed to stderr as every command reports bad input, exit 1.
            throw invalid;
        }
        desired.warnings().forEach(w -> spec.commandLine().getErr().println(SecretRedaction.redact(w.toString())));
        if (output == OutputFormat.json) {
            spec.commandLine().getOut().println(Json.write(document(input.inventory, input.spec, desired, desired.warnings())));
            return Main.OK;
        }
        spec.commandLine().getOut().printf("%s and %s are valid: cluster %s, %d member%s (%s)%n",
                input.inventory, input.spec, desired.spec().name(), desired.members().size(),
                desired.members().size() == 1 ? "" : "s",
                String.join(", ", desired.members().stream().map(m -> m.name()).toList()));
        return Main.OK;
    }

    /**
     * {@code validate -o json} (schemas/validate.schema.json): {@code ok} when no problem is an error;
     * the cluster and its members only when the input was usable ({@code desired} not null). Messages
     * pass {@link SecretRedaction} as the stderr lines do.
     */
    static Map<String, Object> document(Path inventory, Path specFile, DesiredState desired, List<Problem> problems) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.put("ok", problems.stream().noneMatch(Problem::isError));
        doc.put("inventory", inventory.toString());
        doc.put("spec", specFile.toString());
        doc.put("cluster", desired == null ? null : desired.spec().name());
        doc.put("members", desired == null ? null : desired.members().stream().map(m -> m.name()).toList());
        doc.put("problems", problems.stream().map(ValidateCommand::problem).toList());
        return doc;
    }

    private static Map<String, Object> problem(Problem p) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("file", p.location().file().toString());
        json.put("line", p.location().line());
        json.put("column", p.location().column());
        json.put("severity", p.severity().label());
        json.put("field", p.field());
        json.put("message", SecretRedaction.redact(p.message()));
        return json;
    }
}
