package sh.karpenter.providers.aws.amifamily;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.InstanceStorePolicy;
import sh.karpenter.api.aws.v1.KubeletConfiguration;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;

/**
 * The user data of each AMI family against upstream's golden files
 * (pkg/providers/launchtemplate/testdata), compared as upstream does: with line breaks removed.
 */
class UserDataTest {
  private static final String NODE_CLASS = "default";
  private static final String NODE_POOL = "default-pool";

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "al2023_mime_userdata_input.golden, al2023_mime_userdata_merged.golden",
      "al2023_yaml_userdata_input.golden, al2023_yaml_userdata_merged.golden",
      "al2023_shell_userdata_input.golden, al2023_shell_userdata_merged.golden",
      ", al2023_userdata_unmerged.golden"})
  void al2023MergesTheNodeClassUserDataAsUpstream(String input, String merged) {
    String userData = userData("al2023@latest", input == null ? null : golden(input), List.of(), List.of());
    assertSameIgnoringLineBreaks(String.format(golden(merged), NODE_CLASS, Labels.NODE_POOL, NODE_POOL), userData);
  }

  @Test
  void bottlerocketMergesTheNodeClassSettingsAsUpstream() {
    String input = String.format(golden("br_userdata_input.golden"), Labels.NODE_POOL);
    String userData = userData("bottlerocket@latest", input, List.of(new Taint("foo", "bar", Taint.Effect.NoExecute)),
        List.of(new Taint("baz", "bin", Taint.Effect.NoExecute)));
    assertSameIgnoringLineBreaks(String.format(golden("br_userdata_merged.golden"), NODE_CLASS, Labels.NODE_POOL, NODE_POOL), userData);
  }

  @Test
  void bottlerocketWithoutUserData() {
    String userData = userData("bottlerocket@latest", null, List.of(new Taint("foo", "bar", Taint.Effect.NoExecute)),
        List.of(new Taint("baz", "bin", Taint.Effect.NoExecute)));
    assertSameIgnoringLineBreaks(String.format(golden("br_userdata_unmerged.golden"), NODE_CLASS, Labels.NODE_POOL, NODE_POOL), userData);
  }

  @Test
  void bottlerocketRefusesUserDataThatIsNotToml() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> userData("bottlerocket@latest", "#/bin/bash\n ./not-toml.sh", List.of(), List.of()));
    assertTrue(e.getMessage().contains("EC2NodeClass default: user data: invalid UserData"), e.getMessage());
  }

  @Test
  void bottlerocketRaid0BindsTheInstanceStore() {
    EC2NodeClass nodeClass = nodeClass("bottlerocket@latest", null);
    nodeClass.getSpec().setInstanceStorePolicy(InstanceStorePolicy.RAID0);
    String userData = userData(nodeClass, List.of(), List.of());
    assertTrue(userData.contains("""
        [settings.bootstrap-commands.000-mount-instance-storage]
        commands = [['apiclient', 'ephemeral-storage', 'init'], ['apiclient', 'ephemeral-storage', 'bind']]
        mode = 'always'
        essential = true
        """), userData);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "al2_userdata_input.golden",
      "al2_userdata_content_type_first_input.golden",
      "al2_no_mime_userdata_input.golden"})
  void al2MergesTheNodeClassUserDataAsUpstream(String input) {
    String userData = userData("al2@latest", golden(input), List.of(), List.of());
    assertSameIgnoringLineBreaks(String.format(golden("al2_userdata_merged.golden"), NODE_CLASS, Labels.NODE_POOL, NODE_POOL), userData);
  }

  @Test
  void al2WithoutUserData() {
    String userData = userData("al2@latest", null, List.of(), List.of());
    assertSameIgnoringLineBreaks(String.format(golden("al2_userdata_unmerged.golden"), NODE_CLASS, Labels.NODE_POOL, NODE_POOL), userData);
  }

  @Test
  void customPassesTheUserDataThroughUnchanged() {
    EC2NodeClass nodeClass = nodeClass("al2023@latest", "#!/bin/bash\necho custom\n");
    nodeClass.getSpec().setAmiFamily("Custom");
    nodeClass.getSpec().setAmiSelectorTerms(List.of());
    assertEquals("#!/bin/bash\necho custom\n", userData(nodeClass, List.of(), List.of()));
  }

  @Test
  void al2023NeedsTheClusterCidr() {
    ClusterInfo noCidr = new ClusterInfo("test-cluster", "https://test-cluster", null, null, null);
    EC2NodeClass nodeClass = nodeClass("al2023@latest", null);
    LaunchRequest request = LaunchFixtures.request(NODE_POOL, NODE_CLASS);
    assertThrows(NodeClassNotReadyException.class, () -> Resolver.resolve(nodeClass, noCidr,
        List.of(LaunchFixtures.instanceType("m5.large", 0.096, 0.04, List.of("us-west-2a"))), Labels.CAPACITY_TYPE_ON_DEMAND,
        request.labels(), List.of(), Map.of()));
  }

  @Test
  void al2023MaxPodsComesFromTheInstanceTypeWhenTheKubeletLeavesItOut() {
    EC2NodeClass nodeClass = nodeClass("al2023@latest", null);
    nodeClass.getSpec().setKubelet(null);
    LaunchRequest request = LaunchFixtures.request(NODE_POOL, NODE_CLASS);
    List<ResolvedLaunchTemplate> resolved = Resolver.resolve(nodeClass, LaunchFixtures.CLUSTER,
        List.of(LaunchFixtures.instanceType("small", "amd64", 2, 4, 29, 0.05, 0.02, List.of("us-west-2a")),
            LaunchFixtures.instanceType("large", "amd64", 8, 32, 58, 0.2, 0.08, List.of("us-west-2a")),
            LaunchFixtures.instanceType("large2", "amd64", 8, 32, 58, 0.21, 0.08, List.of("us-west-2a"))),
        Labels.CAPACITY_TYPE_ON_DEMAND, request.labels(), List.of(), Map.of());
    assertEquals(2, resolved.size(), "one template per max-pods value");
    assertTrue(decode(resolved.get(0).userData()).contains("maxPods: 29"));
    assertTrue(decode(resolved.get(1).userData()).contains("maxPods: 58"));
    assertEquals(List.of("large", "large2"), resolved.get(1).instanceTypes().stream().map(t -> t.name()).toList());
  }

  private String userData(String alias, String customUserData, List<Taint> taints, List<Taint> startupTaints) {
    return userData(nodeClass(alias, customUserData), taints, startupTaints);
  }

  private static EC2NodeClass nodeClass(String alias, String customUserData) {
    EC2NodeClass nodeClass = LaunchFixtures.nodeClass(NODE_CLASS, alias, Map.of("us-west-2a", "subnet-a"), "sg-1",
        List.of(LaunchFixtures.ami("ami-123", "amd64")));
    nodeClass.getSpec().setUserData(customUserData);
    nodeClass.getSpec().setKubelet(KubeletConfiguration.of(Map.of("maxPods", 110)));
    return nodeClass;
  }

  private static String userData(EC2NodeClass nodeClass, List<Taint> taints, List<Taint> startupTaints) {
    LaunchRequest request = LaunchFixtures.request(NODE_POOL, NODE_CLASS, taints, startupTaints);
    List<Taint> all = new java.util.ArrayList<>(taints);
    all.addAll(startupTaints);
    List<ResolvedLaunchTemplate> resolved = Resolver.resolve(nodeClass, LaunchFixtures.CLUSTER,
        List.of(LaunchFixtures.instanceType("m5.large", 0.096, 0.04, List.of("us-west-2a"))), Labels.CAPACITY_TYPE_ON_DEMAND,
        request.labels(), all, Map.of());
    assertEquals(1, resolved.size());
    return decode(resolved.get(0).userData());
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  static String golden(String name) {
    try (InputStream in = UserDataTest.class.getResourceAsStream("/amifamily/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void assertSameIgnoringLineBreaks(String expected, String actual) {
    assertEquals(expected.replace("\n", ""), actual.replace("\n", ""), "user data:\n" + actual);
  }

  @Test
  void bottlerocketCarriesTheKubeletSettingsTheNodeClassSets() {
    EC2NodeClass nodeClass = nodeClass("bottlerocket@latest", null);
    nodeClass.getSpec().setKubelet(KubeletConfiguration.of(Map.of(
        "maxPods", 50,
        "clusterDNS", List.of("10.0.0.53"),
        "kubeReserved", Map.of("cpu", "200m", "memory", "100Mi"),
        "evictionHard", Map.of("memory.available", "5%"),
        "evictionSoftGracePeriod", Map.of("memory.available", "90s"),
        "imageGCHighThresholdPercent", 85,
        "cpuCFSQuota", false)));
    String toml = userData(nodeClass, List.of(), List.of());
    for (String expected : List.of("cluster-dns-ip = '10.0.0.53'", "max-pods = 50", "cpu-cfs-quota-enforced = false",
        "image-gc-high-threshold-percent = '85'", "[settings.kubernetes.kube-reserved]", "cpu = '200m'", "memory = '100Mi'",
        "[settings.kubernetes.eviction-hard]", "'memory.available' = '5%'", "[settings.kubernetes.eviction-soft-grace-period]",
        "'memory.available' = '1m30s'")) {
      assertTrue(toml.contains(expected), expected + " in\n" + toml);
    }
  }

  @Test
  void al2023Raid0AndPassThroughKubeletFields() {
    EC2NodeClass nodeClass = nodeClass("al2023@latest", null);
    nodeClass.getSpec().setInstanceStorePolicy(InstanceStorePolicy.RAID0);
    nodeClass.getSpec().setKubelet(KubeletConfiguration.of(Map.of("maxPods", 110, "serializeImagePulls", false, "featureGates", Map.of("A", true))));
    String userData = userData(nodeClass, List.of(new Taint("dedicated", "gpu", Taint.Effect.NoSchedule)), List.of());
    for (String expected : List.of("    localStorage:\n      strategy: RAID0\n", "      serializeImagePulls: false\n",
        "      featureGates:\n        A: true\n", "      - effect: NoSchedule\n        key: dedicated\n        value: gpu\n")) {
      assertTrue(userData.contains(expected), expected + " in\n" + userData);
    }
  }
}
