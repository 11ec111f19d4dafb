package io.etcdwright.modules.pki;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;

/** A certificate and its private key, as {@link CertificateAuthority#issue} makes them. */
public record IssuedCertificate(X509Certificate certificate, PrivateKey privateKey) {

    public IssuedCertificate {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
        if (!KeyPairs.matches(privateKey, certificate.getPublicKey())) {
            // Caught here rather than on the host, where etcd would refuse to start with the pair.
            throw new IllegalArgumentException("the private key does not belong to certificate "
                    + certificate.getSubjectX500Principal().getName());
        }
    }

    public CertificateInfo info() {
        return CertificateInfo.of(certificate);
    }

    public String certificatePem() {
        return Pem.certificate(certificate);
    }

    /** PKCS#8 ({@code BEGIN PRIVATE KEY}), which etcd reads for RSA and EC keys alike. */
    public String privateKeyPem() {
        return Pem.privateKey(privateKey);
    }

    /** Writes the certificate 0644 and the key 0600; see {@link SecureFiles} for how the key stays private. */
    public void writeTo(Path certificateFile, Path privateKeyFile) {
        SecureFiles.writePrivate(privateKeyFile, privateKeyPem(), "private key");
        SecureFiles.writePublic(certificateFile, certificatePem(), "certificate");
    }

    /** Never prints the key: records would, and plans and logs print records. */
    @Override
    public String toString() {
        return "IssuedCertificate[" + certificate.getSubjectX500Principal().getName()
                + ", serial " + certificate.getSerialNumber().toString(16)
                + ", expires " + certificate.getNotAfter().toInstant() + "]";
    }
}
