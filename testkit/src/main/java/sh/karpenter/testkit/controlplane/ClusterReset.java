package sh.karpenter.testkit.controlplane;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Returns the shared cluster to a clean state between tests: deletes the test namespaces (their pods
 * at once, the rest through the namespace controller), then every NodeClaim, NodePool, KWOKNodeClass,
 * EC2NodeClass and Node, stripping finalizers first because no Karpenter controller is left to honour them.
 */
final class ClusterReset {

  /** Label marking the namespaces {@link ControlPlaneExtension} creates, one per test. */
  static final String TEST_NAMESPACE_LABEL = "testkit.karpenter.sh/test-namespace";

  static final ResourceDefinitionContext NODE_CLAIMS = clusterScoped("karpenter.sh", "v1", "NodeClaim", "nodeclaims");
  static final ResourceDefinitionContext NODE_POOLS = clusterScoped("karpenter.sh", "v1", "NodePool", "nodepools");
  static final ResourceDefinitionContext KWOK_NODE_CLASSES =
      clusterScoped("karpenter.kwok.sh", "v1alpha1", "KWOKNodeClass", "kwoknodeclasses");
  static final ResourceDefinitionContext EC2_NODE_CLASSES =
      clusterScoped("karpenter.k8s.aws", "v1", "EC2NodeClass", "ec2nodeclasses");

  private static final String REMOVE_FINALIZERS = "{\"metadata\":{\"finalizers\":null}}";
  private static final long DELETION_TIMEOUT_SECONDS = 60;

  private ClusterReset() {}

  static void purge(KubernetesClient client) {
    for (Namespace namespace : client.namespaces().withLabel(TEST_NAMESPACE_LABEL).list().getItems()) {
      String name = namespace.getMetadata().getName();
      // The namespace first: once it is terminating the API server refuses new pods in it, so a
      // ReplicaSet cannot replace the pods deleted next with a pending one that the next test's
      // controller would provision a node for (it did: two nodes where one was expected).
      client.namespaces().withName(name).delete();
      // Without a kubelet nothing completes graceful pod deletion on nodes that are about to vanish.
      client.pods().inNamespace(name).withGracePeriod(0).delete();
      awaitNoPods(client, name);
    }
    for (ResourceDefinitionContext karpenterKind : List.of(NODE_CLAIMS, NODE_POOLS, KWOK_NODE_CLASSES, EC2_NODE_CLASSES)) {
      if (isServed(client, karpenterKind)) {
        deleteAll(client.genericKubernetesResources(karpenterKind));
      }
    }
    deleteAll(client.nodes());
  }

  private static void awaitNoPods(KubernetesClient client, String namespace) {
    try {
      client.pods().inNamespace(namespace).informOnCondition(List::isEmpty).get(DELETION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the pods of namespace " + namespace + " to go", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the pods of namespace " + namespace + " were not gone after " + DELETION_TIMEOUT_SECONDS + " s", e);
    }
  }

  private static <T extends HasMetadata, L extends KubernetesResourceList<T>> void deleteAll(
      NonNamespaceOperation<T, L, Resource<T>> objects) {
    List<T> items = objects.list().getItems();
    for (T item : items) {
      Resource<T> resource = objects.withName(item.getMetadata().getName());
      if (!item.getMetadata().getFinalizers().isEmpty()) {
        resource.patch(PatchContext.of(PatchType.JSON_MERGE), REMOVE_FINALIZERS);
      }
      resource.delete();
    }
    for (T item : items) {
      objects.withName(item.getMetadata().getName()).waitUntilCondition(Objects::isNull, DELETION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }

  private static boolean isServed(KubernetesClient client, ResourceDefinitionContext kind) {
    String crdName = kind.getPlural() + "." + kind.getGroup();
    return client.apiextensions().v1().customResourceDefinitions().withName(crdName).get() != null;
  }

  private static ResourceDefinitionContext clusterScoped(String group, String version, String kind, String plural) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(false)
        .build();
  }
}
