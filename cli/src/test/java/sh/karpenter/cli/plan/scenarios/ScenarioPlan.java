package sh.karpenter.cli.plan.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import sh.karpenter.cli.Main;
import sh.karpenter.core.wellknown.Labels;

/**
 * A {@code karpenter plan --output json} run, in-process, on scenario manifests, already checked
 * against the whole contract by {@link PlanContractChecker}; the accessors answer the questions
 * scenario tests ask of it (where did a pod land, why was it not placed).
 */
final class ScenarioPlan {
  private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  final List<Path> inputs;
  final JsonNode json;
  /** What the plan wrote to stderr (warnings). */
  final String stderr;

  private ScenarioPlan(List<Path> inputs, JsonNode json, String stderr) {
    this.inputs = List.copyOf(inputs);
    this.json = json;
    this.stderr = stderr;
  }

  /** Plans the scenario files under {@code src/test/resources/scenarios/} and checks the contract. */
  static ScenarioPlan ofResources(String... names) {
    List<Path> paths = new ArrayList<>();
    for (String name : names) {
      URL url = Objects.requireNonNull(ScenarioPlan.class.getResource("/scenarios/" + name), name);
      try {
        paths.add(Path.of(url.toURI()));
      } catch (URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }
    return of(paths);
  }

  /** Plans the given files or directories and checks the contract. */
  static ScenarioPlan of(List<Path> paths) {
    List<String> args = new ArrayList<>(List.of("plan", "--output", "json"));
    paths.forEach(p -> args.addAll(List.of("-f", p.toString())));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args.toArray(String[]::new));
    assertThat(exit).as("exit code; stderr: %s", err).isZero();
    JsonNode json;
    try {
      json = JSON.readTree(out.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    PlanContractChecker.assertHolds(paths, json);
    return new ScenarioPlan(paths, json, err.toString());
  }

  List<JsonNode> claims() {
    List<JsonNode> claims = new ArrayList<>();
    json.get("nodeClaims").forEach(claims::add);
    return claims;
  }

  List<JsonNode> claimsOf(String nodePool) {
    return claims().stream().filter(c -> c.path("nodePool").asText().equals(nodePool)).toList();
  }

  /** The new NodeClaim the pod is placed on, or null. */
  JsonNode claimOf(String pod) {
    for (JsonNode claim : json.get("nodeClaims")) {
      for (JsonNode p : claim.path("pods")) {
        if (p.asText().equals(pod)) {
          return claim;
        }
      }
    }
    return null;
  }

  /** The existing node the pod is placed on, or null. */
  String existingNodeOf(String pod) {
    for (JsonNode node : json.get("existingNodes")) {
      for (JsonNode p : node.path("pods")) {
        if (p.asText().equals(pod)) {
          return node.path("name").asText();
        }
      }
    }
    return null;
  }

  /** Why the pod is unschedulable, or null when it was placed. */
  String reasonOf(String pod) {
    for (JsonNode entry : json.get("unschedulable")) {
      if (entry.path("pod").asText().equals(pod)) {
        return entry.path("reason").asText();
      }
    }
    return null;
  }

  Set<String> unschedulablePods() {
    Set<String> pods = new TreeSet<>();
    json.get("unschedulable").forEach(u -> pods.add(u.path("pod").asText()));
    return pods;
  }

  /** The unschedulable entries as JSON, for assertion messages. */
  String unschedulableReport() {
    return json.get("unschedulable").toString();
  }

  /** The label of the node the pod landed on (new NodeClaim only). */
  String claimLabel(String pod, String key) {
    JsonNode claim = claimOf(pod);
    return claim == null ? null : claim.at("/labels").path(key).asText(null);
  }

  String zoneOf(String pod) {
    return claimLabel(pod, Labels.ZONE);
  }

  int pending() {
    return json.at("/summary/pendingPods").asInt();
  }

  int scheduled() {
    return json.at("/summary/scheduledPods").asInt();
  }
}
