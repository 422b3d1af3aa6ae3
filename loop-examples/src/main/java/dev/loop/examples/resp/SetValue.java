package dev.loop.examples.resp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * A set's members: an array and an index into it, so a random member ({@code SPOP},
 * {@code SRANDMEMBER}) is O(1) and a removal swaps the last member into the hole. Not
 * thread-safe: the data loop's.
 *
 * <p>The order members are answered in follows redis-server 7.0's encodings where it is defined:
 * while every member is an integer and there are at most {@link #MAX_INTSET} of them, Redis keeps
 * an intset, sorted by value, and so is this order; otherwise Redis' order is its hash table's
 * (seeded at random per process, so no client can rely on it), and this one is the array's.
 */
final class SetValue {
    /** Redis' set-max-intset-entries. */
    static final int MAX_INTSET = 512;

    private final ArrayList<Blob> members = new ArrayList<>();
    private final HashMap<Blob, Integer> index = new HashMap<>();
    /** Whether every member is an integer and there are few enough: answered in numeric order. */
    private boolean intset = true;

    int size() {
        return members.size();
    }

    boolean contains(Blob m) {
        return index.containsKey(m);
    }

    /** Adds {@code m}; true if it was not a member. */
    boolean add(Blob m) {
        if (index.containsKey(m)) {
            return false;
        }
        if (intset && (!Numbers.isLong(m.bytes) || members.size() + 1 > MAX_INTSET)) {
            // Redis converts by walking the intset in order: the members so far, sorted, then the new one
            List<Blob> sorted = toList();
            members.clear();
            members.addAll(sorted);
            for (int i = 0; i < members.size(); i++) {
                index.put(members.get(i), i);
            }
            intset = false;
        }
        index.put(m, members.size());
        members.add(m);
        return true;
    }

    boolean remove(Blob m) {
        Integer i = index.remove(m);
        if (i == null) {
            return false;
        }
        Blob last = members.remove(members.size() - 1);
        if (i < members.size()) {
            members.set(i, last);
            index.put(last, i);
        }
        return true;
    }

    /** A member at random; the set is not empty. */
    Blob random() {
        return members.get(java.util.concurrent.ThreadLocalRandom.current().nextInt(members.size()));
    }

    /** The members in the order they are answered in (a copy). */
    List<Blob> toList() {
        List<Blob> l = new ArrayList<>(members);
        if (intset) {
            l.sort((a, b) -> Long.compare(Numbers.parseLong(a.bytes), Numbers.parseLong(b.bytes)));
        }
        return l;
    }
}
