package sh.karpenter.providers.aws.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.prometheus.client.CollectorRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

class CloudProviderMetricsTest {
  private static final String[] LABELS = {"instance_type", "capacity_type", "zone"};

  private static NodePool pool(String name, String group, String kind) {
    return Serialization.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: %s}
        spec:
          template:
            spec:
              nodeClassRef: {group: %s, kind: %s, name: default}
              requirements: []
        """.formatted(name, group, kind), NodePool.class);
  }

  private static InstanceType type(String name, Offering... offerings) {
    return new InstanceType(name, Requirements.of(Requirement.in(Labels.INSTANCE_TYPE, name)), List.of(offerings),
        Resources.builder().cpu("2").memory("4Gi").build(), null);
  }

  @Test
  void offeringsOfEveryEc2NodeClassPoolAreExportedAndOtherKindsAndFailingPoolsAreLeftOut() {
    List<NodeClassRef> asked = new ArrayList<>();
    CloudProviderMetrics metrics = new CloudProviderMetrics((pool, ref) -> {
      asked.add(ref);
      return switch (pool) {
        case "a" -> List.of(type("c5.large", Offering.of("us-west-2a", "on-demand", 0.085, true), Offering.of("us-west-2a", "spot", 0.03, false)));
        case "b" -> List.of(type("c5.large", Offering.of("us-west-2a", "spot", 0.031, true)));
        default -> throw new IllegalStateException("kubelet configuration not decodable");
      };
    }, () -> false, () -> true);
    CollectorRegistry registry = new CollectorRegistry();
    metrics.new Families(registry).update(() -> List.of(
        pool("a", "karpenter.k8s.aws", "EC2NodeClass"), pool("b", "karpenter.k8s.aws", "EC2NodeClass"),
        pool("broken", "karpenter.k8s.aws", "EC2NodeClass"), pool("kwok", "karpenter.kwok.sh", "KWOKNodeClass")));

    assertThat(asked).hasSize(3).allMatch(ref -> ref.kind().equals("EC2NodeClass"));
    assertThat(registry.getSampleValue("karpenter_cloudprovider_instance_type_offering_available", LABELS,
        new String[] {"c5.large", "on-demand", "us-west-2a"})).isEqualTo(1.0);
    // available in one pool is available
    assertThat(registry.getSampleValue("karpenter_cloudprovider_instance_type_offering_available", LABELS,
        new String[] {"c5.large", "spot", "us-west-2a"})).isEqualTo(1.0);
    assertThat(registry.getSampleValue("karpenter_cloudprovider_instance_type_offering_price_estimate", LABELS,
        new String[] {"c5.large", "on-demand", "us-west-2a"})).isEqualTo(0.085);
    assertThat(registry.getSampleValue("karpenter_cloudprovider_instance_type_cpu_cores", new String[] {"instance_type"},
        new String[] {"c5.large"})).isEqualTo(2.0);
    assertThat(registry.getSampleValue("karpenter_cloudprovider_instance_type_memory_bytes", new String[] {"instance_type"},
        new String[] {"c5.large"})).isEqualTo(4.0 * 1024 * 1024 * 1024);
    assertThat(registry.getSampleValue("karpenter_cloudprovider_prices_live", new String[] {"capacity_type"},
        new String[] {"on-demand"})).isEqualTo(0.0);
    assertThat(registry.getSampleValue("karpenter_cloudprovider_prices_live", new String[] {"capacity_type"},
        new String[] {"spot"})).isEqualTo(1.0);
  }
}
