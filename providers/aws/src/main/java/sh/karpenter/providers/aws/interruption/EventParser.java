package sh.karpenter.providers.aws.interruption;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the EventBridge events the interruption queue receives (upstream's {@code EventParser} and
 * its {@code messages/*} parsers). The parser is chosen by the event's {@code version}, {@code
 * source} and {@code detail-type}:
 *
 * <table>
 *   <caption>parsers</caption>
 *   <tr><th>source</th><th>detail-type</th><th>kind</th></tr>
 *   <tr><td>aws.ec2</td><td>EC2 Spot Instance Interruption Warning</td><td>{@link Kind#SPOT_INTERRUPTED}</td></tr>
 *   <tr><td>aws.ec2</td><td>EC2 Instance Rebalance Recommendation</td><td>{@link Kind#REBALANCE_RECOMMENDATION}</td></tr>
 *   <tr><td>aws.health</td><td>AWS Health Event (service EC2, category scheduledChange)</td><td>{@link Kind#SCHEDULED_CHANGE}</td></tr>
 *   <tr><td>aws.ec2</td><td>EC2 Instance State-change Notification (stopping, stopped / shutting-down, terminated)</td>
 *       <td>{@link Kind#INSTANCE_STOPPED} / {@link Kind#INSTANCE_TERMINATED}</td></tr>
 *   <tr><td>aws.ec2</td><td>EC2 Capacity Reservation Instance Interruption Warning</td><td>{@link Kind#CAPACITY_RESERVATION_INTERRUPTED}</td></tr>
 * </table>
 *
 * <p>Every parser is for {@code version} "0". An empty body, an event no parser is for, a health event
 * of another service or category and a state change to another state are {@link Kind#NO_OP}. A body
 * that is not a JSON object, or whose fields have the wrong JSON types (as Go's {@code
 * json.Unmarshal} would refuse them), is {@link UnparseableMessageException}. Thread-safe.
 */
public final class EventParser {
  static final String VERSION = "0";
  static final String EC2 = "aws.ec2";
  static final String HEALTH = "aws.health";
  static final String SPOT_INTERRUPTION = "EC2 Spot Instance Interruption Warning";
  static final String REBALANCE_RECOMMENDATION = "EC2 Instance Rebalance Recommendation";
  static final String HEALTH_EVENT = "AWS Health Event";
  static final String STATE_CHANGE = "EC2 Instance State-change Notification";
  static final String CAPACITY_RESERVATION_INTERRUPTION = "EC2 Capacity Reservation Instance Interruption Warning";

  private static final Set<String> STOPPED_STATES = Set.of("stopping", "stopped");
  private static final Set<String> TERMINATED_STATES = Set.of("shutting-down", "terminated");
  private static final List<String> METADATA_STRINGS = List.of("account", "detail-type", "id", "region", "source", "version");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The message in {@code body}; see the class comment for what is a no-op and what is unparseable. */
  public InterruptionMessage parse(String body) throws UnparseableMessageException {
    if (body == null || body.isEmpty()) {
      return InterruptionMessage.noOp(Instant.EPOCH, "");
    }
    JsonNode event;
    try {
      event = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new UnparseableMessageException("the message is not JSON: " + e.getOriginalMessage(), e);
    }
    if (event == null || !event.isObject()) {
      throw new UnparseableMessageException("the message is not a JSON object but " + (event == null ? "empty" : event.getNodeType()));
    }
    for (String field : METADATA_STRINGS) {
      string(event, field, "");
    }
    stringList(event, "resources");
    Instant time = time(event);
    String id = string(event, "id", "");
    if (!VERSION.equals(string(event, "version", ""))) {
      return InterruptionMessage.noOp(time, id);
    }
    String source = string(event, "source", "");
    String detailType = string(event, "detail-type", "");
    if (EC2.equals(source)) {
      switch (detailType) {
        case SPOT_INTERRUPTION:
          return instanceEvent(Kind.SPOT_INTERRUPTED, event, time, id, detailType);
        case REBALANCE_RECOMMENDATION:
          return instanceEvent(Kind.REBALANCE_RECOMMENDATION, event, time, id, detailType);
        case CAPACITY_RESERVATION_INTERRUPTION:
          return instanceEvent(Kind.CAPACITY_RESERVATION_INTERRUPTED, event, time, id, detailType);
        case STATE_CHANGE:
          return stateChange(event, time, id);
        default:
          return InterruptionMessage.noOp(time, id);
      }
    }
    if (HEALTH.equals(source) && HEALTH_EVENT.equals(detailType)) {
      return healthEvent(event, time, id);
    }
    return InterruptionMessage.noOp(time, id);
  }

  private static InterruptionMessage instanceEvent(Kind kind, JsonNode event, Instant time, String id, String detailType)
      throws UnparseableMessageException {
    JsonNode detail = detail(event, detailType);
    string(detail, "instance-action", "");
    return new InterruptionMessage(kind, nonEmpty(string(detail, "instance-id", "")), time, id);
  }

  private static InterruptionMessage stateChange(JsonNode event, Instant time, String id) throws UnparseableMessageException {
    JsonNode detail = detail(event, STATE_CHANGE);
    String instanceId = string(detail, "instance-id", "");
    String state = string(detail, "state", "").toLowerCase(Locale.ROOT);
    if (STOPPED_STATES.contains(state)) {
      return new InterruptionMessage(Kind.INSTANCE_STOPPED, nonEmpty(instanceId), time, id);
    }
    if (TERMINATED_STATES.contains(state)) {
      return new InterruptionMessage(Kind.INSTANCE_TERMINATED, nonEmpty(instanceId), time, id);
    }
    return InterruptionMessage.noOp(time, id); // pending, running: nothing to react to
  }

  private static InterruptionMessage healthEvent(JsonNode event, Instant time, String id) throws UnparseableMessageException {
    JsonNode detail = detail(event, HEALTH_EVENT);
    for (String field : List.of("eventArn", "eventTypeCode", "service", "startTime", "endTime", "eventTypeCategory")) {
      string(detail, field, "");
    }
    JsonNode entities = detail.get("affectedEntities");
    List<String> instanceIds = new ArrayList<>();
    if (entities != null && !entities.isNull()) {
      if (!entities.isArray()) {
        throw new UnparseableMessageException(HEALTH_EVENT + ": detail.affectedEntities is " + entities.getNodeType() + ", not an array");
      }
      for (JsonNode entity : entities) {
        if (!entity.isObject() && !entity.isNull()) {
          throw new UnparseableMessageException(HEALTH_EVENT + ": an entry of detail.affectedEntities is " + entity.getNodeType() + ", not an object");
        }
        instanceIds.add(entity.isNull() ? "" : string(entity, "entityValue", ""));
      }
    }
    if (!"EC2".equals(string(detail, "service", "")) || !"scheduledChange".equals(string(detail, "eventTypeCategory", ""))) {
      return InterruptionMessage.noOp(time, id); // upstream watches only EC2's scheduled changes
    }
    return new InterruptionMessage(Kind.SCHEDULED_CHANGE, instanceIds.stream().filter(s -> !s.isEmpty()).toList(), time, id);
  }

  /** {@code detail}, an object (an empty one when absent or null, as Go's zero value). */
  private static JsonNode detail(JsonNode event, String detailType) throws UnparseableMessageException {
    JsonNode detail = event.get("detail");
    if (detail == null || detail.isNull()) {
      return JSON.createObjectNode();
    }
    if (!detail.isObject()) {
      throw new UnparseableMessageException(detailType + ": detail is " + detail.getNodeType() + ", not an object");
    }
    return detail;
  }

  private static String string(JsonNode object, String field, String absent) throws UnparseableMessageException {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return absent;
    }
    if (!value.isTextual()) {
      throw new UnparseableMessageException("field " + field + " is " + value.getNodeType() + ", not a string");
    }
    return value.asText();
  }

  private static void stringList(JsonNode object, String field) throws UnparseableMessageException {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return;
    }
    if (!value.isArray()) {
      throw new UnparseableMessageException("field " + field + " is " + value.getNodeType() + ", not an array of strings");
    }
    for (JsonNode item : value) {
      if (!item.isTextual() && !item.isNull()) {
        throw new UnparseableMessageException("field " + field + " holds " + item.getNodeType() + ", not a string");
      }
    }
  }

  /** {@code time}, RFC 3339; {@link Instant#EPOCH} when absent or null (an empty string is refused, as Go's time does). */
  private static Instant time(JsonNode event) throws UnparseableMessageException {
    String time = string(event, "time", null);
    if (time == null) {
      return Instant.EPOCH;
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      throw new UnparseableMessageException("field time is not an RFC 3339 time: " + time, e);
    }
  }

  private static List<String> nonEmpty(String instanceId) {
    return instanceId.isEmpty() ? List.of() : List.of(instanceId);
  }
}
