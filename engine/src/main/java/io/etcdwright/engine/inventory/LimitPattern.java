package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Ansible's {@code --limit} basics over one {@link Inventory}. Terms are applied as Ansible
 * orders them: plain terms are united first, then {@code &} terms intersect, then {@code !}
 * terms subtract; with no plain term the start is {@code all}.
 */
final class LimitPattern {

    private static final Pattern IPV6 = Pattern.compile("^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$");

    private final Inventory inventory;

    LimitPattern(Inventory inventory) {
        this.inventory = inventory;
    }

    List<InventoryHost> select(String pattern) {
        List<String> terms = split(pattern);
        List<Problem> problems = new ArrayList<>();
        if (terms.isEmpty()) {
            problems.add(problem("'" + pattern + "' names no host or group"));
            throw new InvalidInputException(problems);
        }
        List<String> plain = new ArrayList<>();
        List<String> intersect = new ArrayList<>();
        List<String> exclude = new ArrayList<>();
        for (String term : terms) {
            if (term.startsWith("!")) {
                exclude.add(term.substring(1));
            } else if (term.startsWith("&")) {
                intersect.add(term.substring(1));
            } else {
                plain.add(term);
            }
        }
        if (plain.isEmpty()) {
            plain.add(Inventory.ALL);
        }
        Set<String> selected = new LinkedHashSet<>();
        for (String term : plain) {
            selected.addAll(match(term, problems));
        }
        for (String term : intersect) {
            selected.retainAll(match(term, problems));
        }
        for (String term : exclude) {
            selected.removeAll(match(term, problems));
        }
        if (!problems.isEmpty()) {
            throw new InvalidInputException(problems);
        }
        return inventory.hosts().values().stream().filter(host -> selected.contains(host.name())).toList();
    }

    /** Commas separate terms; so do colons (Ansible's old syntax) unless the term is an IPv6 address or a host name. */
    private List<String> split(String pattern) {
        List<String> terms = new ArrayList<>();
        for (String piece : pattern.split(",")) {
            String term = piece.strip();
            if (term.isEmpty()) {
                continue;
            }
            String bare = term.replaceFirst("^[!&]", "");
            if (!term.contains(":") || inventory.hosts().containsKey(bare) || IPV6.matcher(bare).matches()) {
                terms.add(term);
                continue;
            }
            for (String part : term.split(":")) {
                if (!part.isBlank()) {
                    terms.add(part.strip());
                }
            }
        }
        return terms;
    }

    private Set<String> match(String term, List<Problem> problems) {
        Set<String> names = new LinkedHashSet<>();
        if (term.startsWith("~") || term.contains("[")) {
            problems.add(problem("'" + term + "': etcdwright's --limit takes host and group names, * and ? globs,"
                    + " &intersections and !exclusions (no ~regex or [subscripts])"));
            return names;
        }
        if (inventory.groups().containsKey(term)) {
            inventory.hostsOf(term).forEach(host -> names.add(host.name()));
        } else if (inventory.hosts().containsKey(term)) {
            names.add(term);
        } else if (term.contains("*") || term.contains("?")) {
            Pattern glob = glob(term);
            inventory.groups().keySet().stream().filter(group -> glob.matcher(group).matches())
                    .forEach(group -> inventory.hostsOf(group).forEach(host -> names.add(host.name())));
            inventory.hosts().keySet().stream().filter(host -> glob.matcher(host).matches()).forEach(names::add);
        }
        if (names.isEmpty()) {
            problems.add(problem("'" + term + "' matches no host or group (hosts: " + Listing.of(inventory.hosts().keySet())
                    + "; groups: " + Listing.of(inventory.namedGroups()) + ")"));
        }
        return names;
    }

    private static Pattern glob(String term) {
        StringBuilder regex = new StringBuilder();
        for (char c : term.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }

    private Problem problem(String message) {
        return Problem.error(Location.ofFile(inventory.file()), "--limit", message);
    }
}
