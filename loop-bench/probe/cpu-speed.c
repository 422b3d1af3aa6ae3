/*
 * How fast one CPU runs the same work from one moment to the next: a thread pinned to CPU N
 * repeats a fixed loop of additions (no memory traffic, no system calls) and prints
 * "<unix time, s> <ms per round>" for every round until SECONDS have passed. On a machine of its
 * own every round takes the same time; on a virtual machine the time moves with what the host
 * runs beside its CPU. Run one per CPU at once to see whether they move together.
 *
 * docs/BENCHMARKS.md ("The speed targets, one by one") used it to tell the host's noise from the
 * code's: single-threaded benchmarks of identical code differ between JVMs by as much as this.
 *
 * usage: cpu-speed CPU SECONDS        build: cc -O1 -o cpu-speed cpu-speed.c
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ADDS = 10000000 }; /* about 5 ms a round on the machine of the figures */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cpu-speed CPU SECONDS\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[1]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "cpu-speed: cannot run on CPU %s\n", argv[1]);
        return 1;
    }
    volatile unsigned long sum = 0; /* volatile: every addition is done, none folded away */
    double end = now() + atof(argv[2]);
    while (now() < end) {
        double start = now();
        for (unsigned long i = 0; i < ADDS; i++) {
            sum += i;
        }
        printf("%.3f %.3f\n", wall(), (now() - start) * 1e3);
    }
    return 0;
}
