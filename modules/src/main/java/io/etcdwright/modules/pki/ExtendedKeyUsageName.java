package io.etcdwright.modules.pki;

import org.bouncycastle.asn1.x509.KeyPurposeId;

/** The extended key usages a certificate on an etcd host may show, by the names OpenSSL and Go's docs use. */
enum ExtendedKeyUsageName {
    SERVER_AUTH("serverAuth", KeyPurposeId.id_kp_serverAuth),
    CLIENT_AUTH("clientAuth", KeyPurposeId.id_kp_clientAuth),
    CODE_SIGNING("codeSigning", KeyPurposeId.id_kp_codeSigning),
    EMAIL_PROTECTION("emailProtection", KeyPurposeId.id_kp_emailProtection),
    TIME_STAMPING("timeStamping", KeyPurposeId.id_kp_timeStamping),
    OCSP_SIGNING("OCSPSigning", KeyPurposeId.id_kp_OCSPSigning),
    ANY("anyExtendedKeyUsage", KeyPurposeId.anyExtendedKeyUsage);

    private final String configName;
    private final KeyPurposeId id;

    ExtendedKeyUsageName(String configName, KeyPurposeId id) {
        this.configName = configName;
        this.id = id;
    }

    String configName() {
        return configName;
    }

    KeyPurposeId id() {
        return id;
    }

    /** The name of a usage given as an OID; an OID we have no name for is reported as the OID itself. */
    static String nameOf(String oid) {
        for (ExtendedKeyUsageName usage : values()) {
            if (usage.id.getId().equals(oid)) {
                return usage.configName;
            }
        }
        return oid;
    }
}
