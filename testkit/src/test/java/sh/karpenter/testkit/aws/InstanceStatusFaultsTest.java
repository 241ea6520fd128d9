package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;

/** How {@link InstanceStatusFaults} selects and writes DescribeInstanceStatus answers, without an emulator. */
class InstanceStatusFaultsTest {
  private static final InstanceStatus IMPAIRED = InstanceStatus.builder().instanceId("i-a")
      .systemStatus(s -> s.status("impaired").details(d -> d.name("reachability").status("failed").impairedSince(Instant.parse("2026-11-26T01:00:00Z"))))
      .build();
  private static final InstanceStatus RETIRING = InstanceStatus.builder().instanceId("i-b").events(e -> e.code("instance-retirement")).build();

  private static SequencedMap<String, String> request(String... pairs) {
    SequencedMap<String, String> parameters = new LinkedHashMap<>();
    parameters.put("Action", "DescribeInstanceStatus");
    for (int i = 0; i < pairs.length; i += 2) {
      parameters.put(pairs[i], pairs[i + 1]);
    }
    return parameters;
  }

  @Test
  void filtersAreOredWithinAndAndedAcrossNames() {
    assertThat(InstanceStatusFaults.filters(request("Filter.1.Name", "event.code", "Filter.1.Value.1", "a", "Filter.1.Value.2", "b",
        "Filter.2.Name", "instance-id", "Filter.2.Value.1", "i-b"))).isEqualTo(Map.of("event.code", List.of("a", "b"), "instance-id", List.of("i-b")));
    List<InstanceStatus> both = List.of(IMPAIRED, RETIRING);
    assertThat(InstanceStatusFaults.select(both, request())).containsExactly(IMPAIRED, RETIRING);
    assertThat(InstanceStatusFaults.select(both, request("Filter.1.Name", "system-status.status", "Filter.1.Value.1", "impaired")))
        .containsExactly(IMPAIRED);
    assertThat(InstanceStatusFaults.select(both, request("Filter.1.Name", "event.code", "Filter.1.Value.1", "instance-stop",
        "Filter.1.Value.2", "instance-retirement"))).containsExactly(RETIRING);
    assertThat(InstanceStatusFaults.select(both, request("Filter.1.Name", "event.code", "Filter.1.Value.1", "instance-retirement",
        "Filter.2.Name", "instance-id", "Filter.2.Value.1", "i-a"))).isEmpty();
    assertThat(InstanceStatusFaults.select(both, request("InstanceId.1", "i-a"))).containsExactly(IMPAIRED);
    assertThat(InstanceStatusFaults.unsupportedFilter(request("Filter.1.Name", "availability-zone", "Filter.1.Value.1", "x")))
        .isEqualTo("availability-zone");
  }

  @Test
  void theResponseIsEc2sXml() {
    String xml = InstanceStatusFaults.response(List.of(IMPAIRED, RETIRING));

    assertThat(xml).contains("<DescribeInstanceStatusResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">",
        "<instanceStatusSet><item><instanceId>i-a</instanceId><instanceState><code>16</code><name>running</name></instanceState>",
        "<systemStatus><status>impaired</status><details><item><name>reachability</name><status>failed</status>"
            + "<impairedSince>2026-11-26T01:00:00Z</impairedSince></item></details></systemStatus>",
        "<eventsSet><item><code>instance-retirement</code></item></eventsSet>");
  }
}
