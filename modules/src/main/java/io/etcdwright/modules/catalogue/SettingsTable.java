package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.spec.VersionRules.Finding;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every key of etcd's config file and what became of it from minor to minor (the catalogue's
 * {@code settings} and {@code featureGates}), and the one function that writes a spec's settings
 * as a given release reads them. etcd's YAML ignores a key it does not know without a word, so a
 * key this table does not give the release is refused, never passed through.
 */
final class SettingsTable {

    private static SettingType type(String text, String where) {
        try {
            return SettingType.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + ".type must be bool, int, duration, string,"
                    + " list, gates or object, got '" + text + "'");
        }
    }

    /** The minors that read a key: "3.4-3.6", "3.6", or "3.5-" (every later minor too). */
    record Range(Minor from, Optional<Minor> to) {
        static Range parse(String text, String where) {
            String[] ends = text.split("-", -1);
            Optional<Minor> from = Minor.tryParse(ends[0]);
            Optional<Minor> to = ends.length == 1 ? from : ends[1].isEmpty() ? Optional.empty() : Minor.tryParse(ends[1]);
            if (ends.length > 2 || from.isEmpty() || ends.length == 2 && !ends[1].isEmpty() && to.isEmpty()
                    || to.isPresent() && to.get().compareTo(from.get()) < 0) {
                throw new IllegalStateException("etcd-versions.yaml: " + where + ".in must be X.Y, X.Y-X.Y or X.Y-, got '" + text + "'");
            }
            return new Range(from.get(), to);
        }

        boolean contains(Minor m) {
            return m.isAtLeast(from) && to.map(t -> t.isAtLeast(m)).orElse(true);
        }

        boolean endsBefore(Minor m) {
            return to.isPresent() && m.compareTo(to.get()) > 0;
        }
    }

    /** What a key became from a minor on: another key (renamed) or a feature gate. */
    record Successor(Minor in, String name) {
    }

    record Setting(String key, SettingType type, Range in, Map<Minor, Version> since, Optional<Successor> renamed,
                   Optional<Successor> gate, Optional<String> instead) {
        /** Whether this release reads the key at all (under this name). */
        boolean readBy(Version v) {
            Minor m = v.minorLine();
            return in.contains(m) && v.isAtLeast(since.getOrDefault(m, m.first()));
        }

        /** The first minor that no longer reads it. */
        Optional<Minor> droppedIn() {
            return in.to().map(Minor::next);
        }
    }

    record Gate(String name, Range in, boolean defaultOn) {
    }

    /**
     * What etcdwright writes unless the spec sets the same thing (the catalogue's {@code defaults}):
     * named as gates, written as each release has them (its gate, else the experimental boolean the
     * gate replaced, else nothing: a release without the check cannot be given it).
     *
     * @param why the plan's reason when a member's file lacks it
     */
    record Default(String why, String link, Map<String, Boolean> gates) {
        Default {
            gates = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(gates));
        }
    }

    private final Map<String, Setting> settings;
    private final Map<String, Gate> gates;
    private final List<Default> defaults;

    private SettingsTable(Map<String, Setting> settings, Map<String, Gate> gates, List<Default> defaults) {
        this.settings = settings;
        this.gates = gates;
        this.defaults = defaults;
    }

    static SettingsTable read(StrictYaml settingsNode, StrictYaml gatesNode, List<StrictYaml> defaultNodes, List<Minor> minors) {
        Map<String, Setting> settings = new LinkedHashMap<>();
        settingsNode.entries().forEach((key, node) -> {
            Range in = Range.parse(node.string("in"), node.where());
            Map<Minor, Version> since = new LinkedHashMap<>();
            for (String first : node.optionalStrings("since").orElse(List.of())) {
                Version v = Version.tryParse(first).filter(x -> in.contains(x.minorLine())).orElseThrow(() ->
                        new IllegalStateException("etcd-versions.yaml: " + node.where() + ".since: '" + first
                                + "' is not a version of a minor in " + in));
                since.put(v.minorLine(), v);
            }
            settings.put(key, new Setting(key, type(node.string("type"), node.where()), in, since,
                    node.optionalMapping("renamed").map(SettingsTable::successor),
                    node.optionalMapping("gate").map(SettingsTable::successor), node.optionalString("instead")));
            node.done();
        });
        Map<String, Gate> gates = new LinkedHashMap<>();
        gatesNode.entries().forEach((name, node) -> {
            gates.put(name, new Gate(name, Range.parse(node.string("in"), node.where()), node.bool("default")));
            node.done();
        });
        Minor newest = minors.get(minors.size() - 1);
        for (Setting s : settings.values()) {
            s.renamed().filter(r -> !settings.containsKey(r.name())).ifPresent(r -> {
                throw new IllegalStateException("etcd-versions.yaml: settings." + s.key() + " is renamed to " + r.name()
                        + ", which the table does not have");
            });
            s.gate().filter(g -> !gates.containsKey(g.name())).ifPresent(g -> {
                throw new IllegalStateException("etcd-versions.yaml: settings." + s.key() + " became the gate " + g.name()
                        + ", which featureGates does not have");
            });
            if (s.in().endsBefore(newest) && s.renamed().isEmpty() && s.gate().isEmpty() && s.instead().isEmpty()) {
                throw new IllegalStateException("etcd-versions.yaml: settings." + s.key() + " is dropped after " + s.in().to().get()
                        + " but says neither what it was renamed to, nor its gate, nor what to do instead");
            }
        }
        List<Default> defaults = new ArrayList<>();
        for (StrictYaml node : defaultNodes) {
            Map<String, Boolean> asked = node.mapping("gates").boolEntries();
            asked.keySet().stream().filter(g -> !gates.containsKey(g)).findFirst().ifPresent(g -> {
                throw new IllegalStateException("etcd-versions.yaml: " + node.where() + ".gates names " + g
                        + ", which featureGates does not have");
            });
            defaults.add(new Default(node.string("why"), node.string("link"), asked));
            node.done();
        }
        return new SettingsTable(Map.copyOf(settings), Map.copyOf(gates), List.copyOf(defaults));
    }

    private static Successor successor(StrictYaml node) {
        Successor s = new Successor(node.minor("in"), node.optionalString("to").or(() -> node.optionalString("name"))
                .orElseThrow(() -> new IllegalStateException("etcd-versions.yaml: " + node.where() + " names no successor")));
        node.done();
        return s;
    }

    /** The type of a key, when some release reads it. */
    Optional<SettingType> typeOf(String key) {
        return Optional.ofNullable(settings.get(key)).map(Setting::type);
    }

    /** Every key the table knows, any release. */
    java.util.Set<String> keys() {
        return settings.keySet();
    }

    // ---------------------------------------------------------------------------------------------

    /** Where a spec key lands for one release: a key of its config file, a feature gate, or nowhere (why). */
    private sealed interface Landing {
        record Key(String name, Optional<String> warning) implements Landing {
        }

        record AsGate(String gate, Optional<String> warning) implements Landing {
        }

        record Refused(String why) implements Landing {
        }
    }

    /** The spec's settings as {@code target} reads them. */
    ConfigSettings render(Version target, Map<String, Object> written) {
        return render(target, written, true, false);
    }

    /**
     * @param convert      whether values take the config file's form (durations in nanoseconds, strings as
     *                     strings), or stay as written (for a spec: names spelled, values left to the file)
     * @param withDefaults whether etcdwright's {@link Default}s join what the spec does not set (a config file)
     */
    ConfigSettings render(Version target, Map<String, Object> written, boolean convert, boolean withDefaults) {
        Map<String, Object> config = new TreeMap<>();
        Map<String, Boolean> gateValues = new TreeMap<>();
        Map<String, String> claimedBy = new LinkedHashMap<>();
        List<Finding> findings = new ArrayList<>();
        for (Map.Entry<String, Object> entry : written.entrySet()) {
            String key = entry.getKey();
            Setting s = settings.get(key);
            if (s == null) {
                findings.add(Finding.aboutSetting(key, true, unknown(key, target)));
                continue;
            }
            if (s.type() == SettingType.GATES) {
                gatesFrom(key, entry.getValue(), target, config, gateValues, claimedBy, findings);
                continue;
            }
            Landing landing = landing(s, target);
            if (landing instanceof Landing.Refused refused) {
                findings.add(Finding.aboutSetting(key, true, refused.why()));
            } else if (landing instanceof Landing.Key k) {
                Object value;
                try {
                    value = converted(s.type(), entry.getValue());
                    if (!convert) {
                        value = entry.getValue();
                    }
                } catch (IllegalArgumentException e) {
                    findings.add(Finding.aboutSetting(key, true, e.getMessage()));
                    continue;
                }
                if (claim(k.name(), key, target, claimedBy, findings)) {
                    k.warning().ifPresent(w -> findings.add(Finding.aboutSetting(key, false, w)));
                    config.put(k.name(), value);
                }
            } else if (landing instanceof Landing.AsGate g) {
                if (!(entry.getValue() instanceof Boolean on)) {
                    findings.add(Finding.aboutSetting(key, true, "must be true or false" + got(entry.getValue())));
                } else if (claim("feature gate " + g.gate(), key, target, claimedBy, findings)) {
                    g.warning().ifPresent(w -> findings.add(Finding.aboutSetting(key, false, w.replace("{value}", on.toString()))));
                    gateValues.put(g.gate(), on);
                }
            }
        }
        List<String> defaulted = withDefaults ? defaultsInto(target, config, gateValues, claimedBy) : List.of();
        if (!gateValues.isEmpty()) {
            config.put("feature-gates", String.join(",", gateValues.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList()));
        }
        return new ConfigSettings(target, config, findings, defaulted);
    }

    /**
     * Each default the spec left unset, written as {@code target} has it; what the spec sets under any
     * name (claimed already) is the spec's. Returns the reasons of the defaults that wrote something.
     */
    private List<String> defaultsInto(Version target, Map<String, Object> config, Map<String, Boolean> gateValues,
                                      Map<String, String> claimedBy) {
        Minor m = target.minorLine();
        boolean hasGates = settings.get("feature-gates").readBy(target);
        List<String> reasons = new ArrayList<>();
        for (Default d : defaults) {
            boolean wrote = false;
            for (Map.Entry<String, Boolean> g : d.gates().entrySet()) {
                String name = g.getKey();
                if (hasGates && gates.get(name).in().contains(m)) {
                    if (!claimedBy.containsKey("feature gate " + name)) {
                        gateValues.put(name, g.getValue());
                        wrote = true;
                    }
                    continue;
                }
                Optional<Setting> older = settings.values().stream()
                        .filter(s -> s.gate().map(x -> x.name().equals(name)).orElse(false) && s.readBy(target)).findFirst();
                if (older.isPresent() && !claimedBy.containsKey(older.get().key())) {
                    config.put(older.get().key(), g.getValue());
                    wrote = true;
                }
            }
            if (wrote) {
                reasons.add(d.why());
            }
        }
        return reasons;
    }

    private Landing landing(Setting s, Version target) {
        Minor m = target.minorLine();
        if (s.in().contains(m)) {
            Optional<Version> since = Optional.ofNullable(s.since().get(m));
            if (since.isPresent() && !target.isAtLeast(since.get())) {
                return new Landing.Refused("etcd " + target + " does not read " + s.key() + " yet: it came in " + since.get()
                        + " (set etcd.version to " + since.get() + " or newer, or drop it)");
            }
            Optional<Successor> renamed = s.renamed().filter(r -> m.isAtLeast(r.in()));
            if (renamed.isPresent()) {
                return new Landing.Key(renamed.get().name(), Optional.of("etcd " + renamed.get().in() + " renamed " + s.key()
                        + " to " + renamed.get().name() + droppedAfter(s) + "; etcdwright writes " + renamed.get().name()
                        + " for etcd " + target + ": write " + renamed.get().name() + " in the spec"));
            }
            Optional<Successor> gate = s.gate().filter(g -> m.isAtLeast(g.in()));
            if (gate.isPresent()) {
                return new Landing.AsGate(gate.get().name(), Optional.of("etcd " + gate.get().in() + " turned " + s.key()
                        + " into the feature gate " + gate.get().name() + droppedAfter(s) + "; etcdwright writes feature-gates: "
                        + gate.get().name() + "={value} for etcd " + target + ": write feature-gates: \"" + gate.get().name()
                        + "={value}\" in the spec"));
            }
            return new Landing.Key(s.key(), Optional.empty());
        }
        if (s.in().endsBefore(m)) {
            String gone = "etcd " + target + " no longer has " + s.key() + " (etcd " + s.droppedIn().orElseThrow()
                    + " dropped it, and its config file would ignore it without a word)";
            if (s.renamed().isPresent()) {
                return new Landing.Refused(gone + ": since etcd " + s.renamed().get().in() + " it is " + s.renamed().get().name()
                        + "; write " + s.renamed().get().name() + " instead");
            }
            if (s.gate().isPresent()) {
                return new Landing.Refused(gone + ": since etcd " + s.gate().get().in() + " it is the feature gate "
                        + s.gate().get().name() + "; write feature-gates: \"" + s.gate().get().name() + "=true\" (or =false) instead");
            }
            return new Landing.Refused(gone + ": " + s.instead().orElse("drop it"));
        }
        // A name newer than the target: the target may read the same setting under its older name.
        for (Setting older : settings.values()) {
            if (older.renamed().map(r -> r.name().equals(s.key())).orElse(false) && older.in().contains(m)) {
                Optional<Version> since = Optional.ofNullable(older.since().get(m));
                if (since.isPresent() && !target.isAtLeast(since.get())) {
                    return new Landing.Refused("etcd " + target + " does not have " + s.key() + ": etcd " + m + " calls it "
                            + older.key() + " from " + since.get() + " on (set etcd.version to " + since.get()
                            + " or newer, or drop it)");
                }
                return new Landing.Key(older.key(), Optional.empty());
            }
        }
        return new Landing.Refused("etcd " + target + " does not have " + s.key() + ": it is new in etcd " + s.in().from()
                + " (its config file would ignore it without a word)");
    }

    private static String droppedAfter(Setting s) {
        return s.droppedIn().map(d -> " (etcd " + d + " no longer reads the old name)").orElse("");
    }

    /** The feature-gates setting: into the target's own gates, or back into its experimental booleans (3.5). */
    private void gatesFrom(String key, Object value, Version target, Map<String, Object> config, Map<String, Boolean> gateValues,
                           Map<String, String> claimedBy, List<Finding> findings) {
        Map<String, Boolean> asked;
        try {
            asked = parseGates(value);
        } catch (IllegalArgumentException e) {
            findings.add(Finding.aboutSetting(key, true, e.getMessage()));
            return;
        }
        Minor m = target.minorLine();
        boolean hasGates = settings.get(key).readBy(target);
        for (Map.Entry<String, Boolean> g : asked.entrySet()) {
            String name = g.getKey();
            Gate gate = gates.get(name);
            if (hasGates) {
                if (gate == null || !gate.in().contains(m)) {
                    findings.add(Finding.aboutSetting(key, true, (gate == null
                            ? name + " is not a feature gate of etcd " + target + " (its gates: " + String.join(", ", gatesOf(m)) + ")"
                            : "etcd " + target + " does not know the feature gate " + name + ": it is new in etcd " + gate.in().from())
                            + ", and etcd refuses to start with a gate it does not know"));
                } else if (claim("feature gate " + name, key, target, claimedBy, findings)) {
                    gateValues.put(name, g.getValue());
                }
                continue;
            }
            Optional<Setting> older = settings.values().stream()
                    .filter(s -> s.gate().map(x -> x.name().equals(name)).orElse(false) && s.readBy(target)).findFirst();
            if (older.isEmpty()) {
                findings.add(Finding.aboutSetting(key, true, "etcd " + target + " has no feature gates" + (gate == null
                        ? ", and " + name + " is no gate etcdwright knows"
                        : ", and " + name + " has no setting of its own in etcd " + target)));
            } else if (claim(older.get().key(), key, target, claimedBy, findings)) {
                config.put(older.get().key(), g.getValue());
            }
        }
    }

    private List<String> gatesOf(Minor m) {
        return gates.values().stream().filter(g -> g.in().contains(m)).map(Gate::name).sorted().toList();
    }

    /** "A=true,B=false" or a list of "A=true": the gates asked for, in order. */
    static Map<String, Boolean> parseGates(Object value) {
        List<String> items = new ArrayList<>();
        if (value instanceof String text) {
            for (String part : text.split(",")) {
                if (!part.isBlank()) {
                    items.add(part.strip());
                }
            }
        } else if (value instanceof List<?> list && list.stream().allMatch(x -> x instanceof String)) {
            list.forEach(x -> items.add(((String) x).strip()));
        } else {
            throw new IllegalArgumentException("must be a string of gates, like \"InitialCorruptCheck=true,CompactHashCheck=true\","
                    + " or a list of them" + got(value));
        }
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (String item : items) {
            Matcher m = Pattern.compile("([A-Za-z0-9]+)=(true|false)").matcher(item);
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + item + "' is not Name=true or Name=false (etcd's feature-gates form)");
            }
            if (out.put(m.group(1), Boolean.parseBoolean(m.group(2))) != null) {
                throw new IllegalArgumentException("sets the gate " + m.group(1) + " twice");
            }
        }
        return out;
    }

    /** Records that {@code specKey} writes {@code target}; false (and an error) when another spec key did already. */
    private static boolean claim(String target, String specKey, Version readBy, Map<String, String> claimedBy, List<Finding> findings) {
        String earlier = claimedBy.putIfAbsent(target, specKey);
        if (earlier == null || earlier.equals(specKey)) {
            return true;
        }
        findings.add(Finding.aboutSetting(specKey, true, "sets the same thing as " + earlier + " (etcd " + readBy + " reads both as "
                + target + ", and etcd 3.6 refuses to start when an old name and its new name are both set): keep only one"));
        return false;
    }

    private String unknown(String key, Version target) {
        String nearest = settings.values().stream().filter(s -> s.readBy(target))
                .map(Setting::key).min(Comparator.comparingInt(k -> distance(k, key))).orElse("");
        return "is not a setting of etcd " + target + ": etcd's config file would ignore it without a word"
                + (distance(nearest, key) <= 3 ? " (did you mean " + nearest + "?)" : "");
    }

    // ---------------------------------------------------------------------------------------------

    /** A spec value in the form etcd's config file takes for {@code type}. */
    static Object converted(SettingType type, Object value) {
        switch (type) {
            case BOOL -> {
                if (value instanceof Boolean) {
                    return value;
                }
                throw new IllegalArgumentException("must be true or false" + got(value));
            }
            case INT -> {
                if ((value instanceof Integer || value instanceof Long) && ((Number) value).longValue() >= 0) {
                    return ((Number) value).longValue() <= Integer.MAX_VALUE ? (Object) ((Number) value).intValue() : value;
                }
                throw new IllegalArgumentException("must be a whole number of at least 0" + got(value));
            }
            case DURATION -> {
                if ((value instanceof Integer || value instanceof Long) && ((Number) value).longValue() >= 0) {
                    return value;
                }
                if (value instanceof String text) {
                    Optional<Long> nanos = nanoseconds(text);
                    if (nanos.isPresent()) {
                        return nanos.get() <= Integer.MAX_VALUE ? (Object) nanos.get().intValue() : nanos.get();
                    }
                }
                throw new IllegalArgumentException("must be a duration like 100ms, 5s or 1m30s (or whole nanoseconds, as etcd's"
                        + " config file takes it)" + got(value));
            }
            case STRING -> {
                if (value instanceof List<?> list) {
                    return String.join(",", list.stream().map(String::valueOf).toList());
                }
                return String.valueOf(value);
            }
            case LIST -> {
                if (value instanceof List<?> list) {
                    return list.stream().map(String::valueOf).toList();
                }
                return List.of(String.valueOf(value));
            }
            default -> throw new IllegalArgumentException("is a mapping in etcd's config file, which etcd.settings does not pass"
                    + " through");
        }
    }

    private static final Pattern DURATION = Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)");

    /** Go's time.ParseDuration, for the non-negative durations etcd takes; empty when it is not one. */
    static Optional<Long> nanoseconds(String text) {
        if (text.equals("0")) {
            return Optional.of(0L);
        }
        Matcher m = DURATION.matcher(text);
        int at = 0;
        BigDecimal total = BigDecimal.ZERO;
        while (at < text.length() && m.find(at) && m.start() == at) {
            long unit = switch (m.group(2)) {
                case "ns" -> 1L;
                case "us", "µs", "μs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            total = total.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)));
            at = m.end();
        }
        if (at == 0 || at != text.length() || total.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return Optional.empty();
        }
        return Optional.of(total.longValue());
    }

    private static String got(Object value) {
        return value instanceof String text ? ", got string '" + text + "'" : ", got " + value;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
