package io.etcdwright.cli;

import io.etcdwright.run.ClusterLocks;
import io.etcdwright.run.Pkis;
import io.etcdwright.run.ReadOnlyRunner;
import io.etcdwright.run.SharedStates;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.IssuedCertificate;
import io.etcdwright.modules.pki.SecureFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "issue-reader", description = {"Issues a read-only client certificate (CN etcdwright-reader, client usage only,"
        + " separate from the admin's) for a CI runner or a monitor, and writes it with the CA certificate to --out.",
        "On the runner they go to $ETCDWRIGHT_HOME/clusters/NAME/reader/: plan, status and certs work there without the CA key;",
        "apply and everything else that changes the cluster is refused there. With etcd's authentication off (etcdwright's",
        "default) etcd lets every certificate of its CA do everything: keep reader.key as secret as any client key."})
final class CertsIssueReaderCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Mixin
    LockOptions locks;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Where to write ca.crt, reader.crt and reader.key (0600); made 0700 when missing.")
    Path out;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter text = spec.commandLine().getOut();
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        ReadOnlyRunner.refuse(desired, "certs issue-reader");
        try (ClusterLocks held = ClusterLocks.take(desired, "certs issue-reader", locks.settings(), text::println)) {
            ClusterPki pki = Pkis.of(desired);
            if (pki.trustOnly()) {
                throw new IllegalStateException("cluster " + desired.spec().name() + " is operated trust-only (tls.pki.ca"
                        + " names no key): etcdwright issues no certificate, a reader's neither; issue one from your CA"
                        + " (client usage, CN " + ClusterPki.READER_CN + ") and give the runner it with the CA certificate");
            }
            if (!pki.caExists()) {
                throw new IllegalStateException("cluster " + desired.spec().name() + " has no CA yet (" + pki.caCertFile()
                        + "): create the cluster first ('etcdwright apply'), then issue the reader");
            }
            IssuedCertificate issued = pki.issueReader();
            SharedStates.writeBack(desired);
            export(pki, issued);
            text.println("Issued the reader certificate " + issued.info().subject() + " (serial " + issued.info().serialHex()
                    + ", expires " + issued.info().notAfter() + "), kept in " + pki.clientPair(ClusterPki.READER).cert()
                    + (desired.spec().state().isPresent() ? " and the state store" : "") + ".");
            text.println("Wrote " + out.resolve(ReadOnlyRunner.CA) + ", " + out.resolve(ReadOnlyRunner.CERT) + " and "
                    + out.resolve(ReadOnlyRunner.KEY) + " (0600). On the runner, put them in $ETCDWRIGHT_HOME/clusters/"
                    + desired.spec().name() + "/reader/: there plan, status and certs run read-only, and apply is refused.");
            text.println("What etcd lets it do: etcdwright leaves etcd's authentication off, and then etcd serves every"
                    + " certificate its CA signed alike: the reader CAN write to etcd directly (etcdctl put). It is read-only"
                    + " because etcdwright refuses to change anything with it and the runner holds no CA key; keep reader.key as"
                    + " secret as any client key. With authentication on, CN " + ClusterPki.READER_CN + " is its etcd user:"
                    + " grant it a read-only role.");
            return Main.OK;
        }
    }

    private void export(ClusterPki pki, IssuedCertificate issued) {
        try {
            Files.createDirectories(out, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            SecureFiles.writePublic(out.resolve(ReadOnlyRunner.CA), Files.readString(pki.trustedCaFile()), "CA certificate");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + out + ": " + e.getMessage(), e);
        }
        issued.writeTo(out.resolve(ReadOnlyRunner.CERT), out.resolve(ReadOnlyRunner.KEY));
    }
}
