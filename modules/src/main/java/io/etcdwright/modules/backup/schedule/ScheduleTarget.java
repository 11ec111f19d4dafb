package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.ssh.SshOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Everything about the spec's backup schedule that the members' hosts get, resolved on the
 * workstation at plan time: the store, retention, and the bytes of the files read from the
 * workstation (the hosts' credentials, the recipients' certificates, the SFTP host's key).
 *
 * @param credentials the schedule's credentials file (S3 keys, an SSH private key); empty for a directory
 * @param recipients  the recipients' certificates, concatenated; empty when backups are not encrypted
 * @param sftp        where an SFTP store is reached from the members
 */
public record ScheduleTarget(String clusterName, int memberCount, BackupPolicy.Schedule schedule, BackupStore store,
                             BackupPolicy.Retention retention, Optional<byte[]> credentials, Optional<byte[]> recipients,
                             Optional<SftpEndpoint> sftp) {

    /** An SFTP store's host as the members reach it, with its host key from the workstation's known_hosts. */
    public record SftpEndpoint(String address, int port, String user, String knownHostsLines) {
    }

    /** The schedule, or why it cannot be installed (every reason, as refusals), or none in the spec. */
    public record Resolved(Optional<ScheduleTarget> target, List<Refusal> refusals) {
        public Resolved {
            refusals = List.copyOf(refusals);
        }
    }

    public static Resolved resolve(DesiredState desired) {
        Optional<BackupPolicy> policy = desired.spec().backup();
        if (policy.isEmpty() || policy.get().schedule().isEmpty()) {
            return new Resolved(Optional.empty(), List.of());
        }
        BackupPolicy.Schedule schedule = policy.get().schedule().get();
        String subject = "cluster " + desired.spec().name();
        List<Refusal> refusals = new ArrayList<>();
        Optional<BackupStore> store = policy.get().scheduledStore();
        if (store.isEmpty()) {
            refusals.add(new Refusal("backup-schedule-store", subject, "backup.schedule.store names '" + schedule.store()
                    + "', which is no store of backup.stores", "name one of the stores in backup.schedule.store"));
            return new Resolved(Optional.empty(), refusals);
        }
        Optional<byte[]> credentials = Optional.empty();
        boolean needsCredentials = !(store.get() instanceof BackupStore.Directory);
        if (needsCredentials && schedule.credentialsFile().isEmpty()) {
            refusals.add(new Refusal("backup-schedule-credentials", subject, "scheduled backups to the " + store.get().type()
                    + " store '" + store.get().name() + "' need credentials for the hosts, and backup.schedule has no"
                    + " credentialsFile", store.get() instanceof BackupStore.S3
                    ? "give backup.schedule.credentialsFile: a file with AWS_ACCESS_KEY_ID= and AWS_SECRET_ACCESS_KEY= lines"
                    + " of credentials allowed only to write (and list/delete for retention) in the bucket"
                    : "give backup.schedule.credentialsFile: an SSH private key the members log in to the store host with"));
        } else if (needsCredentials) {
            credentials = read(schedule.credentialsFile().get(), "backup.schedule.credentialsFile", subject, refusals);
        }
        Optional<byte[]> recipients = Optional.empty();
        if (policy.get().encryption().isPresent()) {
            StringBuilder pem = new StringBuilder();
            for (Path recipient : policy.get().encryption().get().recipients()) {
                read(recipient, "backup.encryption.recipients", subject, refusals).ifPresent(bytes -> {
                    String text = new String(bytes, StandardCharsets.UTF_8);
                    if (!text.contains("-----BEGIN CERTIFICATE-----")) {
                        refusals.add(new Refusal("backup-schedule-recipient", subject, recipient + " holds no X.509"
                                + " certificate; the members encrypt with openssl cms, which takes certificates only",
                                "give the recipient as a certificate (a self-signed one for its key will do)"));
                    }
                    pem.append(text.endsWith("\n") ? text : text + "\n");
                });
            }
            recipients = Optional.of(pem.toString().getBytes(StandardCharsets.UTF_8));
        }
        Optional<SftpEndpoint> sftp = Optional.empty();
        if (store.get() instanceof BackupStore.Sftp s) {
            sftp = sftpEndpoint(desired, s, subject, refusals);
        }
        try {
            ScheduleConfig.checkStore(store.get());
        } catch (IllegalArgumentException e) {
            refusals.add(new Refusal("backup-schedule-value", subject, e.getMessage(), "fix that value in backup.stores"));
        }
        if (!refusals.isEmpty()) {
            return new Resolved(Optional.empty(), refusals);
        }
        return new Resolved(Optional.of(new ScheduleTarget(desired.spec().name(), desired.members().size(), schedule,
                store.get(), policy.get().retention(), credentials, recipients, sftp)), List.of());
    }

    private static Optional<SftpEndpoint> sftpEndpoint(DesiredState desired, BackupStore.Sftp store, String subject,
                                                       List<Refusal> refusals) {
        Optional<InventoryHost> host = desired.inventory().host(store.host());
        if (host.isEmpty()) {
            refusals.add(new Refusal("backup-schedule-store", subject, "the SFTP store '" + store.name() + "' is on host '"
                    + store.host() + "', which is not in the inventory", "add the host to the inventory"));
            return Optional.empty();
        }
        InventoryHost h = host.get();
        Path knownHosts = desired.inventory().knownHostsFile().orElse(SshOptions.defaultKnownHostsFile());
        String name = h.port() == 22 ? h.address() : "[" + h.address() + "]:" + h.port();
        List<String> lines = List.of();
        try {
            lines = Files.readAllLines(knownHosts).stream()
                    .filter(l -> Arrays.asList(l.split("\\s+", 2)[0].split(",")).contains(name)).toList();
        } catch (IOException e) {
            // reported below as a missing key
        }
        if (lines.isEmpty()) {
            refusals.add(new Refusal("backup-schedule-host-key", subject, "the members must check the SFTP store host "
                    + store.host() + "'s key, and " + knownHosts + " has no (unhashed) line for " + name,
                    "connect to it once (etcdwright facts --accept-new-host-keys with it in the inventory) or add its"
                            + " key to " + knownHosts));
            return Optional.empty();
        }
        return Optional.of(new SftpEndpoint(h.address(), h.port(), h.user(), String.join("\n", lines) + "\n"));
    }

    private static Optional<byte[]> read(Path file, String field, String subject, List<Refusal> refusals) {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (IOException e) {
            refusals.add(new Refusal("backup-schedule-file", subject, field + ": cannot read " + file + " ("
                    + e.getClass().getSimpleName() + ")", "create the file or fix the path (relative to the spec file)"));
            return Optional.empty();
        }
    }

    /** The tools a member's host needs for this schedule, beyond the etcdctl etcdwright installs. */
    public List<String> tools() {
        List<String> tools = new ArrayList<>(List.of("bash", "gzip"));
        if (store instanceof BackupStore.S3) {
            tools.add("curl");
        }
        if (store instanceof BackupStore.Sftp) {
            tools.add("sftp");
            tools.add("ssh");
        }
        if (recipients.isPresent()) {
            tools.add("openssl");
        }
        return tools;
    }
}
