package dev.loop.engine;

import java.util.IdentityHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;

/**
 * The loop's door for other threads: callbacks, new timers and timer cancellations, in one JCTools
 * MPSC queue, and the protocol that closes the door without losing anything. {@link #offer} is
 * thread-safe; everything else belongs to the loop's one consumer (the thread running or closing
 * the loop).
 *
 * <p>Closing loses no submission (docs/design.md, "Closing"): a submitter offers, then looks at
 * {@code shut}. Seen open, its offer is ordered before close's write of the flag, so close's
 * drains find it. Seen shut, it waits until close has {@linkplain #seal sealed} the inbox and then
 * learns for certain whether its item was taken (it runs) or is still queued (it is refused). The
 * common path costs one atomic instruction, the offer's.
 */
final class Inbox {
    /**
     * Up to {@value #POOLED_CHUNKS} spare chunks of {@value #CHUNK} slots are kept, so steady
     * bursts reuse memory instead of allocating.
     */
    private static final int CHUNK = 1024;
    private static final int POOLED_CHUNKS = 16;

    private final MessagePassingQueue<Object> queue = new MpscUnboundedXaddArrayQueue<>(CHUNK, POOLED_CHUNKS);
    private final String owner;
    private volatile boolean shut;
    private final Object sealLock = new Object();
    /** Set under {@link #sealLock} once close has taken its last item. */
    private boolean sealed;
    /** Items found in the sealed inbox, by identity and count, until their submitters learn it. */
    private IdentityHashMap<Object, int[]> refused;

    /** @param owner names the loop in refusals ("backend select") */
    Inbox(String owner) {
        this.owner = owner;
    }

    /**
     * Hands {@code item} to the loop. Any thread.
     *
     * @return true if the loop should be woken; false if the loop is closing and took the item
     * @throws RejectedExecutionException if the loop is closed and the item will never run
     */
    boolean offer(Object item) {
        if (shut) {
            throw refusal(item);
        }
        queue.offer(item);
        if (shut) {
            settleLate(item);
            return false;
        }
        return true;
    }

    /** Whether new items are refused or settled (close has begun). */
    boolean isShut() {
        return shut;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Items offered and not yet taken (some perhaps still being written). Consumer only. */
    int size() {
        return queue.size();
    }

    /** Moves up to {@code limit} items to {@code sink}; nothing once sealed. Consumer only. */
    int drain(MessagePassingQueue.Consumer<Object> sink, int limit) {
        if (!sealed && !queue.isEmpty()) {
            return queue.drain(sink, limit);
        }
        return 0;
    }

    /**
     * {@link #drain} of the {@code count} items a {@link #size} found, without looking at the
     * producers' index again to learn the inbox is not empty. Consumer only.
     */
    int take(MessagePassingQueue.Consumer<Object> sink, int count) {
        return sealed ? 0 : queue.drain(sink, count);
    }

    /** From now on, submissions are refused or settled. Called by close, before its drains. */
    void shut() {
        shut = true;
    }

    /**
     * Takes the last items (waiting out offers in progress) and hands the inbox to late submitters,
     * who settle among themselves what is left. Called once by close, after {@link #shut()}.
     */
    void seal(MessagePassingQueue.Consumer<Object> sink) {
        synchronized (sealLock) {
            while (!queue.isEmpty()) {
                Object o = queue.poll(); // spins while a claimed slot is being written
                if (o != null) {
                    sink.accept(o);
                }
            }
            sealed = true;
            sealLock.notifyAll();
        }
    }

    /**
     * The loop began closing while {@code item} was being offered: wait until close has sealed the
     * inbox; whatever is still in it then will never run. Throws if {@code item} is among it.
     */
    private void settleLate(Object item) {
        synchronized (sealLock) {
            boolean interrupted = false;
            while (!sealed) {
                try {
                    sealLock.wait();
                } catch (InterruptedException e) {
                    interrupted = true; // close is running and will seal; the answer is worth the wait
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            // No consumer is left: late submitters take turns emptying the queue under this lock.
            while (!queue.isEmpty()) {
                Object o = queue.poll();
                if (o != null) {
                    if (refused == null) {
                        refused = new IdentityHashMap<>();
                    }
                    refused.computeIfAbsent(o, k -> new int[1])[0]++;
                    if (o instanceof EngineTimer t) {
                        t.cancel();
                    }
                }
            }
            int[] count = refused == null ? null : refused.get(item);
            if (count != null) {
                // (The same object submitted concurrently by several threads is told apart only by
                // count: as many of them are refused as copies were left over.)
                if (--count[0] == 0) {
                    refused.remove(item);
                }
                throw refusal(item);
            }
        }
        // Not left over: close's drains took it before sealing, so it ran or was cancelled.
    }

    private RejectedExecutionException refusal(Object item) {
        return new RejectedExecutionException("loop is closed (" + owner + "): cannot accept " + item);
    }
}
