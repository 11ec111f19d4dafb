package io.etcdwright.cli;

import io.etcdwright.engine.output.Json;
import io.etcdwright.modules.upgrade.VersionCatalogue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "version", description = {"This etcdwright's version and the etcd releases it knows: per minor, the"
        + " restore tool, the newest patch known, the patch required before the next minor; and the known-bad releases."})
final class VersionCommand implements Callable<Integer> {
    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
    OutputFormat output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        VersionCatalogue catalogue = VersionCatalogue.builtIn();
        PrintWriter out = spec.commandLine().getOut();
        if (output == OutputFormat.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("version", 1);
            doc.put("etcdwright", Main.Version.etcdwright());
            List<Map<String, Object>> minors = new ArrayList<>();
            catalogue.minors().values().stream().sorted(java.util.Comparator.comparing(VersionCatalogue.MinorLine::minor))
                    .forEach(line -> {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("minor", line.minor());
                        m.put("restore_tool", line.restoreTool());
                        m.put("newest_known_patch", line.newestKnownPatch().map(Object::toString).orElse(null));
                        m.put("minimum_patch_before_next_minor", line.minimumPatchBeforeNextMinor().toString());
                        m.put("bump_revision_from", line.bumpRevisionFrom().map(Object::toString).orElse(null));
                        m.put("rolling_downgrade_to", line.rollingDowngradeTo().map(Object::toString).orElse(null));
                        minors.add(m);
                    });
            doc.put("etcd_minors", minors);
            List<Map<String, Object>> issues = new ArrayList<>();
            for (VersionCatalogue.KnownIssue issue : catalogue.knownIssues()) {
                Map<String, Object> i = new LinkedHashMap<>();
                i.put("from", issue.from().toString());
                i.put("to", issue.to().toString());
                i.put("severity", issue.refuse() ? "refuse" : "warn");
                i.put("why", issue.why());
                i.put("link", issue.link());
                issues.add(i);
            }
            doc.put("known_issues", issues);
            out.println(Json.write(doc));
            return Main.OK;
        }
        out.println("etcdwright " + Main.Version.etcdwright());
        out.println("etcd minors it operates:");
        catalogue.minors().values().stream().sorted(java.util.Comparator.comparing(VersionCatalogue.MinorLine::minor))
                .forEach(line -> out.printf("  %s  restore with %s; newest patch known %s; before the next minor: %s or newer%n",
                        line.minor(), line.restoreTool(), line.newestKnownPatch().map(Object::toString).orElse("-"),
                        line.minimumPatchBeforeNextMinor()));
        out.println("known-bad releases:");
        for (VersionCatalogue.KnownIssue issue : catalogue.knownIssues()) {
            out.printf("  %-6s %s%n", issue.refuse() ? "refuse" : "warn", issue);
        }
        return Main.OK;
    }
}
