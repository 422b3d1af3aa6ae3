package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Drives one server connection's parse-and-answer path in steady state, without sockets: one of
 * our loops on its own thread owns an {@link InMemoryConnection}, and each {@link #round()} hands
 * it {@code requests} requests, {@code depth} per read (1: one request per read, as a client
 * waiting for each answer sends them; 16: a pipelined batch in one read), then waits for the
 * loop to finish. The hop to the loop and back is paid once per round, so with a round of
 * {@value #REQUESTS} requests what JMH counts per operation is the server's path.
 *
 * <p>The request buffer is a direct one, like the loop's read buffer, and is rewound rather than
 * refilled, so the driver allocates nothing per request either.
 */
public final class ServerPath implements AutoCloseable {
    /** Requests per round: the benchmarks' {@code @OperationsPerInvocation}. */
    public static final int REQUESTS = 1024;

    private final OurLoop running;
    private final InMemoryConnection conn;
    private final ByteBuffer batch;
    private final Signal done = new Signal();
    private final Runnable round;
    private final int reads;

    /**
     * @param request one request's bytes
     * @param depth   requests per read; must divide {@value #REQUESTS}
     * @param attach  sets up the server's side of the connection (sets its handler); run on the loop
     */
    public ServerPath(byte[] request, int depth, Consumer<InMemoryConnection> attach) {
        if (depth < 1 || REQUESTS % depth != 0) {
            throw new IllegalArgumentException("depth " + depth + " does not divide " + REQUESTS);
        }
        batch = ByteBuffer.allocateDirect(request.length * depth);
        for (int i = 0; i < depth; i++) {
            batch.put(request);
        }
        batch.flip();
        running = new OurLoop(LoopOptions.defaults());
        Loop loop = running.loop;
        CompletableFuture<InMemoryConnection> made = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                InMemoryConnection c = new InMemoryConnection(loop);
                attach.accept(c);
                made.complete(c);
            } catch (Throwable t) {
                made.completeExceptionally(t);
            }
        });
        try {
            conn = made.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new IllegalStateException("the server's connection could not be set up", e);
        }
        int reads = REQUESTS / depth;
        this.reads = reads;
        round = () -> {
            for (int i = 0; i < reads; i++) {
                conn.receive(batch.clear());
            }
            done.run();
        };
    }

    /** Hands the loop one round of requests and waits until they were all answered. */
    public long round() {
        running.loop.execute(round);
        done.await();
        return conn.bytesWritten();
    }

    /** One round with every byte written copied: for checking the answers before measuring. */
    public byte[] answersOfOneRound() {
        CompletableFuture<Void> on = new CompletableFuture<>();
        running.loop.execute(() -> {
            conn.capture(true);
            on.complete(null);
        });
        on.join();
        round();
        CompletableFuture<byte[]> got = new CompletableFuture<>();
        running.loop.execute(() -> got.complete(conn.capture(false)));
        return got.join();
    }

    /** Writes so far: with pipelining, one per read is what coalescing the answers means. */
    public long writes() {
        CompletableFuture<Long> n = new CompletableFuture<>();
        running.loop.execute(() -> n.complete(conn.writes()));
        return n.join();
    }

    /**
     * Checks, before measuring, that the server writes the answers to one read together: one
     * round makes one write per read (with pipelining, that is what coalescing them means).
     *
     * @param answers what the server's answers are called, for the message
     * @throws IllegalStateException naming the writes it made, if not
     */
    public void requireOneWritePerRead(String answers) {
        long before = writes();
        round();
        long writes = writes() - before;
        if (writes != reads) {
            throw new IllegalStateException(writes + " writes for " + reads + " reads: the " + answers
                    + " to one read are not written together");
        }
    }

    @Override
    public void close() {
        try {
            running.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
