package sh.karpenter.testkit.controlplane;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the JVM's real control plane ({@link ControlPlaneExtension}): test
 * methods may take a {@link io.fabric8.kubernetes.client.KubernetesClient} bound to a fresh
 * namespace, or the {@link ControlPlane} itself. Classes are skipped when the binaries have not been
 * built. Name such classes {@code *IT} so that Failsafe runs them.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ControlPlaneExtension.class)
public @interface ControlPlaneTest {}
