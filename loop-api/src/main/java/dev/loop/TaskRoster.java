package dev.loop;

import java.util.ArrayList;
import java.util.List;

/**
 * A list of tasks threaded through the tasks' own link fields, so joining and leaving allocate
 * nothing; a task is in at most one roster at a time. The scheduler keeps two: the live tasks,
 * and the failed ones whose exception nobody has read yet. Not thread-safe: loop thread only.
 */
final class TaskRoster {
    private LoopTask<?> head;
    private int size;

    /** Adds {@code t}, taking it out of the roster it was in; nothing if it is in this one. */
    void add(LoopTask<?> t) {
        if (t.roster == this) {
            return;
        }
        if (t.roster != null) {
            t.roster.remove(t);
        }
        t.roster = this;
        t.prev = null;
        t.next = head;
        if (head != null) {
            head.prev = t;
        }
        head = t;
        size++;
    }

    /** Takes {@code t} out; false if it was not in this roster. */
    boolean remove(LoopTask<?> t) {
        if (t.roster != this) {
            return false;
        }
        if (t.prev != null) {
            t.prev.next = t.next;
        } else {
            head = t.next;
        }
        if (t.next != null) {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.roster = null;
        size--;
        return true;
    }

    int size() {
        return size;
    }

    /** The tasks in it now, a copy safe to iterate while tasks leave. */
    List<LoopTask<?>> snapshot() {
        List<LoopTask<?>> out = new ArrayList<>(size);
        for (LoopTask<?> t = head; t != null; t = t.next) {
            out.add(t);
        }
        return out;
    }

    void clear() {
        for (LoopTask<?> t : snapshot()) {
            remove(t);
        }
    }
}
