package io.etcdwright.modules.pki;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The hosts outside the cluster's members that this workstation gave client files to
 * ({@code PKI_DIR/client-hosts}, one host name a line): what tells apply where to remove them once
 * the spec stops naming a host, without asking every inventory host. A host is written here
 * before its files are sent and struck off only after they are removed, so an apply killed in
 * between still finds it.
 */
public final class ClientHostsRecord {
    private final Path file;

    public ClientHostsRecord(Path pkiDir) {
        this.file = pkiDir.resolve("client-hosts");
    }

    public Path file() {
        return file;
    }

    /** The recorded hosts, in the order they were given files. */
    public synchronized List<String> hosts() {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            return Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty()).distinct().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " (the hosts given client files): " + e.getMessage(), e);
        }
    }

    /** Records {@code host}; whether it was not recorded yet. */
    public synchronized boolean add(String host) {
        Set<String> hosts = new LinkedHashSet<>(hosts());
        if (!hosts.add(host)) {
            return false;
        }
        write(new ArrayList<>(hosts));
        return true;
    }

    /** Strikes {@code host} off; whether it was recorded. */
    public synchronized boolean remove(String host) {
        List<String> hosts = new ArrayList<>(hosts());
        if (!hosts.remove(host)) {
            return false;
        }
        write(hosts);
        return true;
    }

    private void write(List<String> hosts) {
        StringBuilder text = new StringBuilder();
        hosts.forEach(h -> text.append(h).append('\n'));
        SecureFiles.writePublic(file, text.toString(), "the hosts given client files");
    }
}
