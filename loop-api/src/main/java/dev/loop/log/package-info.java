/**
 * The one form of the loop's log records (not exported): {@link dev.loop.log.LogContext} puts the
 * loop's name, the task's name and the connection's addresses in front of every message the
 * project writes, so every record carries them in the same words. See
 * docs/adr/0020-context-in-log-records.md.
 *
 * <p>May use: the JDK only. Every other package of loop-api may use it; it names nothing of theirs
 * (what a record is about describes itself, {@link dev.loop.log.LogContext.Subject}).
 */
package dev.loop.log;
