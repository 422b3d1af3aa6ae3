package dev.loop.examples.resp;

import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Channels and patterns, who listens to each, and the commands on them: SUBSCRIBE, UNSUBSCRIBE,
 * PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB CHANNELS|NUMSUB|NUMPAT. Not thread-safe: the data
 * loop's, like the keyspace, so a PUBLISH sees every subscription made before it by any client of
 * any loop.
 *
 * <p>A message is encoded once per protocol (RESP2 array, RESP3 push) and the same bytes are handed
 * to every subscriber speaking it, through its {@link Session.Subscriber}, which delivers on the
 * subscriber's home loop in the order of PUBLISH. A subscriber that is the client running the
 * PUBLISH gets the message in its reply stream right away, before the PUBLISH's own reply, as
 * redis-server writes it.
 */
final class PubSub {
    /** A channel or pattern, compared by content. */
    record Name(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Name n && Arrays.equals(bytes, n.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    private static final byte[] SUBSCRIBE = Reply.ascii("subscribe");
    private static final byte[] UNSUBSCRIBE = Reply.ascii("unsubscribe");
    private static final byte[] PSUBSCRIBE = Reply.ascii("psubscribe");
    private static final byte[] PUNSUBSCRIBE = Reply.ascii("punsubscribe");
    private static final byte[] MESSAGE = Reply.ascii("message");
    private static final byte[] PMESSAGE = Reply.ascii("pmessage");

    private final Map<Name, Set<Session>> channels = new HashMap<>();
    private final Map<Name, Set<Session>> patterns = new HashMap<>();
    private final OutputBuffer scratch = new OutputBuffer(256);
    private final Reply encoder = new Reply();

    void subscribe(Session s, byte[][] argv, Reply r, boolean pattern) {
        Map<Name, Set<Session>> registry = pattern ? patterns : channels;
        Set<Name> mine = pattern ? s.patterns : s.channels;
        for (int i = 1; i < argv.length; i++) {
            Name n = new Name(argv[i]);
            if (mine.add(n)) {
                registry.computeIfAbsent(n, x -> new LinkedHashSet<>()).add(s);
            }
            confirm(r, pattern ? PSUBSCRIBE : SUBSCRIBE, argv[i], s.subscriptions());
        }
    }

    /** UNSUBSCRIBE/PUNSUBSCRIBE: the names given, or all of them; a confirmation each, or one with a null name. */
    void unsubscribe(Session s, byte[][] argv, Reply r, boolean pattern) {
        Set<Name> mine = pattern ? s.patterns : s.channels;
        byte[] kind = pattern ? PUNSUBSCRIBE : UNSUBSCRIBE;
        List<Name> names = new ArrayList<>();
        if (argv.length == 1) {
            names.addAll(mine);
            if (names.isEmpty()) {
                confirm(r, kind, null, s.subscriptions());
                return;
            }
        } else {
            for (int i = 1; i < argv.length; i++) {
                names.add(new Name(argv[i]));
            }
        }
        for (Name n : names) {
            if (mine.remove(n)) {
                drop(pattern ? patterns : channels, n, s);
            }
            confirm(r, kind, n.bytes(), s.subscriptions());
        }
    }

    /** Forgets every subscription of {@code s}'s, without replies: the client left or sent RESET. */
    void removeAll(Session s) {
        for (Name n : s.channels) {
            drop(channels, n, s);
        }
        for (Name n : s.patterns) {
            drop(patterns, n, s);
        }
        s.channels.clear();
        s.patterns.clear();
    }

    /**
     * Sends {@code message} to the subscribers of {@code channel} and of the patterns matching it.
     *
     * @param current the client running the PUBLISH: its copy goes into its own reply stream
     * @return the number of deliveries, as PUBLISH replies
     */
    int publish(byte[] channel, byte[] message, Session current) {
        int receivers = 0;
        Set<Session> direct = channels.get(new Name(channel));
        if (direct != null) {
            byte[][] encoded = new byte[2][];
            for (Session s : direct) {
                deliver(s, current, encoded, null, channel, message);
                receivers++;
            }
        }
        if (!patterns.isEmpty()) {
            for (Map.Entry<Name, Set<Session>> p : patterns.entrySet()) {
                if (GlobPattern.matches(p.getKey().bytes(), channel)) {
                    byte[][] encoded = new byte[2][];
                    for (Session s : p.getValue()) {
                        deliver(s, current, encoded, p.getKey().bytes(), channel, message);
                        receivers++;
                    }
                }
            }
        }
        return receivers;
    }

    /** PUBSUB CHANNELS [pattern] | NUMSUB [channel...] | NUMPAT. */
    void pubsub(byte[][] argv, Reply r) {
        if (CommandTable.is(argv[1], "channels") && argv.length <= 3) {
            List<byte[]> found = new ArrayList<>();
            channels.keySet().forEach(n -> {
                if (argv.length == 2 || GlobPattern.matches(argv[2], n.bytes())) {
                    found.add(n.bytes());
                }
            });
            r.arrayHeader(found.size());
            found.forEach(r::bulk);
        } else if (CommandTable.is(argv[1], "numsub")) {
            r.arrayHeader((argv.length - 2) * 2);
            for (int i = 2; i < argv.length; i++) {
                Set<Session> l = channels.get(new Name(argv[i]));
                r.bulk(argv[i]);
                r.integer(l == null ? 0 : l.size());
            }
        } else if (CommandTable.is(argv[1], "numpat") && argv.length == 2) {
            r.integer(patterns.size());
        } else if (CommandTable.is(argv[1], "channels") || CommandTable.is(argv[1], "numpat")) {
            Commands.wrongArity(r, "pubsub|" + new String(argv[1], StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT));
        } else {
            r.error("ERR unknown subcommand '" + new String(argv[1], StandardCharsets.UTF_8) + "'. Try PUBSUB HELP.");
        }
    }

    int channelCount() {
        return channels.size();
    }

    int patternCount() {
        return patterns.size();
    }

    private void deliver(Session s, Session current, byte[][] encoded, byte[] pattern, byte[] channel, byte[] message) {
        int p = s.reply.resp3() ? 1 : 0;
        if (encoded[p] == null) {
            encoder.protocol(p == 1 ? 3 : 2);
            encoder.to(scratch);
            scratch.reset();
            encoder.pushHeader(pattern == null ? 3 : 4);
            encoder.bulk(pattern == null ? MESSAGE : PMESSAGE);
            if (pattern != null) {
                encoder.bulk(pattern);
            }
            encoder.bulk(channel);
            encoder.bulk(message);
            encoded[p] = scratch.toByteArray();
            scratch.reset();
        }
        if (s == current) {
            current.reply.raw(encoded[p]);
        } else if (s.subscriber != null) {
            s.subscriber.push(encoded[p]);
        }
    }

    private static void confirm(Reply r, byte[] kind, byte[] name, int count) {
        r.pushHeader(3);
        r.bulk(kind);
        r.bulk(name);
        r.integer(count);
    }

    private static void drop(Map<Name, Set<Session>> registry, Name n, Session s) {
        Set<Session> l = registry.get(n);
        if (l != null && l.remove(s) && l.isEmpty()) {
            registry.remove(n);
        }
    }
}
