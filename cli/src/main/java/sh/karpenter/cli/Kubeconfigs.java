package sh.karpenter.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and checks the kubeconfig {@code karpenter controller} connects with, so that a missing,
 * empty, unreadable or inconsistent one is one line naming the file and what is wrong with it
 * (rather than the client library's exception, or a silent fallback to another cluster).
 *
 * <p>As kubectl: {@code --kubeconfig} (default {@code $KUBECONFIG}) names the file; without it, the
 * in-cluster service account is used when the process runs in a pod, else {@code ~/.kube/config}.
 * A {@code $KUBECONFIG}-style list of files is accepted as the client library merges it, each file
 * checked to exist and be YAML; a single file is checked as kubectl checks it: its {@code
 * current-context} must be set and name one of its contexts, whose cluster (with a {@code server})
 * and user must be in the file.
 */
final class Kubeconfigs {
  /** No kubeconfig is this large; a larger file is not read. */
  static final long MAX_BYTES = 16L << 20;

  private static final String SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  private static final YAMLMapper YAML = new YAMLMapper();

  private Kubeconfigs() {}

  /** Where the client configuration came from, for log lines: {@code kubeconfig /home/me/.kube/config, context kind}. */
  record Loaded(Config config, String source) {}

  /**
   * The client configuration for {@code kubeconfig} (null or empty: the defaults above).
   *
   * @throws IllegalArgumentException one line naming the file (or that there is none) and the problem
   */
  static Loaded load(Path kubeconfig) {
    if (kubeconfig == null || kubeconfig.toString().isEmpty()) {
      if (System.getenv("KUBERNETES_SERVICE_HOST") != null && Files.exists(Path.of(SERVICE_ACCOUNT_TOKEN))) {
        return new Loaded(Config.autoConfigure(null), "the in-cluster service account");
      }
      Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
      if (!Files.exists(home)) {
        throw new IllegalArgumentException(
            "--kubeconfig: no kubeconfig: pass --kubeconfig or set KUBECONFIG (not running in a cluster, and " + home + " does not exist)");
      }
      return single(home);
    }
    String value = kubeconfig.toString();
    if (value.contains(File.pathSeparator)) {
      List<String> files = new ArrayList<>();
      for (String part : value.split(File.pathSeparator)) {
        if (!part.isEmpty()) {
          read(Path.of(part));
          files.add(part);
        }
      }
      System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, String.join(File.pathSeparator, files));
      return new Loaded(Config.autoConfigure(null), "kubeconfig " + String.join(File.pathSeparator, files));
    }
    return single(kubeconfig);
  }

  private static Loaded single(Path file) {
    JsonNode tree = read(file);
    String current = tree.path("current-context").asText("");
    List<String> contexts = names(tree.path("contexts"));
    if (current.isEmpty()) {
      throw invalid(file, "no current-context is set" + (contexts.isEmpty() ? " and there are no contexts" : " (contexts: " + String.join(", ", contexts) + ")"));
    }
    JsonNode context = named(tree.path("contexts"), current).path("context");
    if (context.isMissingNode()) {
      throw invalid(file, "current-context \"" + current + "\" is not one of its contexts" + (contexts.isEmpty() ? " (it has none)" : " (" + String.join(", ", contexts) + ")"));
    }
    String clusterName = context.path("cluster").asText("");
    JsonNode cluster = named(tree.path("clusters"), clusterName).path("cluster");
    if (cluster.isMissingNode()) {
      throw invalid(file, "context \"" + current + "\" names cluster \"" + clusterName + "\", which is not in the file");
    }
    if (cluster.path("server").asText("").isEmpty()) {
      throw invalid(file, "cluster \"" + clusterName + "\" has no server");
    }
    String user = context.path("user").asText("");
    if (!user.isEmpty() && named(tree.path("users"), user).isMissingNode()) {
      throw invalid(file, "context \"" + current + "\" names user \"" + user + "\", which is not in the file");
    }
    try {
      return new Loaded(Config.fromKubeconfig(current, file.toFile()), "kubeconfig " + file + ", context " + current);
    } catch (RuntimeException e) {
      throw invalid(file, "cannot be used: " + firstLine(e.getMessage()));
    }
  }

  /** The file as a YAML mapping. */
  private static JsonNode read(Path file) {
    if (!Files.exists(file)) {
      throw invalid(file, "no such file");
    }
    if (!Files.isRegularFile(file)) {
      throw invalid(file, Files.isDirectory(file) ? "a directory, not a kubeconfig file" : "not a regular file");
    }
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw invalid(file, "larger than " + (MAX_BYTES >> 20) + " MiB; not a kubeconfig");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw invalid(file, "cannot read: " + e.getMessage());
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw invalid(file, "not a kubeconfig: not UTF-8 text");
    }
    if (text.isBlank()) {
      throw invalid(file, "empty");
    }
    JsonNode tree;
    try {
      tree = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
      throw invalid(file, "not valid YAML: " + firstLine(e.getOriginalMessage()) + where);
    }
    if (tree == null || !tree.isObject()) {
      throw invalid(file, "not a kubeconfig: expected a mapping with clusters, users and contexts");
    }
    return tree;
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    for (JsonNode entry : list) {
      names.add(entry.path("name").asText(""));
    }
    return names;
  }

  /** The entry of a kubeconfig list ({@code clusters}, {@code users}, {@code contexts}) with this name, or a missing node. */
  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode entry : list) {
      if (name.equals(entry.path("name").asText(null))) {
        return entry;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  private static IllegalArgumentException invalid(Path file, String problem) {
    return new IllegalArgumentException("--kubeconfig " + file + ": " + problem);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "invalid";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
