package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;

/** How {@link FleetFaults} rewrites a CreateFleet request and response, without an emulator. */
class FleetFaultsTest {

  private static final FleetFaults.UnavailableOfferings M5_LARGE_IN_2A_SPOT =
      (type, zone, capacity) -> "m5.large".equals(type) && "us-west-2a".equals(zone) && "spot".equals(capacity);

  /** Two launch template configs; the first has overrides in 2a (by subnet) and 2b, the second one in 2a. */
  private static SequencedMap<String, String> request(String capacityType, int capacity) {
    SequencedMap<String, String> parameters = new LinkedHashMap<>();
    parameters.put("Action", "CreateFleet");
    parameters.put("Type", "instant");
    parameters.put("TargetCapacitySpecification.TotalTargetCapacity", Integer.toString(capacity));
    parameters.put("TargetCapacitySpecification.DefaultTargetCapacityType", capacityType);
    parameters.put("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "a");
    parameters.put("LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest");
    parameters.put("LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.large");
    parameters.put("LaunchTemplateConfigs.1.Overrides.1.SubnetId", "subnet-a");
    parameters.put("LaunchTemplateConfigs.1.Overrides.2.InstanceType", "m5.large");
    parameters.put("LaunchTemplateConfigs.1.Overrides.2.SubnetId", "subnet-b");
    parameters.put("LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName", "b");
    parameters.put("LaunchTemplateConfigs.2.LaunchTemplateSpecification.Version", "$Latest");
    parameters.put("LaunchTemplateConfigs.2.Overrides.1.InstanceType", "m5.large");
    parameters.put("LaunchTemplateConfigs.2.Overrides.1.AvailabilityZone", "us-west-2a");
    parameters.put("LaunchTemplateConfigs.2.Overrides.1.Priority", "1.0");
    return parameters;
  }

  private static String zoneOf(String subnet) {
    return Map.of("subnet-a", "us-west-2a", "subnet-b", "us-west-2b").get(subnet);
  }

  @Test
  void unavailableOverridesAreTakenOutAndTheRestRenumbered() {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request("spot", 1), M5_LARGE_IN_2A_SPOT, FleetFaultsTest::zoneOf, null);

    assertThat(rewrite.failed()).extracting(o -> o.launchTemplate().get("LaunchTemplateSpecification.LaunchTemplateName") + ":" + o.zone())
        .containsExactly("a:us-west-2a", "b:us-west-2a");
    assertThat(rewrite.forward()).containsExactly(
        Map.entry("Action", "CreateFleet"),
        Map.entry("Type", "instant"),
        Map.entry("TargetCapacitySpecification.TotalTargetCapacity", "1"),
        Map.entry("TargetCapacitySpecification.DefaultTargetCapacityType", "spot"),
        Map.entry("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "a"),
        Map.entry("LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"),
        Map.entry("LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.large"),
        Map.entry("LaunchTemplateConfigs.1.Overrides.1.SubnetId", "subnet-b"));
    assertThat(rewrite.capped()).isFalse();
  }

  @Test
  void otherCapacityTypesAreUntouched() {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request("on-demand", 1), M5_LARGE_IN_2A_SPOT, FleetFaultsTest::zoneOf, null);
    assertThat(rewrite.failed()).isEmpty();
    assertThat(rewrite.forward()).isEqualTo(request("on-demand", 1));
  }

  @Test
  void nothingLeftMeansNoForwardAndAResponseWithOnlyErrors() {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request("spot", 1), (type, zone, capacity) -> true, FleetFaultsTest::zoneOf, null);
    assertThat(rewrite.forward()).isNull();
    assertThat(rewrite.failed()).hasSize(3);

    String xml = FleetFaults.responseWithoutInstances(rewrite);
    assertThat(xml)
        .contains("<fleetId>fleet-")
        .contains("<errorCode>InsufficientInstanceCapacity</errorCode>")
        .contains("<lifecycle>spot</lifecycle>")
        .contains("<launchTemplateName>b</launchTemplateName>")
        .contains("<priority>1.0</priority>")
        .contains("<subnetId>subnet-b</subnetId>")
        .contains("<fleetInstanceSet/>");
  }

  @Test
  void aCapacityCapLowersTheTargetAndBlamesThePoolMotoLaunchedFrom() {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request("spot", 3), (type, zone, capacity) -> false, FleetFaultsTest::zoneOf, 1);
    assertThat(rewrite.capped()).isTrue();
    assertThat(rewrite.forward()).containsEntry("TargetCapacitySpecification.TotalTargetCapacity", "1");

    String moto = """
        <?xml version="1.0" encoding="utf-8"?>
        <CreateFleetResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15"><fleetId>fleet-1</fleetId><fleetInstanceSet><item>\
        <launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateName>a</launchTemplateName></launchTemplateSpecification>\
        <overrides><instanceType>m5.large</instanceType><subnetId>subnet-a</subnetId></overrides></launchTemplateAndOverrides>\
        <lifecycle>spot</lifecycle><instanceIds><item>i-1</item></instanceIds><instanceType>m5.large</instanceType></item>\
        </fleetInstanceSet><requestId>request-id</requestId></CreateFleetResponse>""";
    String xml = FleetFaults.withErrors(moto, rewrite);
    assertThat(xml).contains("<instanceIds><item>i-1</item></instanceIds>")
        .containsPattern("<errorSet><item><launchTemplateAndOverrides>.*<subnetId>subnet-a</subnetId>.*</launchTemplateAndOverrides>"
            + "<lifecycle>spot</lifecycle><errorCode>InsufficientInstanceCapacity</errorCode>");

    FleetFaults.Rewrite none = FleetFaults.rewrite(request("spot", 3), (type, zone, capacity) -> false, FleetFaultsTest::zoneOf, 0);
    assertThat(none.forward()).isNull();
    assertThat(none.failed()).hasSize(3);
  }

  @Test
  void aResponseWithNothingToAddIsLeftAsItIs() {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request("on-demand", 1), M5_LARGE_IN_2A_SPOT, FleetFaultsTest::zoneOf, 5);
    assertThat(rewrite.capped()).isFalse();
    assertThat(FleetFaults.withErrors("<CreateFleetResponse/>", rewrite)).isEqualTo("<CreateFleetResponse/>");
  }

  @Test
  void launchedInstancesAreReadWithTheirLaunchTemplates() {
    String response = """
        <CreateFleetResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
          <fleetId>fleet-1</fleetId>
          <fleetInstanceSet>
            <item>
              <launchTemplateAndOverrides>
                <launchTemplateSpecification><launchTemplateId>lt-1</launchTemplateId><version>3</version></launchTemplateSpecification>
                <overrides><instanceType>c5.large</instanceType></overrides>
              </launchTemplateAndOverrides>
              <instanceIds><item>i-a</item><item>i-b</item></instanceIds>
            </item>
            <item>
              <launchTemplateAndOverrides>
                <launchTemplateSpecification><launchTemplateName>karpenter.k8s.aws/x</launchTemplateName></launchTemplateSpecification>
              </launchTemplateAndOverrides>
              <instanceIds><item>i-c</item></instanceIds>
            </item>
          </fleetInstanceSet>
        </CreateFleetResponse>""";
    assertThat(FleetFaults.launched(response)).containsExactly(
        new FleetFaults.Launched("i-a", "lt-1", null, "3"),
        new FleetFaults.Launched("i-b", "lt-1", null, "3"),
        new FleetFaults.Launched("i-c", null, "karpenter.k8s.aws/x", null));
    assertThat(FleetFaults.launched("<CreateFleetResponse><fleetInstanceSet/></CreateFleetResponse>")).isEmpty();
  }

  @Test
  void requestsAreParsedFromHeadersAndForm() {
    AwsRequest query = AwsRequest.parse(
        "AWS4-HMAC-SHA256 Credential=testing/20260101/us-west-2/ec2/aws4_request, SignedHeaders=host, Signature=x", null,
        "application/x-www-form-urlencoded; charset=utf-8", "Action=CreateFleet&Version=2016-11-15&A.1=%24Latest&B=a+b");
    assertThat(query.service()).isEqualTo("ec2");
    assertThat(query.operation()).isEqualTo("CreateFleet");
    assertThat(query.parameters()).containsExactly(Map.entry("Action", "CreateFleet"), Map.entry("Version", "2016-11-15"),
        Map.entry("A.1", "$Latest"), Map.entry("B", "a b"));
    assertThat(AwsRequest.parseForm(AwsRequest.formBody(query.parameters()))).isEqualTo(query.parameters());

    AwsRequest json = AwsRequest.parse(
        "AWS4-HMAC-SHA256 Credential=testing/20260101/us-west-2/ssm/aws4_request, SignedHeaders=host, Signature=x",
        "AmazonSSM.GetParameter", "application/x-amz-json-1.1", "{\"Name\":\"/a\"}");
    assertThat(json.is("ssm", "GetParameter")).isTrue();
    assertThat(json.is(null, null)).isTrue();
    assertThat(json.is("ec2", null)).isFalse();
    assertThat(json.parameters()).isEmpty();
  }
}
