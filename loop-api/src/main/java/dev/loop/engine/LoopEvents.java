package dev.loop.engine;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The loop's JDK Flight Recorder events, named {@code dev.loop.*} and enabled with JFR settings as
 * usual (loop-api ships {@code dev/loop/loop.jfc}; docs/METRICS.md lists them). Those that would
 * cost per callback or per connection are off unless a recording turns them on; the loop checks
 * {@link Gate#on()} (a field read) before timing anything, so an event that is off
 * costs no clock read. Durations are fields ({@code took}, {@code openFor}; JFR keeps {@code duration} for itself) measured by the loop: the events
 * are committed once the thing they describe is over and known to be worth recording.
 */
public final class LoopEvents {
    private LoopEvents() {
    }

    static final Gate SLOW_CALLBACK = new Gate(SlowCallback.class);
    public static final Gate SLOW_TASK_TURN = new Gate(SlowTaskTurn.class);
    static final Gate STALL = new Gate(LoopStall.class);
    public static final Gate CONNECTION_CLOSED = new Gate(ConnectionClosed.class);
    public static final Gate CONNECTION_OPENED = new Gate(ConnectionOpened.class);
    public static final Gate TLS = new Gate(TlsHandshake.class);

    /**
     * Whether a recording wants an event: {@link EventType#isEnabled()}, a field read. A JVM
     * without a flight recorder makes every gate shut rather than failing the loop.
     */
    public static final class Gate {
        private final EventType type;

        Gate(Class<? extends Event> event) {
            EventType t;
            try {
                FlightRecorder.register(event);
                t = EventType.getEventType(event);
            } catch (Throwable noFlightRecorder) {
                t = null;
            }
            this.type = t;
        }

        public boolean on() {
            return type != null && type.isEnabled();
        }

        /** False if the recorder refused the event class (or there is none). */
        boolean registered() {
            return type != null;
        }
    }

    /** Records a connection's opening, if a recording wants it. Never throws: an event is worth less than the connection. */
    public static void connectionOpened(String loop, Object local, Object remote) {
        if (!CONNECTION_OPENED.on()) {
            return;
        }
        try {
            ConnectionOpened e = new ConnectionOpened();
            e.loop = loop;
            e.local = local == null ? null : local.toString();
            e.remote = remote == null ? null : remote.toString();
            e.commit();
        } catch (Throwable recorderFailed) {
            // as the comment says
        }
    }

    /** Records a connection's close ({@code failure}: what closed it, or null). Never throws. */
    public static void connectionClosed(String loop, Object local, Object remote, long bytesIn, long bytesOut,
                                        long nanos, Throwable failure) {
        try {
            ConnectionClosed e = new ConnectionClosed();
            e.loop = loop;
            e.local = local == null ? null : local.toString();
            e.remote = remote == null ? null : remote.toString();
            e.bytesIn = bytesIn;
            e.bytesOut = bytesOut;
            e.openFor = nanos;
            e.failure = failure == null ? null : failure.toString();
            e.commit();
        } catch (Throwable recorderFailed) {
            // as in connectionOpened
        }
    }

    /** Records a first TLS handshake's end ({@code failure}: why it failed, or null). Never throws. */
    public static void tlsHandshake(String loop, Object peer, boolean client, String protocol, String cipherSuite,
                                    long nanos, String failure) {
        try {
            TlsHandshake e = new TlsHandshake();
            e.loop = loop;
            e.peer = peer == null ? null : peer.toString();
            e.client = client;
            e.protocol = protocol;
            e.cipherSuite = cipherSuite;
            e.took = nanos;
            e.failure = failure;
            e.commit();
        } catch (Throwable recorderFailed) {
            // as in connectionOpened
        }
    }

    @Name("dev.loop.SlowCallback")
    @Label("Slow Callback")
    @Category({"Loop"})
    @Description("A callback that held the loop thread at least the loop's slow-callback threshold")
    @Enabled(false)
    @StackTrace(false)
    public static final class SlowCallback extends Event {
        @Label("Loop") public String loop;
        @Label("Callback") public String callback;
        @Label("Scheduled At") @Description("Where it was scheduled (debug mode only)") public String site;
        @Label("Took") @Timespan(Timespan.NANOSECONDS) public long took;
    }

    @Name("dev.loop.SlowTaskTurn")
    @Label("Slow Task Turn")
    @Category({"Loop"})
    @Description("A task that held the loop thread at least the loop's slow-callback threshold between two suspensions")
    @Enabled(false)
    @StackTrace(false)
    public static final class SlowTaskTurn extends Event {
        @Label("Loop") public String loop;
        @Label("Task") public String task;
        @Label("Took") @Timespan(Timespan.NANOSECONDS) public long took;
    }

    @Name("dev.loop.LoopStall")
    @Label("Loop Stall")
    @Category({"Loop"})
    @Description("An iteration that kept the loop busy at least the loop's slow-callback threshold: nothing else on the loop ran meanwhile")
    @StackTrace(false)
    public static final class LoopStall extends Event {
        @Label("Loop") public String loop;
        @Label("Busy") @Timespan(Timespan.NANOSECONDS) public long busy;
        @Label("Callbacks") @Description("Callbacks the iteration ran") public long callbacks;
    }

    @Name("dev.loop.ConnectionOpened")
    @Label("Connection Opened")
    @Category({"Loop", "Network"})
    @Enabled(false)
    @StackTrace(false)
    public static final class ConnectionOpened extends Event {
        @Label("Loop") public String loop;
        @Label("Local") public String local;
        @Label("Remote") public String remote;
    }

    @Name("dev.loop.ConnectionClosed")
    @Label("Connection Closed")
    @Category({"Loop", "Network"})
    @Enabled(false)
    @StackTrace(false)
    public static final class ConnectionClosed extends Event {
        @Label("Loop") public String loop;
        @Label("Local") public String local;
        @Label("Remote") public String remote;
        @Label("Bytes In") @DataAmount public long bytesIn;
        @Label("Bytes Out") @DataAmount public long bytesOut;
        @Label("Open For") @Timespan(Timespan.NANOSECONDS) public long openFor;
        @Label("Failure") @Description("Why it closed, if an error closed it") public String failure;
    }

    @Name("dev.loop.TlsHandshake")
    @Label("TLS Handshake")
    @Category({"Loop", "Network"})
    @StackTrace(false)
    public static final class TlsHandshake extends Event {
        @Label("Loop") public String loop;
        @Label("Peer") public String peer;
        @Label("Client") public boolean client;
        @Label("Protocol") public String protocol;
        @Label("Cipher Suite") public String cipherSuite;
        @Label("Took") @Timespan(Timespan.NANOSECONDS) public long took;
        @Label("Failure") public String failure;
    }

    @Name("dev.loop.LoopStatistics")
    @Label("Loop Statistics")
    @Category({"Loop"})
    @Description("A loop's metrics, as Loop.metrics() reports them, once a period")
    @Period("1 s")
    @StackTrace(false)
    public static final class LoopStatistics extends Event {
        @Label("Loop") public String loop;
        @Label("Busy Ratio") @Description("Since the previous event of this loop") @Percentage public double busyRatio;
        @Label("Iterations") public long iterations;
        @Label("Iteration Time p99") @Timespan(Timespan.NANOSECONDS) public long iterationP99;
        @Label("Scheduling Lag p50") @Timespan(Timespan.NANOSECONDS) public long lagP50;
        @Label("Scheduling Lag p99") @Timespan(Timespan.NANOSECONDS) public long lagP99;
        @Label("Scheduling Lag Max") @Timespan(Timespan.NANOSECONDS) public long lagMax;
        @Label("Ready Depth") public long readyDepth;
        @Label("Timers Pending") public long timersPending;
        @Label("Tasks Alive") public long tasksAlive;
        @Label("Connections Open") public long connectionsOpen;
        @Label("Bytes In") @DataAmount public long bytesIn;
        @Label("Bytes Out") @DataAmount public long bytesOut;
        @Label("Stream Reads") public long streamReads;
        @Label("Stream Writes") public long streamWrites;
        @Label("Datagrams In") public long datagramsIn;
        @Label("Datagrams Out") public long datagramsOut;
        @Label("Datagrams Dropped") @Description("By the kernel at the loop's open UDP sockets; falls when one closes")
        public long datagramsDropped;
        /*
         * One text field rather than a number per counter: an event's fields are fixed when the
         * class loads, while each backend names its own counters (select; epoll_wait, read, write;
         * io_uring_enter, sqe, cqe; none on the simulator). A field per known name would make this
         * layer, which names no backend, list every backend's system calls, leave most fields 0 on
         * any one loop, and drop a new backend's counters without a word; generic fields
         * ("syscalls") would add up counts that do not mean the same thing (a submission is not a
         * system call). The text keeps each backend's names and order, as the snapshot's map does.
         */
        @Label("Backend Counters")
        @Description("The backend's counts of its own work, name=count in its order (epoll_wait=5 read=2 write=2); empty when it counts nothing")
        public String backendCounters;
    }
}
