package dev.loop;

import dev.loop.engine.Engine;
import dev.loop.engine.EngineTimer;

/** The engine's timer as the user holds it: one object is queue node, ready entry and handle. */
final class LoopTimer extends EngineTimer implements TimerHandle {
    LoopTimer(Engine engine, long deadline, Runnable callback) {
        super(engine, deadline, callback);
    }
}
