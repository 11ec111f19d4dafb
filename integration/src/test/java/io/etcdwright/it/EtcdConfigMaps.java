package io.etcdwright.it;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * kube-apiserver's ConfigMaps as etcd itself holds them, read past the API server (and its watch
 * cache): the keys {@code PREFIX/configmaps/NAMESPACE/NAME} (--etcd-prefix), each with its mod
 * revision, which is the resourceVersion kube-apiserver acknowledged a create at. Keys only: the
 * values are kube-apiserver's protobuf encoding, which this does not decode.
 */
record EtcdConfigMaps(Client etcd, String etcdPrefix) {
    private static final long PAGE = 5_000;

    /** Name to mod revision (as a resourceVersion) of every ConfigMap of {@code namespace}, by a linearizable read. */
    Map<String, String> resourceVersions(String namespace) {
        String prefix = etcdPrefix + "/configmaps/" + namespace + "/";
        ByteSequence end = bytes(prefix.substring(0, prefix.length() - 1) + (char) ('/' + 1));
        Map<String, String> stored = new HashMap<>();
        String from = prefix;
        try {
            while (true) {
                GetResponse page = etcd.getKVClient().get(bytes(from), GetOption.builder().withRange(end).withKeysOnly(true)
                        .withLimit(PAGE).build()).get(30, TimeUnit.SECONDS);
                String last = null;
                for (KeyValue kv : page.getKvs()) {
                    last = kv.getKey().toString(StandardCharsets.UTF_8);
                    stored.put(last.substring(prefix.length()), Long.toString(kv.getModRevision()));
                }
                if (!page.isMore() || last == null) {
                    return stored;
                }
                from = last + "\0";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + prefix + " from etcd: " + e, e);
        }
    }

    /** Deletes one ConfigMap's key behind kube-apiserver's back: the checks must then report it. */
    void deleteBehindTheApiServer(String namespace, String name) {
        try {
            etcd.getKVClient().delete(bytes(etcdPrefix + "/configmaps/" + namespace + "/" + name)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (Exception e) {
            throw new AssertionError("cannot delete " + name + " in etcd: " + e, e);
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
