package io.etcdwright.run;

import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.backup.BackupsSeen.StoreAnswer;
import io.etcdwright.modules.backup.EtcdwrightBackupMeta;
import io.etcdwright.modules.backup.store.Store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The newest backup in each of the spec's stores, for a plan that found the cluster without quorum
 * (a restore is a way out, and the operator needs to know from which backup). Every store is asked
 * at once, one listing and one meta read each, and given {@link #BOUND} in all: a store that is down
 * or slow is named as not asked, it never holds the plan up for long.
 */
public final class RecoveryBackups implements BackupsSeen.Lookup {
    /** How long the stores get, together: a refusal waits this at most for them. */
    public static final Duration BOUND = Duration.ofSeconds(10);

    private final List<BackupStore> stores;
    private final Function<BackupStore, Store> open;
    private final Duration bound;

    /** The spec's stores, opened by {@code open}, {@code bound} for all of them. */
    public RecoveryBackups(DesiredState desired, Function<BackupStore, Store> open, Duration bound) {
        this(desired.spec().backup().map(b -> b.stores()).orElse(List.of()), open, bound);
    }

    public RecoveryBackups(List<BackupStore> stores, Function<BackupStore, Store> open, Duration bound) {
        this.stores = List.copyOf(stores);
        this.open = open;
        this.bound = bound;
    }

    @Override
    public BackupsSeen look() {
        if (stores.isEmpty()) {
            return new BackupsSeen.NoStores();
        }
        List<CompletableFuture<StoreAnswer>> asked = new ArrayList<>();
        for (BackupStore store : stores) {
            CompletableFuture<StoreAnswer> answer = new CompletableFuture<>();
            // A store that does not answer blocks in its client: its thread is left behind, a daemon.
            Thread asking = new Thread(() -> answer.complete(ask(store)), "backups in " + store.name());
            asking.setDaemon(true);
            asking.start();
            asked.add(answer);
        }
        long deadline = System.nanoTime() + bound.toNanos();
        List<StoreAnswer> answers = new ArrayList<>();
        for (int i = 0; i < stores.size(); i++) {
            try {
                answers.add(asked.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                answers.add(new StoreAnswer.Unreachable(stores.get(i).name(), "no answer within "
                        + (bound.toMillis() % 1000 == 0 ? bound.toSeconds() + " s" : bound.toMillis() + " ms")));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answers.add(new StoreAnswer.Unreachable(stores.get(i).name(), "interrupted"));
            } catch (ExecutionException e) {
                answers.add(new StoreAnswer.Unreachable(stores.get(i).name(), String.valueOf(e.getCause().getMessage())));
            }
        }
        return new BackupsSeen.Looked(answers);
    }

    private StoreAnswer ask(BackupStore store) {
        try (Store opened = open.apply(store)) {
            return new BackupCatalog(opened).newest()
                    .<StoreAnswer>map(b -> new StoreAnswer.Newest(store.name(), b.name(),
                            b.meta().map(EtcdwrightBackupMeta::revision).map(OptionalLong::of).orElse(OptionalLong.empty())))
                    .orElseGet(() -> new StoreAnswer.Empty(store.name()));
        } catch (Exception e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return new StoreAnswer.Unreachable(store.name(), why.lines().findFirst().orElse(why));
        }
    }
}
