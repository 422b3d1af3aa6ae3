package dev.loop.sim;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Runs a {@link Simulated} test body once per seed. JUnit invokes the method once; this extension
 * skips that invocation and makes its own, one per seed, each with a fresh {@link Simulation}
 * (closed afterwards), so a failure names its seed.
 */
public final class SimulatedExtension implements ParameterResolver, InvocationInterceptor {

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == Simulation.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return Simulation.create(0); // a placeholder: each seed's run gets its own
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        invocation.skip();
        Method m = call.getExecutable();
        Simulated s = m.getAnnotation(Simulated.class);
        boolean trace = s.trace() || Seeds.tracing();
        Object target = call.getTarget().orElse(null);
        List<Object> args = call.getArguments();
        String[] traced = new String[1];
        Seeds.Failure f = Seeds.search(s.firstSeed(), s.seeds(), seed -> {
            Simulation sim = Simulation.create(seed).tracing(trace);
            Object[] a = args.toArray();
            for (int i = 0; i < a.length; i++) {
                if (a[i] instanceof Simulation) {
                    a[i] = sim;
                }
            }
            try {
                m.setAccessible(true);
                m.invoke(target, a);
            } catch (InvocationTargetException e) {
                traced[0] = trace ? Seeds.tail(sim.trace()) : null;
                throw sneaky(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot call " + m, e);
            } finally {
                sim.close();
            }
        });
        if (f != null) {
            String test = m.getDeclaringClass().getSimpleName() + "#" + m.getName();
            String message = Seeds.replayMessage(f, s.seeds(), test);
            if (traced[0] != null) {
                message += "\n  trace of seed " + f.seed() + ":\n" + traced[0];
            }
            throw new AssertionError(message, f.cause());
        }
    }

    @SuppressWarnings("unchecked")
    private static <X extends Throwable> RuntimeException sneaky(Throwable t) throws X {
        throw (X) t;
    }
}
