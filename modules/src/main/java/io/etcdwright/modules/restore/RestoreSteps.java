package io.etcdwright.modules.restore;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.data.DataDirWipe;
import io.etcdwright.modules.membership.GrpcLogging;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;
import io.etcdwright.modules.service.ServiceSteps;

import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The restore's operations on the hosts; each safe to run again after an interruption. */
final class RestoreSteps {
    /** Root's alone: a snapshot holds every key of the cluster, secrets included. */
    static final String STAGING_DIR = "/var/lib/etcdwright/restore";
    private static final Pattern REVISION = Pattern.compile("\"revision\":\\s*(\\d+)");
    private static final Pattern TOTAL_KEYS = Pattern.compile("\"totalKey\":\\s*(\\d+)");

    private RestoreSteps() {
    }

    static String stagedPath(SnapshotSource source) {
        return stagedPath(source.sha256());
    }

    static String stagedPath(String sha256) {
        return STAGING_DIR + "/" + sha256.substring(0, 16) + ".db";
    }

    /** What the restore tool read from the staged snapshot on a host. */
    record Status(long revision, long totalKeys) {
    }

    /**
     * Lands the snapshot on the host (OK when it is there already, by sha256) and has the
     * version's own tool read it there: a file it cannot read stops the restore here, before any
     * member is stopped. Records the revision for the proof.
     */
    static Outcome stage(StepContext ctx, SnapshotSource source, RestoreTool tool) {
        HostSession session = ctx.session();
        String host = session.target().name();
        String staged = stagedPath(source);
        boolean present = session.run(RemoteCommand.exec("sha256sum", "--", staged)).stdout().startsWith(source.sha256() + " ");
        if (!present && !Files.isRegularFile(source.file())) {
            throw new IllegalStateException(host + ": the snapshot " + staged + " is not on this host, and this workstation"
                    + " has no copy to send (" + source.origin() + "); nothing was changed here. What to do: copy " + staged
                    + " from another member's host (same name, root-only), or restore from the snapshot the apply took"
                    + " ($ETCDWRIGHT_HOME/clusters/NAME/snapshots) with 'etcdwright restore --from FILE'");
        }
        if (!present) {
            session.run(RemoteCommand.exec("install", "-d", "-m", "0700", "-o", "root", "-g", "root", "--", STAGING_DIR))
                    .orThrow(host);
            try (Progress sent = ctx.transfer("upload snapshot " + source.file().getFileName(), source.bytes())) {
                session.upload(source.file(), source.sha256(), RemoteFile.rootOwned(staged, "0600"), sent::advanced);
            }
        }
        CommandResult read = session.run(tool.status(staged));
        if (read.exitCode() != 0) {
            throw new IllegalStateException(host + ": " + tool.tool() + " " + tool.version() + " cannot read the snapshot ("
                    + read.stderr().strip() + "); nothing was stopped. Is it a snapshot of etcd " + tool.version().major()
                    + "." + tool.version().minor() + "? Restore it with its own version, or use another backup");
        }
        Status status = parseStatus(read.stdout());
        ctx.output("revision", Long.toString(status.revision()));
        ctx.note(host + ": " + tool.tool() + " reads the snapshot: revision " + status.revision() + ", "
                + status.totalKeys() + " key revisions");
        return present ? Outcome.OK : Outcome.CHANGED;
    }

    static Status parseStatus(String json) {
        Matcher rev = REVISION.matcher(json);
        Matcher keys = TOTAL_KEYS.matcher(json);
        if (!rev.find() || !keys.find()) {
            throw new IllegalStateException("unexpected snapshot status output: " + json.strip());
        }
        return new Status(Long.parseLong(rev.group(1)), Long.parseLong(keys.group(1)));
    }

    /**
     * Stops etcd for the restore, the marker written first (state stopped, with what the snapshot
     * holds): from then on the next apply knows a restore is in flight and finishes it from the
     * staged snapshot. A member an earlier run restored from this snapshot under this token keeps
     * running: its data is already the restored cluster's.
     */
    static Outcome stop(StepContext ctx, SnapshotSource source, String token, String markerPath, Duration timeout) {
        HostSession session = ctx.session();
        Optional<RestoreMarker> marker = RestoreMarker.parse(session.run(RemoteCommand.exec("cat", "--", markerPath)).stdout());
        if (marker.isPresent() && marker.get().resumes(source.sha256(), token)) {
            ctx.note(session.target().name() + ": restored already by an earlier run (" + markerPath + "): not stopped");
            return Outcome.OK;
        }
        RestoreMarker stopping = RestoreMarker.of(source, token, RestoreMarker.State.STOPPED, Optional.empty());
        boolean noted = marker.filter(stopping::equals).isPresent();
        if (!noted) {
            session.upload(stopping.render(), RemoteFile.rootOwned(markerPath, "0600"));
        }
        Outcome stopped = ServiceSteps.stop(ctx, timeout);
        return noted ? stopped : Outcome.CHANGED;
    }

    /**
     * Restores the staged snapshot into a directory beside the data directory, then puts it in the
     * data directory's place (the old data moved aside, never deleted) and writes the marker. OK
     * when the marker says this member was restored from this snapshot under this token already.
     */
    static Outcome restore(StepContext ctx, RestoreTool tool, RestoreTool.Restore r, String dataDir, String suffix,
                           SnapshotSource source, String markerPath, Duration timeout) {
        String snapshotSha256 = source.sha256();
        HostSession session = ctx.session();
        String host = session.target().name();
        Optional<RestoreMarker> marker = RestoreMarker.parse(session.run(RemoteCommand.exec("cat", "--", markerPath)).stdout());
        if (marker.isPresent() && marker.get().resumes(snapshotSha256, r.token())) {
            ctx.note(host + ": restored already by an earlier run (" + markerPath + ")");
            return Outcome.OK;
        }
        // Ours alone: a restore an earlier run left half-done.
        session.run(RemoteCommand.exec("rm", "-rf", "--", r.dataDir())).orThrow(host);
        CommandResult restored = session.run(tool.restore(r), timeout);
        if (restored.exitCode() != 0) {
            session.run(RemoteCommand.exec("rm", "-rf", "--", r.dataDir()));
            throw new IllegalStateException(host + ": " + tool.tool() + " snapshot restore failed (exit " + restored.exitCode()
                    + "): " + lastLines(restored.stderr() + restored.stdout()) + ". The member's data directory "
                    + dataDir + " was not touched; etcd is stopped.");
        }
        Optional<String> aside = DataDirWipe.replace(session, dataDir, suffix, r.dataDir());
        session.upload(RestoreMarker.of(source, r.token(), RestoreMarker.State.RESTORED, aside).render(),
                RemoteFile.rootOwned(markerPath, "0600"));
        ctx.note(host + ": restored " + dataDir + aside.map(a -> "; the old data is kept in " + a).orElse(" (it held no data)"));
        return Outcome.CHANGED;
    }

    /** What the proof expects of the restored cluster: every member on {@code version}, the snapshot's revision and keys. */
    record Expectation(String version, long snapshotRevision, long bump, Optional<Long> liveKeys) {
        long minimumRevision() {
            return snapshotRevision + bump;
        }
    }

    /**
     * Proves the restored cluster from outside: every member answers as one cluster, its revision
     * is at least the snapshot's (plus the bump), and a linearizable count of every key matches the
     * backup's when the backup recorded it. Then marks every member's restore proven and removes
     * the staged snapshots (they hold every key).
     */
    static Outcome prove(StepContext ctx, Health.Access access, List<String> clientUrls, Expectation expected,
                         Map<String, String> hosts, String markerPath, String staged, Duration timeout) throws Exception {
        TlsMaterial tls = access.tls();
        GrpcLogging.quiet();
        List<String> problems = new ArrayList<>();
        long clusterId = -1;
        long revision;
        long keys;
        long createdSince = 0;
        try (Client client = Client.builder().endpoints(clientUrls.stream().map(URI::create).toArray(URI[]::new))
                .sslContext(tls.clientContext()).connectTimeout(timeout).build()) {
            for (String url : clientUrls) {
                StatusResponse s = client.getMaintenanceClient().statusMember(url).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (!s.getVersion().equals(expected.version())) {
                    problems.add(url + " runs etcd " + s.getVersion() + ", not " + expected.version());
                }
                long id = s.getHeader().getClusterId();
                if (clusterId != -1 && id != clusterId) {
                    problems.add(url + " belongs to cluster " + Long.toHexString(id) + ", not " + Long.toHexString(clusterId));
                }
                clusterId = id;
            }
            ByteSequence all = ByteSequence.from(new byte[]{0});
            // Linearizable (the default): the count the cluster agrees on, every key, none left out. At the
            // snapshot's own revision when it was not bumped (the history up to it is restored): writes the
            // restored cluster took since it started do not count. A bumped restore marks it compacted.
            GetResponse count = client.getKVClient().get(all, GetOption.builder().withRange(all).withCountOnly(true)
                            .withRevision(expected.bump() == 0 ? expected.snapshotRevision() : 0).build())
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            revision = count.getHeader().getRevision();
            keys = count.getCount();
            if (expected.bump() > 0) {
                // Keys created since the restored cluster started are not the snapshot's: etcdwright's own
                // lock, taken in the restored cluster by a restore run again after an interruption (a
                // member host crashed), or a client's first writes. The snapshot's keys were all created
                // at or before its revision; the bump puts every new one above it.
                createdSince = client.getKVClient().get(all, GetOption.builder().withRange(all).withKeysOnly(true)
                                .withRevision(revision).withMinCreateRevision(expected.snapshotRevision() + 1).build())
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS).getKvs().size();
                keys -= createdSince;
            }
        }
        if (revision < expected.minimumRevision()) {
            problems.add("its revision is " + revision + ", less than the snapshot's " + expected.snapshotRevision()
                    + (expected.bump() > 0 ? " + " + expected.bump() : ""));
        }
        if (expected.liveKeys().isPresent() && expected.liveKeys().get() != keys) {
            problems.add("it holds " + keys + " keys" + (expected.bump() == 0 ? " at revision " + expected.snapshotRevision() : "")
                    + ", the snapshot " + expected.liveKeys().get());
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the restored cluster does not match the snapshot: " + String.join("; ", problems)
                    + ". The old data of every member is kept beside its data directory.");
        }
        ctx.note("restored cluster " + Long.toHexString(clusterId) + " on etcd " + expected.version() + ": revision " + revision + " (snapshot "
                + expected.snapshotRevision() + (expected.bump() > 0 ? " + " + expected.bump() + " bumped" : "") + "), "
                + keys + " keys" + (expected.bump() == 0 ? " at revision " + expected.snapshotRevision() : "")
                + expected.liveKeys().map(k -> " as the snapshot holds").orElse("")
                + (createdSince > 0 ? " (and " + createdSince + " created since it started, not counted)" : ""));
        for (Map.Entry<String, String> host : hosts.entrySet()) {
            HostSession session = ctx.session(host.getKey());
            Optional<RestoreMarker> marker = RestoreMarker.parse(session.run(RemoteCommand.exec("cat", "--", markerPath)).stdout());
            if (marker.isPresent()) {
                session.upload(marker.get().proven().render(), RemoteFile.rootOwned(markerPath, "0600"));
            }
            session.run(RemoteCommand.exec("rm", "-f", "--", staged)).orThrow(host.getKey());
        }
        return Outcome.CHANGED;
    }

    private static String lastLines(String text) {
        List<String> lines = text.strip().lines().toList();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }
}
