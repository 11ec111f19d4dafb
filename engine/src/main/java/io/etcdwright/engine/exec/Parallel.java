package io.etcdwright.engine.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/** Work on hosts side by side, at most {@code forks} at a time (Ansible's --forks). */
public final class Parallel {
    private Parallel() {
    }

    public static <T, R> List<R> map(List<T> items, int forks, Function<T, R> work) {
        if (items.size() <= 1 || forks <= 1) {
            List<R> results = new ArrayList<>(items.size());
            items.forEach(item -> results.add(work.apply(item)));
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(forks, items.size()), r -> {
            Thread t = new Thread(r, "etcdwright-worker");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<R>> futures = new ArrayList<>(items.size());
            for (T item : items) {
                futures.add(pool.submit(() -> work.apply(item)));
            }
            List<R> results = new ArrayList<>(items.size());
            for (Future<R> f : futures) {
                results.add(await(f));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A future's answer, or what its work threw (unchecked as it was; an interrupt as IllegalStateException). */
    public static <R> R await(Future<R> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
