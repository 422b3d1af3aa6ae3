package dev.loop.sim;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test that runs once per seed, each time with a new {@link Simulation} passed as its
 * parameter: {@code @Simulated(seeds = 1000) void survivesPartitions(Simulation sim)}. The first
 * seed that fails fails the test, and the message names it with the command that replays it
 * ({@code -Dloop.sim.seed=N}; with {@code -Dloop.sim.trace=true} the run's trace is printed).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@ExtendWith(SimulatedExtension.class)
public @interface Simulated {
    /** How many seeds to try. */
    int seeds() default 100;

    /** The first seed; the others follow it. */
    long firstSeed() default 1;

    /** Record every run's trace and print a failing run's. */
    boolean trace() default false;
}
