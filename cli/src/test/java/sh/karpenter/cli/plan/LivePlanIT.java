package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sh.karpenter.testkit.aws.AwsClients;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import software.amazon.awssdk.services.ec2.Ec2Client;

/** {@code karpenter plan --aws-endpoint} against the emulator: instance types and zones come from its region. */
@AwsEmulatorTest
class LivePlanIT {
  private static final String MANIFESTS = """
      apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata: {name: default}
      spec:
        role: KarpenterNodeRole-plan
        amiSelectorTerms: [{alias: al2023@latest}]
        subnetSelectorTerms: [{tags: {karpenter.sh/discovery: plan}}]
        securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: plan}}]
      ---
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: default}
      spec:
        template:
          spec:
            nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
            requirements:
            - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: app, namespace: default}
      spec:
        replicas: 6
        selector: {matchLabels: {app: app}}
        template:
          metadata: {labels: {app: app}}
          spec:
            containers:
            - name: app
              image: pause
              resources: {requests: {cpu: "1", memory: 1Gi}}
      """;

  @TempDir Path dir;
  private Path manifests;
  private String endpoint;
  private Set<String> emulatorTypes;

  @BeforeEach
  void setUp(AwsEmulator emulator, Ec2Client ec2) throws IOException {
    // the SDK's default credentials chain reads these system properties first
    System.setProperty("aws.accessKeyId", AwsClients.ACCESS_KEY_ID);
    System.setProperty("aws.secretAccessKey", AwsClients.SECRET_ACCESS_KEY);
    manifests = dir.resolve("cluster.yaml");
    Files.writeString(manifests, MANIFESTS);
    endpoint = emulator.endpoint().toString();
    emulatorTypes = new HashSet<>();
    ec2.describeInstanceTypesPaginator(r -> r.maxResults(100)).instanceTypes().forEach(t -> emulatorTypes.add(t.instanceTypeAsString()));
  }

  @Test
  void plansOnTheEndpointsInstanceTypesAndZones() throws IOException {
    PlanContractTest.Run run = PlanContractTest.plan("-f", manifests.toString(), "--output", "json",
        "--aws-endpoint", endpoint, "--aws-region", AwsEmulator.REGION.id());

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode plan = run.json();
    assertThat(plan.get("nodeClaims")).isNotEmpty();
    assertThat(plan.get("unschedulable")).isEmpty();
    for (JsonNode claim : plan.get("nodeClaims")) {
      assertThat(claim.get("zone").asText()).startsWith("us-west-2");
      assertThat(emulatorTypes).contains(claim.get("instanceType").asText());
      assertThat(claim.get("pricePerHour").asDouble()).isPositive();
    }
  }

  @Test
  void anExplicitZoneListRestrictsTheRegionsZones() throws IOException {
    PlanContractTest.Run run = PlanContractTest.plan("-f", manifests.toString(), "--output", "json",
        "--aws-endpoint", endpoint, "--aws-region", AwsEmulator.REGION.id(), "--zones", "us-west-2b");

    assertThat(run.exit()).as(run.err()).isZero();
    for (JsonNode claim : run.json().get("nodeClaims")) {
      assertThat(claim.get("zone").asText()).isEqualTo("us-west-2b");
    }
  }

  @Test
  void zonesTheRegionDoesNotOfferAreAnError() {
    PlanContractTest.Run run = PlanContractTest.plan("-f", manifests.toString(),
        "--aws-endpoint", endpoint, "--aws-region", AwsEmulator.REGION.id(), "--zones", "us-east-1a");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().strip()).startsWith("error: --zones: none of us-east-1a is offered").doesNotContain("\n");
  }
}
