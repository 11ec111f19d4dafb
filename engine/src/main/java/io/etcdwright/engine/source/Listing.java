package io.etcdwright.engine.source;

import java.util.Collection;
import java.util.List;

/** Names listed inside a message ("groups: etcd, web"), cut short so one line stays readable. */
public final class Listing {

    private static final int SHOWN = 10;

    private Listing() {}

    /** {@code "a, b, c"}; {@code "a, ..., j and 5 more"} past ten; {@code "none"} when empty. */
    public static String of(Collection<String> names) {
        if (names.isEmpty()) {
            return "none";
        }
        List<String> all = List.copyOf(names);
        if (all.size() <= SHOWN) {
            return String.join(", ", all);
        }
        return String.join(", ", all.subList(0, SHOWN)) + " and " + (all.size() - SHOWN) + " more";
    }
}
