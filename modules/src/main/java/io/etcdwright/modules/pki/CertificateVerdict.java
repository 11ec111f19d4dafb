package io.etcdwright.modules.pki;

/** What {@link RenewalPolicy} decided for one certificate on one host. */
public sealed interface CertificateVerdict permits CertificateVerdict.Current, CertificateVerdict.Reissue {

    Current CURRENT = new Current();

    default boolean needsReissue() {
        return this instanceof Reissue;
    }

    /** The certificate on the host is what is wanted: leave it alone. */
    record Current() implements CertificateVerdict {
    }

    /**
     * Issue a new certificate and key.
     *
     * @param reason  short and specific, for a plan line, e.g. {@code SAN 10.77.0.12 missing};
     *                several reasons are joined with "; "
     * @param renewal whether time is the only reason (expired, expiring within renewBefore, not yet
     *                valid): the same certificate issued again, which no spec edit asked for
     */
    record Reissue(String reason, boolean renewal) implements CertificateVerdict {
        public Reissue {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("a reissue needs a reason");
            }
        }

        /** For any other reason than time: what the certificate says is not what is wanted. */
        public Reissue(String reason) {
            this(reason, false);
        }
    }
}
