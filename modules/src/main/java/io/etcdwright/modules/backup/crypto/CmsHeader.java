package io.etcdwright.modules.backup.crypto;

import java.util.Arrays;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.cms.CMSObjectIdentifiers;

/**
 * The content type at the start of a CMS ContentInfo, read from its first bytes by hand (no
 * parser: it must answer for a 20-byte prefix and for any garbage without throwing).
 */
final class CmsHeader {
    /** 1.2.840.113549.1.7 (pkcs7-data, -signedData, -envelopedData, ...). */
    private static final byte[] PKCS7 = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x07};
    /** 1.2.840.113549.1.9.16.1 (S/MIME content types, among them authEnvelopedData, .23). */
    private static final byte[] SMIME_CT = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01};

    private CmsHeader() {
    }

    /** The ContentInfo's contentType, or null when {@code head} does not start like CMS. */
    static ASN1ObjectIdentifier contentType(byte[] head) {
        if (head.length < 2 || head[0] != 0x30) {
            return null;
        }
        int at = 1;
        int length = head[at++] & 0xff;
        if (length > 0x84) {
            return null;
        }
        if (length > 0x80) {
            at += length - 0x80; // long-form length octets; 0x80 itself is BER's indefinite length
        }
        if (head.length < at + 2 || head[at] != 0x06) {
            return null;
        }
        int oidLength = head[at + 1] & 0xff;
        int start = at + 2;
        if (oidLength > 16 || head.length < start + oidLength) {
            return null;
        }
        byte[] oid = Arrays.copyOfRange(head, start, start + oidLength);
        boolean known = (oidLength == PKCS7.length + 1 && startsWith(oid, PKCS7))
                || (oidLength == SMIME_CT.length + 1 && startsWith(oid, SMIME_CT));
        return known ? ASN1ObjectIdentifier.fromContents(oid) : null;
    }

    static boolean isAuthEnveloped(ASN1ObjectIdentifier type) {
        return CMSObjectIdentifiers.authEnvelopedData.equals(type);
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }
}
