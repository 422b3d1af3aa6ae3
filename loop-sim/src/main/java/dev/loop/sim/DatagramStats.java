package dev.loop.sim;

/**
 * What happened to the datagrams of one simulated network, counted rather than logged: a peer that
 * floods, or a fault that drops thousands, costs a counter each, not a line each. Read between
 * turns ({@link Simulation#runUntil} conditions, after a run); counts only grow.
 *
 * @param sent        datagrams the programs sent (a multicast or broadcast counts once)
 * @param delivered   copies put into a receiving socket's buffer
 * @param lost        lost to the loss rate ({@link Faults#datagramLoss})
 * @param cut         lost on a link cut by a partition, on their way
 * @param duplicated  extra copies made by the duplication rate ({@link Faults#datagramDuplication})
 * @param overflowed  dropped because the receiving socket's buffer was full
 * @param unreachable arrived at a host with no socket for them (answered "port unreachable")
 * @param noRoute     sent to an address no host has
 */
public record DatagramStats(long sent, long delivered, long lost, long cut, long duplicated, long overflowed,
                            long unreachable, long noRoute) {

    /** The network's running counts. Guarded by the network's lock. */
    static final class Counts {
        long sent;
        long delivered;
        long lost;
        long cut;
        long duplicated;
        long overflowed;
        long unreachable;
        long noRoute;

        DatagramStats snapshot() {
            return new DatagramStats(sent, delivered, lost, cut, duplicated, overflowed, unreachable, noRoute);
        }
    }
}
