package dev.loop.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * Marks a suite that runs once per {@link Cell} of the {@link Matrix}: put it on the suite with a
 * {@code @MethodSource("dev.loop.testkit.Matrix#slice")} naming the slice, and declare a
 * {@code @Parameter Cell cell} field. Each run is named after its cell ({@code [select/wheel/threads]}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ParameterizedClass(name = "[{0}]")
public @interface Conformance {
}
