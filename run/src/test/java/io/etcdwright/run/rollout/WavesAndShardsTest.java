package io.etcdwright.run.rollout;

import org.junit.jupiter.api.Test;

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
}
