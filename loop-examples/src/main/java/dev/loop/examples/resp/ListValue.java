package dev.loop.examples.resp;

/**
 * A list's elements in a ring buffer: push and pop at both ends in O(1) amortised, reads by index
 * in O(1), an insert or removal inside in O(n). Not thread-safe: the data loop's.
 */
final class ListValue {
    private byte[][] ring = new byte[8][];
    private int head;
    private int size;

    int size() {
        return size;
    }

    byte[] get(int i) {
        return ring[(head + i) & (ring.length - 1)];
    }

    void set(int i, byte[] v) {
        ring[(head + i) & (ring.length - 1)] = v;
    }

    void addFirst(byte[] v) {
        grow();
        head = (head - 1) & (ring.length - 1);
        ring[head] = v;
        size++;
    }

    void addLast(byte[] v) {
        grow();
        ring[(head + size) & (ring.length - 1)] = v;
        size++;
    }

    byte[] removeFirst() {
        byte[] v = ring[head];
        ring[head] = null;
        head = (head + 1) & (ring.length - 1);
        size--;
        return v;
    }

    byte[] removeLast() {
        int i = (head + size - 1) & (ring.length - 1);
        byte[] v = ring[i];
        ring[i] = null;
        size--;
        return v;
    }

    /** Removes the element at {@code i}, shifting the later ones down. */
    void remove(int i) {
        for (int j = i; j < size - 1; j++) {
            set(j, get(j + 1));
        }
        set(size - 1, null);
        size--;
    }

    /** Inserts {@code v} before index {@code i} (0..size), shifting the later ones up. */
    void insert(int i, byte[] v) {
        addLast(null);
        for (int j = size - 1; j > i; j--) {
            set(j, get(j - 1));
        }
        set(i, v);
    }

    /** Keeps only the elements [from, to], both inside the list. */
    void retain(int from, int to) {
        byte[][] kept = new byte[Math.max(8, Integer.highestOneBit(Math.max(1, to - from + 1)) << 1)][];
        for (int i = from; i <= to; i++) {
            kept[i - from] = get(i);
        }
        ring = kept;
        head = 0;
        size = to - from + 1;
    }

    private void grow() {
        if (size < ring.length) {
            return;
        }
        byte[][] bigger = new byte[ring.length * 2][];
        for (int i = 0; i < size; i++) {
            bigger[i] = get(i);
        }
        ring = bigger;
        head = 0;
    }

    @Override
    public String toString() {
        return "ListValue[" + size + " elements]";
    }
}
