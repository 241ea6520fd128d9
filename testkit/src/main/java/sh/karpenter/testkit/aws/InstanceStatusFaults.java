package sh.karpenter.testkit.aws;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.InstanceStatusDetails;
import software.amazon.awssdk.services.ec2.model.InstanceStatusEvent;
import software.amazon.awssdk.services.ec2.model.InstanceStatusSummary;

/**
 * EC2's {@code DescribeInstanceStatus} answer for statuses a test sets ({@link AwsFaults#instanceStatuses}),
 * since moto reports every running instance as {@code ok} and ignores the status filters. The request's
 * {@code InstanceId.N} and the filters {@code instance-id}, {@code instance-status.status}, {@code
 * system-status.status}, {@code instance-status.reachability}, {@code system-status.reachability} and
 * {@code event.code} are applied as EC2 applies them (values ORed, names ANDed); any other filter name
 * is refused with {@code InvalidParameterValue}, as a reminder that it is not emulated. One page.
 */
final class InstanceStatusFaults {
  private static final Pattern FILTER = Pattern.compile("Filter\\.(\\d+)\\.(Name|Value\\.\\d+)");
  private static final Pattern INSTANCE_ID = Pattern.compile("InstanceId\\.\\d+");

  private InstanceStatusFaults() {}

  /** The filters of a request: name → values, in request order. */
  static Map<String, List<String>> filters(SequencedMap<String, String> parameters) {
    Map<String, String> names = new LinkedHashMap<>();
    Map<String, List<String>> values = new LinkedHashMap<>();
    parameters.forEach((key, value) -> {
      Matcher m = FILTER.matcher(key);
      if (m.matches()) {
        if (m.group(2).equals("Name")) {
          names.put(m.group(1), value);
        } else {
          values.computeIfAbsent(m.group(1), n -> new ArrayList<>()).add(value);
        }
      }
    });
    Map<String, List<String>> filters = new LinkedHashMap<>();
    names.forEach((n, name) -> filters.computeIfAbsent(name, k -> new ArrayList<>()).addAll(values.getOrDefault(n, List.of())));
    return filters;
  }

  /** The statuses the request asks for. */
  static List<InstanceStatus> select(List<InstanceStatus> statuses, SequencedMap<String, String> parameters) {
    List<String> ids = parameters.entrySet().stream().filter(e -> INSTANCE_ID.matcher(e.getKey()).matches()).map(Map.Entry::getValue).toList();
    Map<String, List<String>> filters = filters(parameters);
    return statuses.stream()
        .filter(s -> ids.isEmpty() || ids.contains(s.instanceId()))
        .filter(s -> filters.entrySet().stream().allMatch(f -> matches(s, f.getKey(), f.getValue())))
        .toList();
  }

  /** A filter name the proxy does not emulate, or null. */
  static String unsupportedFilter(SequencedMap<String, String> parameters) {
    return filters(parameters).keySet().stream().filter(name -> !List.of("instance-id", "instance-status.status", "system-status.status",
        "instance-status.reachability", "system-status.reachability", "event.code").contains(name)).findFirst().orElse(null);
  }

  private static boolean matches(InstanceStatus status, String name, List<String> values) {
    return switch (name) {
      case "instance-id" -> values.contains(status.instanceId());
      case "instance-status.status" -> status.instanceStatus() != null && values.contains(status.instanceStatus().statusAsString());
      case "system-status.status" -> status.systemStatus() != null && values.contains(status.systemStatus().statusAsString());
      case "instance-status.reachability" -> reachability(status.instanceStatus(), values);
      case "system-status.reachability" -> reachability(status.systemStatus(), values);
      case "event.code" -> status.events().stream().anyMatch(e -> values.contains(e.codeAsString()));
      default -> false;
    };
  }

  private static boolean reachability(InstanceStatusSummary summary, List<String> values) {
    return summary != null && summary.details().stream().anyMatch(d -> "reachability".equals(d.nameAsString()) && values.contains(d.statusAsString()));
  }

  /** {@code DescribeInstanceStatusResponse} in EC2's XML, as the SDK parses it. */
  static String response(List<InstanceStatus> statuses) {
    Document document = FleetFaults.newDocument();
    Element root = document.createElementNS(FleetFaults.NAMESPACE, "DescribeInstanceStatusResponse");
    document.appendChild(root);
    FleetFaults.append(root, "requestId", UUID.randomUUID().toString());
    Element set = FleetFaults.append(root, "instanceStatusSet", null);
    for (InstanceStatus status : statuses) {
      Element item = FleetFaults.append(set, "item", null);
      FleetFaults.append(item, "instanceId", status.instanceId());
      text(item, "availabilityZone", status.availabilityZone());
      Element state = FleetFaults.append(item, "instanceState", null);
      FleetFaults.append(state, "code", status.instanceState() == null ? "16" : String.valueOf(status.instanceState().code()));
      FleetFaults.append(state, "name", status.instanceState() == null ? "running" : status.instanceState().nameAsString());
      summary(item, "systemStatus", status.systemStatus());
      summary(item, "instanceStatus", status.instanceStatus());
      if (status.attachedEbsStatus() != null) {
        Element ebs = FleetFaults.append(item, "attachedEbsStatus", null);
        FleetFaults.append(ebs, "status", status.attachedEbsStatus().statusAsString());
        Element details = FleetFaults.append(ebs, "details", null);
        status.attachedEbsStatus().details().forEach(d -> detail(details, d.nameAsString(), d.statusAsString(), d.impairedSince()));
      }
      if (status.hasEvents()) {
        Element events = FleetFaults.append(item, "eventsSet", null);
        for (InstanceStatusEvent event : status.events()) {
          Element e = FleetFaults.append(events, "item", null);
          text(e, "instanceEventId", event.instanceEventId());
          FleetFaults.append(e, "code", event.codeAsString());
          text(e, "description", event.description());
          text(e, "notBefore", event.notBefore() == null ? null : event.notBefore().toString());
          text(e, "notAfter", event.notAfter() == null ? null : event.notAfter().toString());
        }
      }
    }
    return FleetFaults.serialize(document);
  }

  private static void summary(Element item, String name, InstanceStatusSummary summary) {
    if (summary == null) {
      return;
    }
    Element element = FleetFaults.append(item, name, null);
    FleetFaults.append(element, "status", summary.statusAsString());
    Element details = FleetFaults.append(element, "details", null);
    for (InstanceStatusDetails d : summary.details()) {
      detail(details, d.nameAsString(), d.statusAsString(), d.impairedSince());
    }
  }

  private static void detail(Element details, String name, String status, Instant impairedSince) {
    Element item = FleetFaults.append(details, "item", null);
    FleetFaults.append(item, "name", name);
    FleetFaults.append(item, "status", status);
    text(item, "impairedSince", impairedSince == null ? null : impairedSince.toString());
  }

  private static void text(Element parent, String name, String value) {
    if (value != null) {
      FleetFaults.append(parent, name, value);
    }
  }
}
