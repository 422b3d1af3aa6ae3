/*
 * What moving a cache line between CPU 0 and CPU 1 costs, sampled while something else runs:
 * every PERIOD_MS both threads (pinned, one per CPU) wake at the same instant, bounce a counter
 * through two lines TRIPS times, and go back to sleep; the first thread prints
 * "<unix time, s> <round trip, ns>". Busy for well under 1% of the time at the default period.
 *
 * A virtual machine's CPUs are threads of its host, and where the host places them decides this
 * cost: docs/BENCHMARKS.md ("the loop at its producer's heels") found it moving between about
 * 110 and 500 ns for seconds at a time, and every cross-thread benchmark moving with it.
 *
 * usage: round-trip SECONDS [PERIOD_MS]        build: cc -O2 -pthread -o round-trip round-trip.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TRIPS = 500 };

static _Alignas(128) _Atomic long ping;
static _Alignas(128) _Atomic long pong;
static struct timespec start;
static long period_ns;
static long samples;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "round-trip: cannot run on CPU %d\n", cpu);
        exit(1);
    }
}

/* Sleeps until the k-th period after start, on the same clock for both threads. */
static void wait_for(long k) {
    long ns = start.tv_nsec + k * period_ns;
    struct timespec t = { start.tv_sec + ns / 1000000000L, ns % 1000000000L };
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *echo(void *unused) {
    (void) unused;
    pin(1);
    long seen = 0;
    for (long k = 1; k <= samples; k++) {
        wait_for(k);
        for (int i = 0; i < TRIPS; i++) {
            long v;
            while ((v = atomic_load_explicit(&ping, memory_order_acquire)) == seen) {
            }
            seen = v;
            atomic_store_explicit(&pong, v, memory_order_release);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: round-trip SECONDS [PERIOD_MS]\n");
        return 2;
    }
    long period_ms = argc > 2 ? atol(argv[2]) : 250;
    if (period_ms < 1) {
        period_ms = 1;
    }
    period_ns = period_ms * 1000000L;
    samples = atol(argv[1]) * 1000 / period_ms;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_t other;
    pthread_create(&other, NULL, echo, NULL);
    pin(0);
    long v = 0;
    for (long k = 1; k <= samples; k++) {
        wait_for(k);
        double t0 = seconds(CLOCK_MONOTONIC);
        for (int i = 0; i < TRIPS; i++) {
            v++;
            atomic_store_explicit(&ping, v, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) != v) {
            }
        }
        double rtt = (seconds(CLOCK_MONOTONIC) - t0) * 1e9 / TRIPS;
        printf("%.3f %.0f\n", seconds(CLOCK_REALTIME), rtt);
        fflush(stdout);
    }
    pthread_join(other, NULL);
    return 0;
}
