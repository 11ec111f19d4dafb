package io.etcdwright.it;

import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.CertificateRequest;
import io.etcdwright.modules.pki.KeyAlgorithm;
import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.Purpose;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * What a test kube-apiserver needs besides the etcd flags etcdwright prints, and nothing etcd-related:
 * a bearer token for the test client (a static token file, its user in system:masters), a
 * service-account key pair (kube-apiserver refuses to start without a signing key and an issuer),
 * and a serving certificate of its own, issued for {@code address} by a CA of its own that has
 * nothing to do with etcd's (the test client trusts that CA alone). Written once into a directory
 * and kept across restarts, as a control plane's files are.
 */
record ControlPlaneFiles(String token, Path tokenFile, Path serviceAccountKey, Path serviceAccountPublicKey,
                         Path servingCa, Path servingCert, Path servingKey) {
    /** kubeadm's issuer; any https URL does: nothing here fetches its discovery document. */
    static final String SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";
    static final String TEST_USER = "etcdwright-test";

    static ControlPlaneFiles create(Path dir, String address) {
        try {
            Files.createDirectories(dir);
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            String token = HexFormat.of().formatHex(secret);
            // token,user,uid,"groups": system:masters is allowed everything by every authorizer.
            Path tokenFile = Files.writeString(dir.resolve("tokens.csv"),
                    token + "," + TEST_USER + "," + TEST_USER + ",\"system:masters\"\n");

            // ES256 service-account tokens: kube-apiserver reads a PKCS#8 private key and a PKIX public key.
            KeyPair serviceAccount = KeyAlgorithm.ECDSA_P256.generateKeyPair();
            Path saKey = Files.writeString(dir.resolve("sa.key"), Pem.privateKey(serviceAccount.getPrivate()));
            Path saPub = Files.writeString(dir.resolve("sa.pub"), "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(serviceAccount.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");

            Clock clock = Clock.systemUTC();
            Duration validity = Duration.ofDays(2);
            CertificateAuthority ca = CertificateAuthority.generate("etcdwright-it kube-apiserver serving CA", KeyAlgorithm.DEFAULT,
                    validity, clock);
            Path servingCa = Files.writeString(dir.resolve("serving-ca.crt"), ca.certificatePem());
            List<String> ips = address.equals("127.0.0.1") ? List.of(address) : List.of(address, "127.0.0.1");
            ca.issue(CertificateRequest.of(Purpose.SERVER, "kube-apiserver", List.of(), List.of("localhost"), ips,
                    KeyAlgorithm.DEFAULT, validity), clock).writeTo(dir.resolve("serving.crt"), dir.resolve("serving.key"));
            return new ControlPlaneFiles(token, tokenFile, saKey, saPub, servingCa, dir.resolve("serving.crt"),
                    dir.resolve("serving.key"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write kube-apiserver's files into " + dir, e);
        }
    }

    /** The flags that hand these files to kube-apiserver. */
    List<String> flags() {
        return List.of(
                "--token-auth-file=" + tokenFile,
                "--service-account-issuer=" + SERVICE_ACCOUNT_ISSUER,
                "--service-account-key-file=" + serviceAccountPublicKey,
                "--service-account-signing-key-file=" + serviceAccountKey,
                "--tls-cert-file=" + servingCert,
                "--tls-private-key-file=" + servingKey);
    }
}
