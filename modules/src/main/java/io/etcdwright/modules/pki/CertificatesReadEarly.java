package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.DelegatingProbe;
import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.Probe;

import java.util.Map;
import java.util.Set;

/**
 * A files probe whose certificates are parsed as soon as the host's answer is, on the worker thread
 * that read it, while other hosts still answer. The plan's checks (the renewal policy, the CA's
 * trust, the facts view) read the same texts later on the main thread, where nothing else runs then:
 * they find them parsed ({@link CertificateInfo#parse} keeps each text's answer). A five-member
 * no-op plan parsed fifteen certificates there, cold, after the last host had answered.
 *
 * <p>Only an optimisation: a text that does not parse is left to the check that reads it, which
 * reports it with its source (failures are not kept).
 */
public record CertificatesReadEarly(Probe<Map<String, FileState>> files, Set<String> certificatePaths)
        implements DelegatingProbe<Map<String, FileState>> {

    public CertificatesReadEarly {
        certificatePaths = Set.copyOf(certificatePaths);
    }

    @Override
    public Probe<Map<String, FileState>> delegate() {
        return files;
    }

    @Override
    public Map<String, FileState> parse(String output) {
        Map<String, FileState> parsed = files.parse(output);
        for (String path : certificatePaths) {
            FileState file = parsed.get(path);
            if (file != null && file.content().isPresent()) {
                try {
                    CertificateInfo.parse(file.content().get(), path);
                } catch (RuntimeException damaged) {
                    // Reported by the check that reads it, naming the host and the file.
                }
            }
        }
        return parsed;
    }
}
