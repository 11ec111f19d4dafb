package io.etcdwright.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;

/**
 * The real hosts of one test class, as a JUnit extension: h1..hN up before its first test, with a
 * fresh workstation home ($ETCDWRIGHT_HOME) for its runs, and after its last test the home removed
 * and the hosts down. Declared first in the class,
 * {@code @RegisterExtension static final TestHosts HOSTS = TestHosts.up(3);}, so the class's own
 * {@code @BeforeAll} runs with the hosts up and its {@code @AfterAll} before they go down.
 */
final class TestHosts implements BeforeAllCallback, AfterAllCallback {
    private final int count;
    private Path home;

    private TestHosts(int count) {
        this.count = count;
    }

    /** Hosts h1..h{@code count}. */
    static TestHosts up(int count) {
        return new TestHosts(count);
    }

    /** The class's $ETCDWRIGHT_HOME: PKI directories, release cache, specs, plan files. */
    Path home() {
        if (home == null) {
            throw new IllegalStateException("the hosts are not up: TestHosts runs before the class's first test");
        }
        return home;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Testbed.up(count);
        home = Testbed.freshWorkstationHome();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Testbed.forgetWorkstationHome();
        home = null;
        Testbed.down();
    }
}
