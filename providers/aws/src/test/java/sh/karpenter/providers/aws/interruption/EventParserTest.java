package sh.karpenter.providers.aws.interruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@link EventParser} on real EventBridge events, one per kind, and on malformed ones. */
class EventParserTest {
  private static final Instant TIME = Instant.parse(InterruptionSamples.SAMPLE_TIME);
  private static final String ID = InterruptionSamples.SAMPLE_INSTANCE;
  private final EventParser parser = new EventParser();

  @Test
  void spotInterruptionWarning() throws Exception {
    assertThat(parser.parse(InterruptionSamples.sample("spot-interruption")))
        .isEqualTo(new InterruptionMessage(Kind.SPOT_INTERRUPTED, List.of(ID), TIME, "1e5527d7-bb36-4607-3370-4164db56a40e"));
    assertThat(Kind.SPOT_INTERRUPTED.action()).isEqualTo(Action.CORDON_AND_DRAIN);
  }

  @Test
  void rebalanceRecommendationIsOnlyAnEvent() throws Exception {
    InterruptionMessage message = parser.parse(InterruptionSamples.sample("rebalance-recommendation"));
    assertThat(message.kind()).isEqualTo(Kind.REBALANCE_RECOMMENDATION);
    assertThat(message.instanceIds()).containsExactly(ID);
    assertThat(message.kind().action()).isEqualTo(Action.NO_ACTION);
  }

  @Test
  void scheduledChangeNamesEveryAffectedInstance() throws Exception {
    InterruptionMessage message = parser.parse(InterruptionSamples.sample("scheduled-change"));
    assertThat(message.kind()).isEqualTo(Kind.SCHEDULED_CHANGE);
    assertThat(message.instanceIds()).containsExactly(ID, "i-05a2d7ef1c5e8e2b1");
    assertThat(message.startTime()).isEqualTo(TIME);
    assertThat(message.kind().action()).isEqualTo(Action.CORDON_AND_DRAIN);
  }

  @Test
  void healthEventsOfOtherServicesOrCategoriesAreNoOps() throws Exception {
    assertThat(parser.parse(InterruptionSamples.sample("other-health-event")).kind()).isEqualTo(Kind.NO_OP);
    String issue = InterruptionSamples.sample("scheduled-change").replace("\"scheduledChange\"", "\"issue\"");
    assertThat(parser.parse(issue).kind()).isEqualTo(Kind.NO_OP);
  }

  @ParameterizedTest
  @CsvSource({
    "stopping, INSTANCE_STOPPED",
    "stopped, INSTANCE_STOPPED",
    "shutting-down, INSTANCE_TERMINATED",
    "terminated, INSTANCE_TERMINATED",
    "Terminated, INSTANCE_TERMINATED",
    "pending, NO_OP",
    "running, NO_OP",
  })
  void stateChanges(String state, Kind kind) throws Exception {
    InterruptionMessage message = parser.parse(InterruptionSamples.stateChange(ID, state, TIME));
    assertThat(message.kind()).isEqualTo(kind);
    assertThat(message.instanceIds()).isEqualTo(kind == Kind.NO_OP ? List.of() : List.of(ID));
  }

  @Test
  void capacityReservationInterruption() throws Exception {
    InterruptionMessage message = parser.parse(InterruptionSamples.sample("capacity-reservation-interruption"));
    assertThat(message.kind()).isEqualTo(Kind.CAPACITY_RESERVATION_INTERRUPTED);
    assertThat(message.instanceIds()).containsExactly(ID);
  }

  @Test
  void unknownEventsAndOtherVersionsAreNoOps() throws Exception {
    assertThat(parser.parse(InterruptionSamples.sample("unknown-event")).kind()).isEqualTo(Kind.NO_OP);
    assertThat(parser.parse(InterruptionSamples.sample("spot-interruption").replace("\"version\": \"0\"", "\"version\": \"1\"")).kind())
        .isEqualTo(Kind.NO_OP);
    assertThat(parser.parse("{\"foo\":\"bar\"}").kind()).isEqualTo(Kind.NO_OP);
    assertThat(parser.parse("{}")).isEqualTo(new InterruptionMessage(Kind.NO_OP, List.of(), Instant.EPOCH, ""));
    assertThat(parser.parse("").kind()).isEqualTo(Kind.NO_OP);
  }

  @Test
  void aSpotWarningWithoutAnInstanceIdNamesNoInstance() throws Exception {
    String body = "{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\"}";
    assertThat(parser.parse(body).instanceIds()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "not json",
    "{\"version\":\"0\",",
    "[1,2,3]",
    "\"a string\"",
    "{\"version\":0,\"source\":\"aws.ec2\"}",
    "{\"version\":\"0\",\"time\":\"yesterday\"}",
    "{\"version\":\"0\",\"time\":\"\"}",
    "{\"version\":\"0\",\"resources\":\"i-1\"}",
    "{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"detail\":\"i-1\"}",
    "{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"detail\":{\"instance-id\":7}}",
    "{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Instance State-change Notification\",\"detail\":{\"state\":[]}}",
    "{\"version\":\"0\",\"source\":\"aws.health\",\"detail-type\":\"AWS Health Event\",\"detail\":{\"affectedEntities\":{}}}",
  })
  void malformedMessagesAreUnparseable(String body) {
    assertThatThrownBy(() -> parser.parse(body)).isInstanceOf(UnparseableMessageException.class);
  }

  @Test
  void theErrorSaysWhatIsWrong() {
    assertThatThrownBy(() -> parser.parse("{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\","
        + "\"detail\":{\"instance-id\":7}}"))
        .hasMessage("field instance-id is NUMBER, not a string");
  }
}
