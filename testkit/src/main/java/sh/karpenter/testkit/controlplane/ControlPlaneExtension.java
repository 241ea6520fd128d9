package sh.karpenter.testkit.controlplane;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * JUnit 5 extension behind {@link ControlPlaneTest}. Before the class it obtains the JVM's shared
 * {@link ControlPlane} (skipping the class when the binaries are absent, failing it instead when
 * {@code CI=true}); before each test it creates a namespace of its own; after each test it deletes
 * the test namespaces, Nodes, NodeClaims, NodePools and KWOKNodeClasses. It resolves {@link KubernetesClient} parameters (bound to the test's namespace; cluster
 * scope outside a test method) and {@link ControlPlane} parameters, and prints the components' log
 * tails when a test fails.
 */
public final class ControlPlaneExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver, TestExecutionExceptionHandler {

  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(ControlPlaneExtension.class);
  private static final String TEST_NAMESPACE = "test-namespace";

  @Override
  public void beforeAll(ExtensionContext context) {
    ControlPlane.shared();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
    ControlPlane.shared().client().namespaces().resource(new NamespaceBuilder()
            .withNewMetadata().withName(name).addToLabels(ClusterReset.TEST_NAMESPACE_LABEL, "true").endMetadata()
            .build())
        .create();
    context.getStore(STORE).put(TEST_NAMESPACE, name);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    ClusterReset.purge(ControlPlane.shared().client());
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == KubernetesClient.class || type == ControlPlane.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ControlPlane controlPlane = ControlPlane.shared();
    if (parameter.getParameter().getType() == ControlPlane.class) {
      return controlPlane;
    }
    String namespace = context.getStore(STORE).get(TEST_NAMESPACE, String.class);
    return namespace == null ? controlPlane.client() : controlPlane.client().adapt(NamespacedKubernetesClient.class).inNamespace(namespace);
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    System.err.println(context.getDisplayName() + " failed; " + ControlPlane.shared().logTails());
    throw failure;
  }
}
