package io.etcdwright.engine.spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the cluster's shared state lives (its PKI and etcdwright's records of it) and how it is
 * encrypted before it leaves the workstation ({@code state:}, docs/state.md).
 *
 * @param store      a directory, an SFTP host or an S3 bucket, as a backup store (named "state")
 * @param encryption never plaintext: a shared key, recipients, or both
 */
public record StateSettings(BackupStore store, Encryption encryption) {
    /** The S3 prefix when the spec gives none: beside, never inside, a backup store's {@code <cluster>/}. */
    public static final String DEFAULT_PREFIX = "etcdwright-state/";
    /** The environment variable a shared key is read from when the spec names none. */
    public static final String DEFAULT_KEY_VARIABLE = "ETCDWRIGHT_STATE_KEY";

    public StateSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(encryption, "encryption");
    }

    /**
     * @param key        the team's shared AES-256 key (base64), from an environment variable or a file
     * @param recipients X.509 certificates or public keys the state is also encrypted to
     * @param privateKey where this workstation's recipient private key is (PEM), to decrypt without the shared key
     */
    public record Encryption(Optional<Secret> key, List<Path> recipients, Optional<Secret> privateKey) {
        public Encryption {
            Objects.requireNonNull(key, "key");
            recipients = List.copyOf(recipients);
            Objects.requireNonNull(privateKey, "privateKey");
        }
    }

    /** Where a secret comes from: never the spec itself. */
    public sealed interface Secret permits Secret.Env, Secret.File {
        /** For messages: "the environment variable X", "the file Y". */
        String describe();

        record Env(String variable) implements Secret {
            @Override
            public String describe() {
                return "the environment variable " + variable;
            }
        }

        record File(Path path) implements Secret {
            @Override
            public String describe() {
                return "the file " + path;
            }
        }
    }
}
