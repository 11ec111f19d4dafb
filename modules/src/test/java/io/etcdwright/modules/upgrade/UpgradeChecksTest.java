package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.ssh.CommandResult;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the checks before a minor step say when they find something: what it is and how to fix it. */
class UpgradeChecksTest {
    @Test
    void customV2ContentIsNamedWithWhereItIsAndHowToGetRidOfIt() {
        // etcdutl 3.5.35's words, as it exits on a data dir with v2 keys in its v2 snapshot.
        String inStore = UpgradeChecks.v2storeProblem("h2", new CommandResult("etcdutl", 1, "",
                "{\"level\":\"info\",\"msg\":\"...\"}\nError: detected custom content in v2store\n"));
        assertTrue(inStore.startsWith("member h2: 'etcdutl check v2store' says: detected custom content in v2store."), inStore);
        assertTrue(inStore.contains("delete the keys written through the v2 API"), inStore);
        String inWal = UpgradeChecks.v2storeProblem("h1", new CommandResult("etcdutl", 1, "",
                "Error: detected custom v2 content in WAL records\n"));
        assertTrue(inWal.contains("it is only in the WAL") && inWal.contains("snapshot-count: 1"), inWal);
        String both = UpgradeChecks.v2storeProblem("h1", new CommandResult("etcdutl", 1, "",
                "Error: detected custom v2 content in both v2store and WAL records\n"));
        assertTrue(both.contains("delete the keys written through the v2 API"), both);
        // A tool that did not run says so rather than passing.
        String missing = UpgradeChecks.v2storeProblem("h3", new CommandResult("etcdutl", 127, "",
                "sh: 1: /opt/etcd/v3.5.35/etcdutl: not found\n"));
        assertTrue(missing.contains("/opt/etcd/v3.5.35/etcdutl: not found"), missing);
    }

    @Test
    void membersTheListsDisagreeAboutAreNamedWithEachList() {
        Map<String, Set<String>> views = new LinkedHashMap<>();
        views.put("h1", new TreeSet<>(Set.of("h1 1", "h2 2", "h3 3")));
        views.put("h2", new TreeSet<>(Set.of("h1 1", "h2 2", "h3 3", "old 4")));
        views.put("h3", new TreeSet<>(Set.of("h1 1", "h2 2", "h3 3")));
        String said = UpgradeChecks.disagreement(views);
        assertTrue(said.startsWith("the members' own lists disagree about old 4 ("), said);
        assertTrue(said.contains("h2 lists [h1 1, h2 2, h3 3, old 4]") && said.contains("etcd-io/etcd#20967"), said);
        assertTrue(said.contains("'etcdctl member remove ID'"), said);
    }

    @Test
    void aLearnerIsNamedWithWhyAndHowToFinishItsJoin() {
        String said = UpgradeChecks.learnerProblem("h4 8e9e05c52164694d", "h1");
        assertTrue(said.startsWith("member h4 8e9e05c52164694d is a learner (in h1's list)"), said);
        assertTrue(said.contains("too many learner members") && said.contains("etcdctl member promote"), said);
    }
}
