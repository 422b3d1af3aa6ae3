package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Task;
import dev.loop.TaskGroup;
import dev.loop.TaskGroupException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Task groups: joining every child, the first failure cancelling the siblings, leaving a group
 * without joining, and how failures and outside cancels come out of {@code TaskGroup.run}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskGroupContract extends TaskSuite {

    @Test
    void aTaskGroupJoinsEveryChildIncludingOnesSpawnedWhileJoining() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(5));
                    g.spawn(() -> {
                        Async.sleep(Duration.ofMillis(5));
                        log.add("late child at " + millis(loop));
                        return null;
                    });
                    return null;
                });
                g.join();
                log.add("joined at " + millis(loop));
                assertThrows(IllegalStateException.class, () -> g.spawn(() -> null), "spawning into a finished group");
            }
            return null;
        });
        assertEquals(List.of("late child at 10", "joined at 10"), log);
    }

    @Test
    void aTaskGroupsFirstFailureCancelsSiblingsAndJoinThrowsEveryFailure() {
        Loop loop = open();
        IllegalStateException a = new IllegalStateException("a");
        IOException b = new IOException("b");
        List<String> log = new ArrayList<>();
        TaskGroupException e = assertThrows(TaskGroupException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(1));
                    throw a;
                });
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        log.add("sibling cancelled at " + millis(loop));
                        throw b; // fails while being cancelled: also reported
                    }
                });
                g.spawn(() -> {
                    Async.sleep(Duration.ofHours(1));
                    return null;
                });
                g.join();
            }
            return null;
        }));
        assertEquals(List.of(a, b), e.failures());
        assertSame(a, e.getCause());
        assertEquals(List.of("sibling cancelled at 1"), log);
    }

    @Test
    void leavingATaskGroupWithoutJoiningCancelsAndAwaitsTheChildren() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        assertThrows(IllegalArgumentException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        Async.sleep(Duration.ofMillis(2)); // slow cleanup is waited for
                        log.add("child ended at " + millis(loop));
                    }
                    return null;
                });
                Async.sleep(Duration.ofMillis(1));
                throw new IllegalArgumentException("body failed");
            }
        }));
        assertEquals(List.of("child ended at 3"), log);
    }

    @Test
    void taskGroupRunInterruptsTheBodyWhenAChildFails() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        IOException boom = new IOException("boom");
        TaskGroupException e = assertThrows(TaskGroupException.class, () -> runTask(loop, () -> {
            try {
                return TaskGroup.run(g -> {
                    g.spawn(() -> {
                        Async.sleep(Duration.ofMillis(2));
                        throw boom;
                    });
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        log.add("body interrupted at " + millis(loop));
                    }
                    return "no";
                });
            } finally {
                log.add("cancelling=" + Async.currentTask().cancelling());
            }
        }));
        assertEquals(List.of(boom), e.failures());
        assertEquals(List.of("body interrupted at 2", "cancelling=0"), log);
    }

    @Test
    void taskGroupRunPassesAnOutsideCancelThrough() {
        Loop loop = open();
        Task<?> t = loop.spawn(() -> TaskGroup.run(g -> {
            g.spawn(() -> {
                Async.sleep(Duration.ofHours(1));
                return null;
            });
            Async.sleep(Duration.ofHours(1));
            return null;
        }));
        loop.callLater(Duration.ofMillis(1), t::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertEquals(1, t.cancelling());
    }

    @Test
    void leavingATaskGroupBlockAttachesEveryChildFailureToTheBodysException() {
        Loop loop = open();
        IOException early = new IOException("failed before the body threw");
        IOException whileCancelled = new IOException("failed while being cancelled");
        IllegalArgumentException bodyError = new IllegalArgumentException("body failed");
        Throwable thrown = assertThrows(IllegalArgumentException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(1));
                    throw early;
                });
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        throw whileCancelled;
                    }
                });
                Async.sleep(Duration.ofMillis(5));
                throw bodyError;
            }
        }));
        assertSame(bodyError, thrown);
        assertEquals(1, thrown.getSuppressed().length, () -> List.of(thrown.getSuppressed()).toString());
        TaskGroupException group = assertInstanceOf(TaskGroupException.class, thrown.getSuppressed()[0]);
        assertEquals(List.of(early, whileCancelled), group.failures());
    }

    @Test
    void aTaskGroupCanOnlyBeOpenedInATask() {
        IllegalStateException e = assertThrows(IllegalStateException.class, TaskGroup::open);
        assertTrue(e.getMessage().contains("outside a task"), e.getMessage());
    }
}
