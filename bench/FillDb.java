import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcdwright.modules.membership.TlsMaterial;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * Grows a cluster's database to a size for the backup benchmark: values of 128 KiB, half
 * random (incompressible) and half a repeated pattern, like a real keyspace's mix, written 16
 * at a time. Not a test tool: it asserts nothing.
 *   java -cp cli/target/etcdwright.jar bench/FillDb.java ENDPOINT CA CERT KEY MIB
 */
public final class FillDb {
    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        TlsMaterial tls = TlsMaterial.read(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]));
        long target = Long.parseLong(args[4]) << 20;
        int valueSize = 128 << 10;
        Random random = new Random(42);
        try (Client client = Client.builder().endpoints(URI.create(endpoint)).sslContext(tls.clientContext()).build()) {
            KV kv = client.getKVClient();
            long written = 0;
            int n = 0;
            while (written < target) {
                List<CompletableFuture<?>> batch = new ArrayList<>();
                for (int i = 0; i < 16; i++, n++) {
                    byte[] value = new byte[valueSize];
                    if (n % 2 == 0) {
                        random.nextBytes(value);
                    } else {
                        for (int j = 0; j < valueSize; j++) {
                            value[j] = (byte) ('a' + (j * 7 + n) % 26);
                        }
                    }
                    batch.add(kv.put(ByteSequence.from(String.format("/bench/fill/%08d", n).getBytes()), ByteSequence.from(value)));
                    written += valueSize;
                }
                for (CompletableFuture<?> f : batch) {
                    f.get();
                }
            }
            System.out.println("wrote " + n + " keys, " + (written >> 20) + " MiB of values");
        }
    }
}
