package sh.karpenter.testkit.aws;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.Subnet;

/**
 * A fault injector for tests of AWS callers: a small HTTP proxy on loopback between the SDK and the
 * emulator. It forwards every request unchanged unless a fault applies:
 * <ul>
 *   <li>{@link #insufficientCapacity}: an instance type × zone × capacity type has no capacity. EC2
 *       {@code CreateFleet} calls lose the matching launch template overrides before moto sees them,
 *       and the response reports each as an {@code InsufficientInstanceCapacity} error, with the
 *       instances launched from the other overrides, or none (moto has no such switch);
 *   <li>{@link #limitFleetCapacity}: {@code CreateFleet} launches at most so many instances, and
 *       reports the pool it launched from as out of capacity (a partial result);
 *   <li>{@link #throttle} and {@link #error}: the next calls of an operation fail with the service's
 *       throttling error or any error code, in the service's protocol (EC2, other query, JSON);
 *   <li>{@link #delay}: the next calls of an operation are answered late, to drive client timeouts;
 *   <li>{@link #instanceStatuses}: {@code DescribeInstanceStatus} reports impaired status checks and
 *       scheduled events (moto has neither).
 * </ul>
 * Whatever the faults, it also fills in what EC2 does at launch and moto does not: each instance a
 * {@code CreateFleet} launched gets its launch template's security groups (its {@code
 * SecurityGroupIds}, or its network interfaces' {@code Groups}) before the response is passed on, so
 * the caller never sees an instance without them.
 *
 * <p>It records every call ({@link #requests()}). Build clients with {@link #clients()}; close the
 * proxy after the test (the {@code @AwsEmulatorTest} extension does for an {@code AwsFaults}
 * parameter). Faults may be added and cleared while calls are in flight.
 */
public final class AwsFaults implements AutoCloseable {

  /** Karpenter's capacity types, as EC2 names them in {@code DefaultTargetCapacityType}. */
  public enum CapacityType {
    ON_DEMAND("on-demand"),
    SPOT("spot");

    private final String value;

    CapacityType(String value) {
      this.value = value;
    }

    public String value() {
      return value;
    }
  }

  private static final Set<String> UNFORWARDED_HEADERS =
      Set.of("host", "content-length", "connection", "expect", "upgrade", "transfer-encoding", "keep-alive",
          "te", "trailer", "accept-encoding", "proxy-connection", "proxy-authorization");
  private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(60);

  private record Unavailable(String instanceType, String zone, CapacityType capacityType) {
    boolean matches(String type, String inZone, String capacity) {
      return (instanceType == null || instanceType.equals(type))
          && (zone == null || zone.equals(inZone))
          && (capacityType == null || capacityType.value().equals(capacity));
    }
  }

  /** A fault on the next {@code remaining} calls of an operation: an error response, or a delay. */
  private record CallFault(String service, String operation, AtomicInteger remaining,
      int status, String code, String message, Duration delay) {}

  private final URI upstream;
  private final Region region;
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final Ec2Client upstreamEc2;
  private final List<Unavailable> unavailable = new CopyOnWriteArrayList<>();
  private final List<CallFault> callFaults = new CopyOnWriteArrayList<>();
  private final List<AwsRequest> requests = new CopyOnWriteArrayList<>();
  private volatile Integer fleetCapacityLimit;
  private volatile List<InstanceStatus> instanceStatuses;

  private AwsFaults(URI upstream, Region region) throws IOException {
    this.upstream = upstream;
    this.region = region;
    this.upstreamEc2 = new AwsClients(upstream, region).ec2();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A proxy in front of the emulator. */
  public static AwsFaults start(AwsEmulator emulator) {
    return start(emulator.endpoint(), AwsEmulator.REGION);
  }

  /** A proxy in front of {@code upstream} (an emulator's endpoint). */
  public static AwsFaults start(URI upstream, Region region) {
    try {
      return new AwsFaults(upstream, region);
    } catch (IOException e) {
      throw new UncheckedIOException("starting the AWS fault proxy on loopback", e);
    }
  }

  /** The proxy's endpoint, to give the code under test as its AWS endpoint. */
  public URI endpoint() {
    return URI.create("http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort());
  }

  /** Builds clients whose calls go through this proxy. */
  public AwsClients clients() {
    return new AwsClients(endpoint(), region);
  }

  /**
   * {@code instanceType} in {@code zone} has no {@code capacityType} capacity until {@link #clear()}:
   * {@code CreateFleet} reports every such override as {@code InsufficientInstanceCapacity}. A
   * {@code null} argument matches any type, zone or capacity type.
   */
  public AwsFaults insufficientCapacity(String instanceType, String zone, CapacityType capacityType) {
    unavailable.add(new Unavailable(instanceType, zone, capacityType));
    return this;
  }

  /**
   * Until {@link #clear()}, a {@code CreateFleet} asking for more than {@code instances} launches only
   * that many (none for 0) and reports the pool it launched from as {@code InsufficientInstanceCapacity}.
   */
  public AwsFaults limitFleetCapacity(int instances) {
    if (instances < 0) {
      throw new IllegalArgumentException("limitFleetCapacity: instances must be >= 0, got " + instances);
    }
    fleetCapacityLimit = instances;
    return this;
  }

  /**
   * The next {@code times} calls of {@code service}'s {@code operation} fail with the service's
   * throttling error: {@code RequestLimitExceeded} (HTTP 503) for EC2, {@code Throttling} (400) for the
   * other query-protocol services such as IAM, {@code ThrottlingException} (400) for JSON ones such as
   * SSM. The SDK retries these (with backoff) unless told not to. {@code null} matches any.
   */
  public AwsFaults throttle(String service, String operation, int times) {
    if ("ec2".equals(service)) {
      return error(service, operation, 503, "RequestLimitExceeded", "Request limit exceeded.", times);
    }
    return error(service, operation, 400, null, "Rate exceeded", times);
  }

  /**
   * The next {@code times} calls of {@code service}'s {@code operation} fail with HTTP {@code status}
   * and error {@code code} ({@code null}: the protocol's throttling code), e.g.
   * {@code error("ec2", "CreateFleet", 400, "UnauthorizedOperation", "...", 1)}.
   */
  public AwsFaults error(String service, String operation, int status, String code, String message, int times) {
    callFaults.add(new CallFault(service, operation, new AtomicInteger(times), status, code, message, null));
    return this;
  }

  /**
   * The next {@code times} calls of {@code service}'s {@code operation} are forwarded only after
   * {@code delay}: a client whose attempt timeout is shorter times out.
   */
  public AwsFaults delay(String service, String operation, Duration delay, int times) {
    callFaults.add(new CallFault(service, operation, new AtomicInteger(times), 0, null, null, Objects.requireNonNull(delay)));
    return this;
  }

  /**
   * Until {@link #clear()}, {@code DescribeInstanceStatus} is answered by the proxy, in EC2's XML, with
   * those of these statuses the request asks for (its instance IDs and its {@code instance-id}, {@code
   * instance-status.status}, {@code system-status.status}, {@code *.reachability} and {@code event.code}
   * filters; another filter is refused), and moto is not asked: moto reports every running instance as
   * {@code ok} and ignores those filters, so it can show no impaired instance or scheduled event.
   * Build the statuses with the SDK's {@code InstanceStatus.builder()}; replaces earlier ones.
   */
  public AwsFaults instanceStatuses(List<InstanceStatus> statuses) {
    instanceStatuses = List.copyOf(statuses);
    return this;
  }

  /** Removes every fault; the record of calls stays. */
  public void clear() {
    unavailable.clear();
    callFaults.clear();
    fleetCapacityLimit = null;
    instanceStatuses = null;
  }

  /** Every call the proxy received, in order of arrival. */
  public List<AwsRequest> requests() {
    return List.copyOf(requests);
  }

  /** The calls of {@code service}'s {@code operation} ({@code null} matches any). */
  public List<AwsRequest> requests(String service, String operation) {
    return requests.stream().filter(r -> r.is(service, operation)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    upstreamEc2.close();
    http.close();
  }

  // -------------------------------------------------------------------------------------------

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Headers headers = exchange.getRequestHeaders();
      String target = headers.getFirst("X-Amz-Target");
      AwsRequest request = AwsRequest.parse(headers.getFirst("Authorization"), target,
          headers.getFirst("Content-Type"), new String(body, StandardCharsets.UTF_8));
      requests.add(request);
      try {
        CallFault fault = takeCallFault(request);
        if (fault != null && fault.delay() != null) {
          Thread.sleep(fault.delay());
        } else if (fault != null) {
          respondWithError(exchange, request, target != null, fault);
          return;
        }
        List<InstanceStatus> statuses = instanceStatuses;
        if (statuses != null && request.is("ec2", "DescribeInstanceStatus")) {
          describeInstanceStatus(exchange, request, statuses);
          return;
        }
        Integer limit = fleetCapacityLimit;
        if (request.is("ec2", "CreateFleet") && (!unavailable.isEmpty() || limit != null)) {
          createFleet(exchange, request, limit);
          return;
        }
        Upstream answer = forward(exchange, body);
        if (answer.status() == 200 && request.is("ec2", "CreateFleet")) {
          applyLaunchTemplateSecurityGroups(answer.body());
        }
        respond(exchange, answer.status(), answer.headers(), answer.body());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException | IOException e) {
        byte[] message = ("AwsFaults proxy: " + e).getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(502, message.length);
        exchange.getResponseBody().write(message);
      }
    }
  }

  private CallFault takeCallFault(AwsRequest request) {
    for (CallFault fault : callFaults) {
      if (request.is(fault.service(), fault.operation()) && fault.remaining().getAndDecrement() > 0) {
        return fault;
      }
    }
    return null;
  }

  private void createFleet(HttpExchange exchange, AwsRequest request, Integer limit) throws IOException, InterruptedException {
    FleetFaults.Rewrite rewrite = FleetFaults.rewrite(request.parameters(),
        (type, zone, capacity) -> unavailable.stream().anyMatch(u -> u.matches(type, zone, capacity)),
        this::zoneOfSubnet, limit);
    if (rewrite.forward() == null) {
      respond(exchange, 200, Map.of("Content-Type", List.of("text/xml")),
          FleetFaults.responseWithoutInstances(rewrite).getBytes(StandardCharsets.UTF_8));
      return;
    }
    Upstream answer = forward(exchange, AwsRequest.formBody(rewrite.forward()).getBytes(StandardCharsets.UTF_8));
    byte[] body = answer.body();
    if (answer.status() == 200) {
      applyLaunchTemplateSecurityGroups(body);
      body = FleetFaults.withErrors(new String(body, StandardCharsets.UTF_8), rewrite).getBytes(StandardCharsets.UTF_8);
    }
    respond(exchange, answer.status(), answer.headers(), body);
  }

  private void describeInstanceStatus(HttpExchange exchange, AwsRequest request, List<InstanceStatus> statuses) throws IOException {
    String unsupported = InstanceStatusFaults.unsupportedFilter(request.parameters());
    if (unsupported != null) {
      respondWithError(exchange, request, false, new CallFault("ec2", "DescribeInstanceStatus", new AtomicInteger(), 400,
          "InvalidParameterValue", "AwsFaults: the filter " + unsupported + " of DescribeInstanceStatus is not emulated", null));
      return;
    }
    respond(exchange, 200, Map.of("Content-Type", List.of("text/xml")),
        InstanceStatusFaults.response(InstanceStatusFaults.select(statuses, request.parameters())).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Gives each instance of a successful {@code CreateFleet} response the security groups of the launch
   * template version it was launched from, asked of the emulator itself (not through the proxy, so
   * these calls are not recorded). A template without groups leaves the instance as moto made it.
   */
  private void applyLaunchTemplateSecurityGroups(byte[] response) {
    Map<List<String>, List<String>> groupsOfTemplate = new HashMap<>();
    for (FleetFaults.Launched launched : FleetFaults.launched(new String(response, StandardCharsets.UTF_8))) {
      List<String> template = Arrays.asList(launched.launchTemplateId(), launched.launchTemplateName(), launched.version());
      List<String> groups = groupsOfTemplate.computeIfAbsent(template, t -> launchTemplateSecurityGroups(launched));
      if (!groups.isEmpty()) {
        upstreamEc2.modifyInstanceAttribute(r -> r.instanceId(launched.instanceId()).groups(groups));
      }
    }
  }

  private List<String> launchTemplateSecurityGroups(FleetFaults.Launched launched) {
    if (launched.launchTemplateId() == null && launched.launchTemplateName() == null) {
      return List.of();
    }
    var versions = upstreamEc2.describeLaunchTemplateVersions(r -> {
      if (launched.launchTemplateId() != null) {
        r.launchTemplateId(launched.launchTemplateId());
      } else {
        r.launchTemplateName(launched.launchTemplateName());
      }
      r.versions(launched.version() == null ? "$Latest" : launched.version());
    }).launchTemplateVersions();
    if (versions.isEmpty() || versions.getFirst().launchTemplateData() == null) {
      return List.of();
    }
    var data = versions.getFirst().launchTemplateData();
    Set<String> groups = new LinkedHashSet<>(data.securityGroupIds());
    data.networkInterfaces().forEach(networkInterface -> groups.addAll(networkInterface.groups()));
    return List.copyOf(groups);
  }

  /** The zone of a subnet, asked of the emulator itself (not through the proxy); null if unknown. */
  private String zoneOfSubnet(String subnetId) {
    try {
      List<Subnet> subnets = upstreamEc2.describeSubnets(r -> r.subnetIds(subnetId)).subnets();
      return subnets.isEmpty() ? null : subnets.getFirst().availabilityZone();
    } catch (RuntimeException e) {
      return null; // moto reports the unknown subnet itself when the request is forwarded
    }
  }

  private record Upstream(int status, Map<String, List<String>> headers, byte[] body) {}

  private Upstream forward(HttpExchange exchange, byte[] body) throws IOException, InterruptedException {
    URI uri = upstream.resolve(exchange.getRequestURI().toString());
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
        .timeout(UPSTREAM_TIMEOUT)
        .method(exchange.getRequestMethod(), body.length == 0
            ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    exchange.getRequestHeaders().forEach((name, values) -> {
      if (!UNFORWARDED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(value -> builder.header(name, value));
      }
    });
    HttpResponse<byte[]> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Upstream(response.statusCode(), response.headers().map(), response.body());
  }

  private static void respond(HttpExchange exchange, int status, Map<String, List<String>> headers, byte[] body) throws IOException {
    headers.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (!lower.equals("content-length") && !lower.equals("transfer-encoding") && !lower.equals("connection")
          && !lower.startsWith(":")) {
        exchange.getResponseHeaders().put(name, new ArrayList<>(values));
      }
    });
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }

  /** An error in the request's protocol: EC2's {@code Response/Errors}, other query {@code ErrorResponse}, or JSON. */
  private static void respondWithError(HttpExchange exchange, AwsRequest request, boolean json, CallFault fault) throws IOException {
    String requestId = UUID.randomUUID().toString();
    String message = fault.message() == null ? "fault injected by AwsFaults" : fault.message();
    String contentType;
    String body;
    if (json) {
      String code = fault.code() == null ? "ThrottlingException" : fault.code();
      contentType = "application/x-amz-json-1.1";
      body = "{\"__type\":\"" + jsonEscape(code) + "\",\"message\":\"" + jsonEscape(message) + "\"}";
    } else if (request.service().equals("ec2")) {
      String code = fault.code() == null ? "RequestLimitExceeded" : fault.code();
      contentType = "text/xml";
      body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>" + xmlEscape(code)
          + "</Code><Message>" + xmlEscape(message) + "</Message></Error></Errors><RequestID>" + requestId + "</RequestID></Response>";
    } else {
      String code = fault.code() == null ? "Throttling" : fault.code();
      contentType = "text/xml";
      body = "<ErrorResponse><Error><Type>Sender</Type><Code>" + xmlEscape(code) + "</Code><Message>" + xmlEscape(message)
          + "</Message></Error><RequestId>" + requestId + "</RequestId></ErrorResponse>";
    }
    respond(exchange, fault.status(), Map.of("Content-Type", List.of(contentType), "x-amzn-RequestId", List.of(requestId)),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static String xmlEscape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static String jsonEscape(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
