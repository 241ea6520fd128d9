package sh.karpenter.testkit.e2e;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.wellknown.Labels;

/** NodePools and pods for the end-to-end tests. */
final class TestObjects {
  private TestObjects() {}

  /**
   * A NodePool for the KWOK provider limited to one capacity type, optionally tainted
   * ({@code key=value:Effect}).
   */
  static NodePool nodePool(KubernetesClient client, String name, String capacityType, String taint) {
    String taints = taint == null ? "" : """
              taints:
                - key: %s
                  value: %s
                  effect: %s
        """.formatted(taint.substring(0, taint.indexOf('=')), taint.substring(taint.indexOf('=') + 1, taint.indexOf(':')),
            taint.substring(taint.indexOf(':') + 1));
    String yaml = """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata:
          name: %s
        spec:
          template:
            spec:
              nodeClassRef:
                group: karpenter.kwok.sh
                kind: KWOKNodeClass
                name: default
              expireAfter: Never
              requirements:
                - key: karpenter.sh/capacity-type
                  operator: In
                  values: ["%s"]
                - key: kubernetes.io/os
                  operator: In
                  values: ["linux"]
        %s""".formatted(name, capacityType, taints);
    return client.getKubernetesSerialization().unmarshal(yaml, NodePool.class);
  }

  /** A NodePool the CRD accepts but runtime validation rejects: the same taint key and effect twice. */
  static NodePool invalidNodePool(KubernetesClient client, String name) {
    String yaml = """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata:
          name: %s
        spec:
          template:
            spec:
              nodeClassRef:
                group: karpenter.kwok.sh
                kind: KWOKNodeClass
                name: default
              requirements: []
              taints:
                - key: example.com/dup
                  effect: NoSchedule
              startupTaints:
                - key: example.com/dup
                  value: again
                  effect: NoSchedule
        """.formatted(name);
    return client.getKubernetesSerialization().unmarshal(yaml, NodePool.class);
  }

  /** The KWOKNodeClass every test NodePool refers to. */
  static void createNodeClass(KubernetesClient client) {
    client.resource(client.getKubernetesSerialization().unmarshal("""
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata:
          name: default
        """, sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass.class)).create();
  }

  static Pod pod(String name, String app, String cpu, String memory) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withLabels(Map.of("app", app)).endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(0L)
        .addNewContainer().withName("main").withImage("registry.k8s.io/pause:3.10")
        .withNewResources().withRequests(new java.util.HashMap<>(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)))).endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The hourly price of the offering a node was launched on. */
  static double price(InstanceTypeCatalog catalog, Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    InstanceType type = catalog.instanceTypes().stream()
        .filter(t -> t.name().equals(labels.get(Labels.INSTANCE_TYPE))).findFirst().orElseThrow();
    return type.offerings().stream()
        .filter(o -> o.zone().equals(labels.get(Labels.ZONE)) && o.capacityType().equals(labels.get(Labels.CAPACITY_TYPE)))
        .mapToDouble(Offering::price).findFirst().orElseThrow();
  }
}
