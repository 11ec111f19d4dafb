package io.etcdwright.modules.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressesTest {

    @ParameterizedTest
    @CsvSource({
        "10.77.0.12, 10.77.0.12",
        "::1, ::1",
        "0:0:0:0:0:0:0:1, ::1",
        "2001:DB8::0:1, 2001:db8::1",
        "2001:0db8:0000:0000:0001:0000:0000:0001, 2001:db8::1:0:0:1",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "fe80:0:0:0:0:0:0:0, fe80::",
        "::, ::",
        "::ffff:10.0.0.1, 10.0.0.1",
    })
    void normalizesToOneTextForm(String literal, String expected) {
        assertEquals(expected, IpAddresses.normalize(literal));
    }

    @ParameterizedTest
    @ValueSource(strings = {"etcd1.example", "999.1.1.1", "10.0.0", "1::2::3", "", "fe80::1%eth0"})
    void refusesWhatIsNotALiteralWithoutResolvingIt(String text) {
        assertFalse(IpAddresses.isLiteral(text));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IpAddresses.normalize(text));
        assertEquals("'" + text + "' is not an IPv4 or IPv6 address", e.getMessage());
    }
}
