package io.etcdwright.run.rollout;

/**
 * How many clusters of one wave may fail with the rollout going on, {@code --max-failures N|P%}
 * (default 0), with Ansible's {@code max_fail_percentage} meaning: the budget is exceeded when
 * the failures are more than it allows; a percentage is of the wave's size, rounded down.
 */
public final class FailureBudget {
    private final int count;
    private final int percent;

    private FailureBudget(int count, int percent) {
        this.count = count;
        this.percent = percent;
    }

    public static FailureBudget parse(String text) {
        String t = text.strip();
        if (t.matches("\\d+")) {
            return new FailureBudget(Integer.parseInt(t), -1);
        }
        if (t.matches("\\d+%") && Integer.parseInt(t.substring(0, t.length() - 1)) <= 100) {
            return new FailureBudget(-1, Integer.parseInt(t.substring(0, t.length() - 1)));
        }
        throw new IllegalArgumentException("--max-failures " + text + ": not a count or a percentage");
    }

    public boolean exceeded(int failed, int waveSize) {
        int allowed = count >= 0 ? count : percent * waveSize / 100;
        return failed > allowed;
    }
}
