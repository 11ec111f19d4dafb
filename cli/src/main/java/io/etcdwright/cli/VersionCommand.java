package io.etcdwright.cli;

import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.Minor;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "version", description = {"This etcdwright's version and the commit it was built from, and the etcd releases it knows: per minor, the"
        + " restore tool, the newest patch known, the patch required before the next minor, how it downgrades, its end of"
        + " life; and the known-bad releases."})
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
            BuildInfo build = BuildInfo.current();
            doc.put("etcdwright", build.version());
            doc.put("commit", build.commit().orElse(null));
            doc.put("commit_time", build.commitTime().orElse(null));
            doc.put("dirty", build.dirty());
            List<Map<String, Object>> minors = new ArrayList<>();
            for (Minor minor : catalogue.minors()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("minor", minor.toString());
                m.put("restore_tool", catalogue.restoreTool(minor.first()).orElseThrow().binary());
                m.put("newest_known_patch", catalogue.newestKnownPatch(minor).map(Object::toString).orElse(null));
                m.put("minimum_patch_before_next_minor", catalogue.upgradeFrom(minor)
                        .map(step -> step.minimumPatch().toString()).orElse(null));
                m.put("bump_revision_from", catalogue.bumpRevisionFrom(minor).map(Object::toString).orElse(null));
                m.put("rolling_downgrade_to", rollingDowngradeTo(catalogue, minor).map(Object::toString).orElse(null));
                m.put("downgrade", catalogue.downgradeFrom(minor).map(VersionCommand::method).orElse(null));
                m.put("end_of_life", catalogue.endOfLife(minor).map(VersionCatalogue.EndOfLife::since).orElse(null));
                minors.add(m);
            }
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
        out.println("etcdwright " + BuildInfo.current().describe());
        out.println("etcd minors it operates:");
        for (Minor minor : catalogue.minors()) {
            out.printf("  %s  restore with %s; newest patch known %s; %s%s%s%n", minor,
                    catalogue.restoreTool(minor.first()).orElseThrow().binary(),
                    catalogue.newestKnownPatch(minor).map(Object::toString).orElse("-"),
                    catalogue.upgradeFrom(minor).map(step -> "before " + step.to() + ": " + (step.requiresPatch()
                            ? step.minimumPatch() + " or newer" : "any patch (the newest advised)"))
                            .orElse("no newer minor known"),
                    catalogue.downgradeFrom(minor).map(d -> "; down to " + d.to() + ": " + (method(d).equals("downgrade-api")
                            ? "online, through etcd's downgrade API" : "snapshot and restore, with downtime")).orElse(""),
                    catalogue.endOfLife(minor).map(eol -> "; past its end of life since " + eol.since()).orElse(""));
        }
        out.println("known-bad releases:");
        for (VersionCatalogue.KnownIssue issue : catalogue.knownIssues()) {
            out.printf("  %-6s %s%n", issue.refuse() ? "refuse" : "warn", issue);
        }
        return Main.OK;
    }

    private static String method(VersionCatalogue.Downgrade d) {
        return d instanceof VersionCatalogue.Downgrade.ThroughApi ? "downgrade-api" : "restore";
    }

    private static java.util.Optional<io.etcdwright.engine.spec.Version> rollingDowngradeTo(VersionCatalogue catalogue, Minor m) {
        return catalogue.downgradeFrom(m).filter(VersionCatalogue.Downgrade.ByRestore.class::isInstance)
                .flatMap(d -> ((VersionCatalogue.Downgrade.ByRestore) d).rollingFrom());
    }
}
