package dev.loop.sim;

import java.util.HashMap;
import java.util.Map;

/**
 * The datagram side of {@link Faults}: loss and duplication rates, for every link between hosts or
 * for one link. Each datagram draws from the simulation's seeded source only while a rate is set,
 * so a run without these faults draws exactly as it did before they existed, and a run with them
 * replays from its seed. Reordering needs no rate of its own: every datagram draws its own jitter,
 * so two sent close together may arrive the other way round. Guarded by the network's lock.
 */
final class DatagramFaults {
    private final Simulation simulation;
    private double loss;
    private double duplication;
    /** Per link ({@code "a->b"}), overriding the rate for every link. */
    private final Map<String, Double> linkLoss = new HashMap<>();
    private final Map<String, Double> linkDuplication = new HashMap<>();

    DatagramFaults(Simulation simulation) {
        this.simulation = simulation;
    }

    void loss(double rate) {
        loss = checked(rate, "loss");
    }

    void duplication(double rate) {
        duplication = checked(rate, "duplication");
    }

    void loss(SimHost a, SimHost b, double rate) {
        both(linkLoss, a, b, checked(rate, "loss"));
    }

    void duplication(SimHost a, SimHost b, double rate) {
        both(linkDuplication, a, b, checked(rate, "duplication"));
    }

    /** Whether a datagram from {@code a} to {@code b} is lost: drawn from the seed. A host's loopback loses nothing. */
    boolean lose(SimHost a, SimHost b) {
        return a != b && draw(rate(linkLoss, loss, a, b));
    }

    /** Whether a datagram from {@code a} to {@code b} arrives twice: drawn from the seed. */
    boolean duplicate(SimHost a, SimHost b) {
        return a != b && draw(rate(linkDuplication, duplication, a, b));
    }

    private boolean draw(double rate) {
        return rate > 0 && (rate >= 1 || simulation.random().nextDouble() < rate);
    }

    private static double rate(Map<String, Double> links, double all, SimHost a, SimHost b) {
        if (links.isEmpty()) {
            return all;
        }
        Double r = links.get(a.name() + "->" + b.name());
        return r == null ? all : r;
    }

    private static void both(Map<String, Double> links, SimHost a, SimHost b, double rate) {
        links.put(a.name() + "->" + b.name(), rate);
        links.put(b.name() + "->" + a.name(), rate);
    }

    private static double checked(double rate, String what) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("a datagram " + what + " rate is between 0 and 1, not " + rate);
        }
        return rate;
    }
}
