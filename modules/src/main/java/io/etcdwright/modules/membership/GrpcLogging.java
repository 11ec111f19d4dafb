package io.etcdwright.modules.membership;

/**
 * gRPC and Netty log through java.util.logging; their INFO lines are noise in a CLI. Silenced
 * when the first etcd client is made, not at every start: setting up java.util.logging costs a
 * command that never talks to etcd (validate, facts, plan) a noticeable part of its time.
 */
public final class GrpcLogging {
    private static volatile boolean quiet;

    private GrpcLogging() {
    }

    public static void quiet() {
        if (!quiet) {
            synchronized (GrpcLogging.class) {
                if (!quiet) {
                    java.util.logging.LogManager.getLogManager().reset();
                    quiet = true;
                }
            }
        }
    }
}
