package io.etcdwright.modules.pki;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.bouncycastle.util.IPAddress;

/**
 * One text form per IP address, so that "2001:DB8::0:1" in the desired state and the bytes in a
 * certificate compare equal: dotted quad for IPv4, RFC 5952 (lower case, longest zero run as "::")
 * for IPv6. An IPv4-mapped IPv6 address becomes its IPv4 form, as Java and Go both treat it.
 */
final class IpAddresses {
    private IpAddresses() {
    }

    static boolean isLiteral(String text) {
        return text != null && IPAddress.isValid(text);
    }

    /** The canonical form of an IP literal; never a DNS lookup. */
    static String normalize(String literal) {
        if (!isLiteral(literal)) {
            throw new IllegalArgumentException("'" + literal + "' is not an IPv4 or IPv6 address");
        }
        try {
            // Safe: a validated literal is parsed, never resolved.
            return format(InetAddress.getByName(literal).getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + literal + "' is not an IPv4 or IPv6 address", e);
        }
    }

    static String format(byte[] address) {
        InetAddress parsed;
        try {
            parsed = InetAddress.getByAddress(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + address.length, e);
        }
        if (parsed instanceof Inet4Address) {
            return parsed.getHostAddress();
        }
        return formatIpv6(address);
    }

    private static String formatIpv6(byte[] address) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xff) << 8) | (address[2 * i + 1] & 0xff);
        }
        // RFC 5952 4.2: compress the longest run of two or more zero groups, the first one on a tie.
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
