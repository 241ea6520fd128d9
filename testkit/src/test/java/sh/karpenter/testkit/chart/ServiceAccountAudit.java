package sh.karpenter.testkit.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one ServiceAccount asked the API server, read from the control plane's audit log
 * ({@code scripts/control-plane up} logs every request made with a ServiceAccount token, with the
 * response code). Server-side, so it sees every request whatever the client code does with the
 * answer: an informer that retries a forbidden list forever, a write whose 403 is only logged.
 */
final class ServiceAccountAudit {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One request: verb, resource ({@code group/resource/subresource}, or {@code nonResourceURL <path>}),
   * namespace, name and response code.
   */
  record Request(String verb, String resource, String namespace, String name, int code, String uri) {
    /** {@code verb group/resource[/subresource]}, e.g. {@code create /pods/eviction}. */
    String permission() {
      return verb + " " + resource;
    }
  }

  private final Path log;
  private final String username;

  /** The requests of {@code system:serviceaccount:<namespace>:<name>} in {@code log}. */
  ServiceAccountAudit(Path log, String namespace, String name) {
    this.log = log;
    this.username = "system:serviceaccount:" + namespace + ":" + name;
  }

  String username() {
    return username;
  }

  /** Every request of the ServiceAccount logged so far. */
  List<Request> requests() {
    if (!Files.exists(log)) {
      throw new IllegalStateException(log + " does not exist: the control plane was started without an audit log "
          + "(by an older scripts/control-plane); restart it: scripts/control-plane down && scripts/control-plane up");
    }
    List<Request> requests = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.isBlank() || !line.contains(username)) {
          continue;
        }
        JsonNode event = JSON.readTree(line);
        if (!username.equals(event.path("user").path("username").asText())) {
          continue;
        }
        JsonNode ref = event.path("objectRef");
        String resource = ref.isMissingNode()
            ? "nonResourceURL " + event.path("requestURI").asText() // discovery, /version
            : ref.path("apiGroup").asText("") + "/" + ref.path("resource").asText("")
                + (ref.hasNonNull("subresource") ? "/" + ref.path("subresource").asText() : "");
        requests.add(new Request(event.path("verb").asText(), resource, ref.path("namespace").asText(""),
            ref.path("name").asText(""), event.path("responseStatus").path("code").asInt(), event.path("requestURI").asText()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + log, e);
    }
    return requests;
  }

  /** The requests the API server refused with 403 Forbidden. */
  List<Request> forbidden() {
    return requests().stream().filter(r -> r.code() == 403).toList();
  }

  /** The distinct {@code verb resource} pairs the ServiceAccount used, sorted. */
  Set<String> permissionsUsed() {
    Set<String> used = new TreeSet<>();
    requests().forEach(r -> used.add(r.permission()));
    return used;
  }
}
