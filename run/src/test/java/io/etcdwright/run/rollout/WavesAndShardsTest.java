package io.etcdwright.run.rollout;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.spec.Artifacts;
import io.etcdwright.engine.spec.Automation;
import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.EtcdSettings;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.engine.spec.Members;
import io.etcdwright.engine.spec.Monitoring;
import io.etcdwright.engine.spec.Ports;
import io.etcdwright.engine.spec.Tls;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WavesAndShardsTest {
    static List<Integer> sizes(String waves, int clusters) {
        List<Integer> all = IntStream.range(0, clusters).boxed().toList();
        return WaveSizes.parse(waves).split(all).stream().map(List::size).toList();
    }

    @Test
    void wavesHaveAnsiblesSerialMeaning() {
        assertEquals(List.of(6, 6, 6, 2), sizes("30%", 20), "Ansible's own example");
        assertEquals(List.of(1, 5, 4, 4, 4, 2), sizes("1,5,20%", 20), "the last entry repeats");
        assertEquals(List.of(1, 3, 6), sizes("1,3,6", 10));
        assertEquals(List.of(1, 1, 1), sizes("1%", 3), "a percentage rounds down, at least 1");
        assertEquals(List.of(1, 9), sizes("1,100%", 10), "the default: a canary, then the rest");
        assertEquals(List.of(2), sizes("5", 2), "never more than is left");
        assertEquals(List.of(), sizes("1", 0));
        List<Integer> all = IntStream.range(0, 10).boxed().toList();
        List<Integer> flat = WaveSizes.parse("1,3,6").split(all).stream().flatMap(List::stream).toList();
        assertEquals(all, flat, "every cluster once, in the order given");
    }

    @Test
    void badWavesAreRefusedNamingTheEntry() {
        for (String bad : List.of("", "1,,5", "0", "-1", "a", "0%", "101%", "1.5", "1,2,")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WaveSizes.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("--waves " + bad + ":"), e.getMessage());
        }
    }

    @Test
    void aBudgetIsExceededByMoreFailuresThanItAllows() {
        assertFalse(FailureBudget.parse("0").exceeded(0, 5));
        assertTrue(FailureBudget.parse("0").exceeded(1, 5));
        assertFalse(FailureBudget.parse("2").exceeded(2, 5));
        assertTrue(FailureBudget.parse("2").exceeded(3, 5));
        assertFalse(FailureBudget.parse("49%").exceeded(1, 4), "49% of 4 rounds down to 1");
        assertTrue(FailureBudget.parse("49%").exceeded(2, 4), "Ansible: 2 of 4 needs more than 49");
        for (String bad : List.of("-1", "x", "101%", "1.5", "")) {
            assertThrows(IllegalArgumentException.class, () -> FailureBudget.parse(bad), bad);
        }
    }

    @Test
    void shardsSplitEveryWaveExactlyOnceWhateverTheOrder() {
        Random random = new Random(7);
        for (int n = 1; n <= 5; n++) {
            for (int size = 0; size <= 12; size++) {
                List<String> wave = new ArrayList<>();
                for (int i = 0; i < size; i++) {
                    wave.add(String.format("c%02d", i));
                }
                List<String> shuffled = new ArrayList<>(wave);
                Collections.shuffle(shuffled, random);
                Set<String> seen = new HashSet<>();
                int taken = 0;
                for (int i = 1; i <= n; i++) {
                    List<String> mine = new Shard(i, n).take(wave, Function.identity());
                    assertEquals(mine, new Shard(i, n).take(shuffled, Function.identity()), "the same split from any order");
                    seen.addAll(mine);
                    taken += mine.size();
                }
                assertEquals(size, taken, "no cluster in two shards");
                assertEquals(Set.copyOf(wave), seen, "every cluster in a shard");
            }
        }
        assertEquals(List.of("a", "c"), new Shard(1, 2).take(List.of("c", "b", "a"), Function.identity()));
    }

    @Test
    void theShardComesFromTheOptionOrTheEnginesVariables() {
        assertEquals(Optional.of(new Shard(2, 3)), Shard.of(Optional.of("2/3"), OptionalInt.empty(), Map.of()));
        assertEquals(Optional.of(new Shard(2, 4)), Shard.of(Optional.empty(), OptionalInt.empty(),
                Map.of("CI_NODE_INDEX", "2", "CI_NODE_TOTAL", "4")), "GitLab: 1-based");
        assertEquals(Optional.of(new Shard(1, 3)), Shard.of(Optional.empty(), OptionalInt.of(3),
                Map.of("JOB_COMPLETION_INDEX", "0")), "an Indexed Job: 0-based");
        assertEquals(Optional.empty(), Shard.of(Optional.empty(), OptionalInt.empty(), Map.of()));
        assertThrows(IllegalArgumentException.class, () -> Shard.of(Optional.empty(), OptionalInt.empty(),
                Map.of("JOB_COMPLETION_INDEX", "0")), "no --shards");
        assertThrows(IllegalArgumentException.class, () -> Shard.of(Optional.empty(), OptionalInt.of(3),
                Map.of("JOB_COMPLETION_INDEX", "3")), "index out of range");
        for (String bad : List.of("0/3", "4/3", "1/0", "2", "a/b", "-1/2")) {
            assertThrows(IllegalArgumentException.class, () -> Shard.parse(bad), bad);
        }
    }

    /** A spec of cluster {@code name} in specs/NAME.yaml with {@code labels}, as the reader would make it. */
    static ClusterSpec spec(String name, Map<String, String> labels) {
        return new ClusterSpec(Path.of("specs/" + name + ".yaml"), name, labels, Members.ofHosts(List.of(name + "-h1")),
                new EtcdSettings("3.5.16", new Ports(Ports.DEFAULT_CLIENT, Ports.DEFAULT_PEER, OptionalInt.empty()),
                        EtcdSettings.DEFAULT_DATA_DIR, Map.of()), Artifacts.defaults(), Tls.defaults(), Optional.empty(), ClientKeys.NONE,
                Maintenance.NONE, Optional.empty(), Monitoring.NONE, Automation.DEFAULT);
    }

    static List<String> names(List<ClusterSpec> clusters, Waves.Wave wave) {
        return wave.clusters().stream().map(i -> clusters.get(i).name()).toList();
    }

    @Test
    void aLabelMakesAWaveOfEachValueInTheOrderTheValuesFirstAppear() {
        List<ClusterSpec> clusters = List.of(spec("a", Map.of("site", "dc2")), spec("b", Map.of("site", "dc1", "tier", "canary")),
                spec("c", Map.of("site", "dc2")), spec("d", Map.of("site", "dc3")), spec("e", Map.of("site", "dc1")));
        List<Waves.Wave> waves = new LabelWaves("site").group(clusters);
        assertEquals(List.of(Optional.of("site=dc2"), Optional.of("site=dc1"), Optional.of("site=dc3")),
                waves.stream().map(Waves.Wave::label).toList(), "dc2 first: a, the first cluster given, is in dc2");
        assertEquals(List.of(List.of("a", "c"), List.of("b", "e"), List.of("d")), waves.stream().map(w -> names(clusters, w)).toList(),
                "each wave's clusters in the order given");
        assertEquals("by label site", new LabelWaves("site").describe());
        assertEquals("1,5,25%", WaveSizes.parse("1,5,25%").describe());
        assertEquals(List.of(List.of(0), List.of(1, 2, 3, 4)), WaveSizes.parse("1,100%").group(clusters).stream()
                .map(Waves.Wave::clusters).toList(), "sized waves are the clusters in the order given, as split makes them");
    }

    @Test
    void aClusterWithoutTheLabelIsRefusedNamingItsSpecEveryOneAtOnce() {
        List<ClusterSpec> clusters = List.of(spec("a", Map.of("site", "dc1")), spec("b", Map.of("tier", "canary")),
                spec("c", Map.of()), spec("d", Map.of("site", "")));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> new LabelWaves("site").group(clusters));
        assertEquals(List.of("specs/b.yaml:1:1: error: cluster.labels: no label 'site' (--waves-by site)",
                "specs/c.yaml:1:1: error: cluster.labels: no label 'site' (--waves-by site)"),
                e.problems().stream().map(Problem::toString).toList());
        assertEquals(List.of(Optional.of("site="), Optional.of("site=dc1")), new LabelWaves("site").group(List.of(clusters.get(3),
                clusters.get(0))).stream().map(Waves.Wave::label).toList(), "an empty value is a value");
    }

    @Test
    void aLabelThatCannotBeALabelKeyIsRefusedAsTheOptionIsRead() {
        for (String bad : List.of("", "Site Name", "-site", "a/b/c")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LabelWaves(bad), bad);
            assertTrue(e.getMessage().startsWith("--waves-by " + bad + ": not a label key"), e.getMessage());
        }
        assertEquals("example.com/site", new LabelWaves("example.com/site").label());
    }

    /** The shards of a wave made by a label are the wave: every cluster of it in exactly one shard, none of another wave. */
    @Test
    void theShardsOfALabelsWavesAreThoseWaves() {
        List<ClusterSpec> clusters = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            clusters.add(spec(String.format("f%02d", i), Map.of("site", "dc" + (i * 7 % 3))));
        }
        List<Waves.Wave> waves = new LabelWaves("site").group(clusters);
        assertEquals(3, waves.size());
        for (Waves.Wave wave : waves) {
            List<Integer> joined = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                joined.addAll(new Shard(i, 2).take(wave.clusters(), k -> clusters.get(k).name()));
            }
            Collections.sort(joined);
            assertEquals(wave.clusters(), joined, wave.label() + ": the shards join into the wave");
        }
    }
}
