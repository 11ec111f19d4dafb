package io.etcdwright.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ListingTest {

    @Test
    void listsNamesAndCutsLongListsShort() {
        assertEquals("none", Listing.of(List.of()));
        assertEquals("etcd, web", Listing.of(List.of("etcd", "web")));
        List<String> many = IntStream.rangeClosed(1, 14).mapToObj(i -> "h" + i).toList();
        assertEquals("h1, h2, h3, h4, h5, h6, h7, h8, h9, h10 and 4 more", Listing.of(many));
    }
}
