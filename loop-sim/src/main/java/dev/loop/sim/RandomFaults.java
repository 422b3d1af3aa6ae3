package dev.loop.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Faults drawn at random from the simulation's seed: partitions and their healing, resets, latency
 * spikes, hosts that stop and restart, each at a mean rate the test gives, until a given time. A
 * plan is built here and started with {@link Faults#random}; from then on every fault is a script
 * of the simulation ({@link Simulation#at}) at a time drawn from the seed, so a seed gives the same
 * faults at the same instants on every run. Each fault drawn is one line of the run's
 * {@linkplain Simulation#trace() trace}, starting {@code "random:"}, so a failing seed's trace shows
 * what broke and when.
 *
 * <p>The faults come from a random source of their own (derived from the seed), so adding or
 * changing a plan does not change the network's other choices (latency, order). Each kind of fault
 * is drawn as a Poisson process: the time to the next one is exponential with the given mean.
 * Nothing starts after {@link #until}; at that time every link heals, spikes end and every host
 * the plan stopped is started again, so a test can check that its program recovers.
 */
public final class RandomFaults {
    /** Mixed into the seed so the faults' draws are not the network's. */
    private static final long SALT = 0x5DEECE66DL;

    private Duration partitionEvery;
    private Duration partitionFor;
    private Duration resetEvery;
    private Duration spikeEvery;
    private Duration spikeBy;
    private Duration spikeFor;
    private Duration restartEvery;
    private Duration restartDown;
    private final List<SimHost> restartable = new ArrayList<>();
    private Duration until = Duration.ofSeconds(10);

    private Simulation sim;
    private SplittableRandom random;
    private long end;
    private final List<SimHost> stopped = new ArrayList<>();
    private int drawn;

    /** A plan with no faults; add the kinds wanted. */
    public static RandomFaults plan() {
        return new RandomFaults();
    }

    private RandomFaults() {
    }

    /** A partition between two hosts about every {@code meanEvery}, healed after about {@code meanLength}. */
    public RandomFaults partitions(Duration meanEvery, Duration meanLength) {
        this.partitionEvery = positive(meanEvery, "meanEvery");
        this.partitionFor = positive(meanLength, "meanLength");
        return this;
    }

    /** A reset of the connections between two hosts about every {@code meanEvery}. */
    public RandomFaults resets(Duration meanEvery) {
        this.resetEvery = positive(meanEvery, "meanEvery");
        return this;
    }

    /** Every link's latency {@code extra} higher about every {@code meanEvery}, for about {@code meanLength}. */
    public RandomFaults latencySpikes(Duration meanEvery, Duration extra, Duration meanLength) {
        this.spikeEvery = positive(meanEvery, "meanEvery");
        this.spikeBy = positive(extra, "extra");
        this.spikeFor = positive(meanLength, "meanLength");
        return this;
    }

    /** One of {@code hosts} stopped about every {@code meanEvery}, restarted after about {@code meanDowntime}. */
    public RandomFaults restarts(Duration meanEvery, Duration meanDowntime, SimHost... hosts) {
        if (hosts.length == 0) {
            throw new IllegalArgumentException("restarts need the hosts that may be stopped: none given");
        }
        this.restartEvery = positive(meanEvery, "meanEvery");
        this.restartDown = positive(meanDowntime, "meanDowntime");
        restartable.clear();
        restartable.addAll(List.of(hosts));
        return this;
    }

    /** No fault starts after {@code end} (virtual time from the start); then everything heals. Default 10 s. */
    public RandomFaults until(Duration end) {
        this.until = positive(end, "end");
        return this;
    }

    /** How many faults were drawn so far. */
    public int drawn() {
        return drawn;
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, not " + d);
        }
        return d;
    }

    /** Schedules the first fault of each kind. Test thread, once. */
    void start(Simulation simulation) {
        if (sim != null) {
            throw new IllegalStateException("this plan of random faults runs already");
        }
        sim = simulation;
        random = new SplittableRandom(simulation.seed() ^ SALT);
        end = until.toNanos();
        if (partitionEvery != null) {
            next(partitionEvery, this::partition);
        }
        if (resetEvery != null) {
            next(resetEvery, this::reset);
        }
        if (spikeEvery != null) {
            next(spikeEvery, this::spike);
        }
        if (restartEvery != null) {
            next(restartEvery, this::restart);
        }
        sim.at(Duration.ofNanos(end), this::finish);
    }

    /** Schedules {@code fault} an exponential time of mean {@code mean} from now, if before the end. */
    private void next(Duration mean, Runnable fault) {
        long at = sim.now() + draw(mean);
        if (at < end) {
            sim.at(Duration.ofNanos(at), () -> {
                fault.run();
                next(mean, fault);
            });
        }
    }

    private long draw(Duration mean) {
        double u = random.nextDouble(); // [0, 1): 1 - u is never 0
        return Math.max(1, (long) (-Math.log(1 - u) * mean.toNanos()));
    }

    private SimHost[] pair() {
        List<SimHost> hosts = sim.network().hosts();
        if (hosts.size() < 2) {
            return null;
        }
        int i = random.nextInt(hosts.size());
        int j = random.nextInt(hosts.size() - 1);
        return new SimHost[] {hosts.get(i), hosts.get(j >= i ? j + 1 : j)};
    }

    private void partition() {
        SimHost[] p = pair();
        if (p == null) {
            return;
        }
        long length = draw(partitionFor);
        note("partition " + p[0].name() + " | " + p[1].name() + " for " + ms(length));
        sim.faults().partition(p[0], p[1]);
        sim.at(Duration.ofNanos(sim.now() + length), () -> sim.faults().heal(p[0], p[1]));
    }

    private void reset() {
        SimHost[] p = pair();
        if (p == null) {
            return;
        }
        note("reset " + p[0].name() + " <-> " + p[1].name());
        sim.faults().reset(p[0], p[1]);
        sim.faults().reset(p[1], p[0]);
    }

    private void spike() {
        long length = draw(spikeFor);
        note("latency spike +" + ms(spikeBy.toNanos()) + " for " + ms(length));
        sim.faults().spike(spikeBy.toNanos());
        sim.at(Duration.ofNanos(sim.now() + length), () -> sim.faults().spike(-spikeBy.toNanos()));
    }

    private void restart() {
        SimHost h = restartable.get(random.nextInt(restartable.size()));
        if (!h.isUp()) {
            return;
        }
        long down = draw(restartDown);
        note("stop " + h.name() + ", restart after " + ms(down));
        stopped.add(h);
        h.stop();
        sim.at(Duration.ofNanos(sim.now() + down), () -> up(h));
    }

    private void up(SimHost h) {
        if (!stopped.contains(h)) {
            return; // restarted already (by the end of the plan)
        }
        if (h.isUp()) {
            // its loop has not closed yet: look again a little later
            sim.at(Duration.ofNanos(sim.now() + Duration.ofMillis(1).toNanos()), () -> up(h));
            return;
        }
        stopped.remove(h);
        h.restart();
    }

    /** The end of the plan: every link heals, every host it stopped runs again. */
    private void finish() {
        sim.trace("random: end of faults after " + drawn + " drawn: heal all, restart what was stopped");
        sim.faults().healAll();
        sim.faults().endSpikes();
        for (SimHost h : List.copyOf(stopped)) {
            up(h);
        }
    }

    private void note(String what) {
        drawn++;
        sim.trace("random: " + what);
    }

    private static String ms(long nanos) {
        return String.format("%.3f ms", nanos / 1e6);
    }
}
