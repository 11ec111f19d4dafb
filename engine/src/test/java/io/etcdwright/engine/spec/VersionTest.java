package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class VersionTest {

    @Test
    void parsesXyz() {
        assertEquals(new Version(3, 5, 16), Version.parse("3.5.16"));
        assertEquals("3.5.16", Version.parse("3.5.16").toString());
    }

    @Test
    void ordersNumericallyNotAsText() {
        List<Version> sorted = Stream.of("3.5.10", "3.4.34", "3.5.9", "3.6.0").map(Version::parse).sorted().toList();
        assertEquals(List.of(Version.parse("3.4.34"), Version.parse("3.5.9"), Version.parse("3.5.10"), Version.parse("3.6.0")), sorted);
    }

    @Test
    void aMinorLineKnowsItsNeighboursAndItsReleases() {
        Minor m = Version.parse("3.6.14").minorLine();
        assertEquals("3.6", m.toString());
        assertEquals(Minor.parse("3.7"), m.next());
        assertEquals(Optional.of(Minor.parse("3.5")), m.previous());
        assertEquals(Optional.empty(), Minor.parse("3.0").previous());
        assertEquals(Version.parse("3.6.0"), m.first());
        assertTrue(m.contains(Version.parse("3.6.0")));
        assertFalse(m.contains(Version.parse("3.7.0")));
        assertTrue(Minor.parse("3.10").isAtLeast(Minor.parse("3.9")));
        assertEquals(Optional.empty(), Minor.tryParse("3.6.1"));
        assertEquals(Optional.empty(), Minor.tryParse("v3.6"));
    }

    @Test
    void refusesAnythingButXyz() {
        for (String bad : List.of("3.5", "v3.5.16", "3.5.16-rc.0", "3.5.x", "", "99999999999.0.0")) {
            assertEquals(Optional.empty(), Version.tryParse(bad), bad);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Version.parse("3.5"));
        assertEquals("'3.5' is not a version X.Y.Z, like 3.5.16", e.getMessage());
    }
}
