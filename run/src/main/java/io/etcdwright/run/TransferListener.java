package io.etcdwright.run;

import java.util.function.LongConsumer;

/**
 * Told the bytes of one long transfer the run makes outside a step (a backup read from its store
 * before a restore) as they move, then that it ended. How that is shown is the caller's business.
 */
public interface TransferListener extends LongConsumer {
    /** The transfer ended, whether or not it succeeded. */
    void done();

    /** Starts the listener for one transfer, named for the operator ("reading backup NAME"). */
    interface Factory {
        TransferListener start(String label);
    }
}
