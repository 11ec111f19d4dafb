package io.etcdwright.run;

/**
 * How a converge plan is made.
 *
 * @param snapshot      take a verified snapshot before a membership change or a minor upgrade
 *                      (the command line's --no-snapshot turns it off)
 * @param allowDowntime allow a change that stops every member at once (a minor downgrade made as a restore)
 * @param waits         how long the steps wait for etcd when they run
 */
public record PlanSettings(boolean snapshot, boolean allowDowntime, StepWaits waits) {
}
