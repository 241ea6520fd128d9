package sh.karpenter.cli.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile and {@code scripts/image} declare the same image: user, working directory,
 * entrypoint, environment, ports and title, and the same layout (the Dockerfile's build stage stages
 * /opt/karpenter with {@code scripts/image stage}, and its final stage copies exactly the directories
 * the entrypoint uses). Docker is not available to the tests, so this compares declared values: the
 * final stage's instructions against {@code scripts/image declared}.
 */
class DockerfileTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static JsonNode declared;
  private static List<String[]> buildStage;
  private static List<String[]> finalStage;

  @BeforeAll
  static void read() throws Exception {
    Path root = repositoryRoot();
    Process process = new ProcessBuilder(root.resolve("scripts/image").toString(), "declared").directory(root.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("scripts/image declared").isZero();
    declared = JSON.readTree(out);
    List<String[]> instructions = instructions(Files.readString(root.resolve("Dockerfile"), StandardCharsets.UTF_8));
    int lastFrom = 0;
    for (int i = 0; i < instructions.size(); i++) {
      if (instructions.get(i)[0].equals("FROM")) {
        lastFrom = i;
      }
    }
    assertThat(lastFrom).as("the Dockerfile has a build stage and a final stage").isPositive();
    buildStage = instructions.subList(0, lastFrom);
    finalStage = instructions.subList(lastFrom, instructions.size());
  }

  @Test
  void userWorkingDirectoryAndEntrypointAgree() throws IOException {
    assertThat(single("USER")).isEqualTo(declared.get("User").asText());
    assertThat(single("WORKDIR")).isEqualTo(declared.get("WorkingDir").asText());
    assertThat(JSON.readTree(single("ENTRYPOINT"))).isEqualTo(declared.get("Entrypoint"));
  }

  @Test
  void environmentAgrees() {
    Map<String, String> dockerfile = new LinkedHashMap<>();
    Pattern assignment = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"([^\"]*)\"");
    for (String[] env : all("ENV")) {
      Matcher m = assignment.matcher(env[1]);
      assertThat(m.matches()).as("ENV %s is written KEY=\"value\"", env[1]).isTrue();
      dockerfile.put(m.group(1), m.group(2));
    }
    Map<String, String> script = new LinkedHashMap<>();
    declared.get("Env").forEach(e -> script.put(e.asText().substring(0, e.asText().indexOf('=')), e.asText().substring(e.asText().indexOf('=') + 1)));
    assertThat(dockerfile).isEqualTo(script);
  }

  @Test
  void portsAndTitleAgree() {
    Set<String> ports = new HashSet<>();
    for (String port : single("EXPOSE").split("\\s+")) {
      ports.add(port.contains("/") ? port : port + "/tcp");
    }
    Set<String> declaredPorts = new HashSet<>();
    declared.get("ExposedPorts").fieldNames().forEachRemaining(declaredPorts::add);
    assertThat(ports).isEqualTo(declaredPorts);
    assertThat(single("LABEL")).isEqualTo("org.opencontainers.image.title=\"" + declared.get("Labels").get("org.opencontainers.image.title").asText() + "\"");
  }

  @Test
  void layoutAgrees() {
    assertThat(buildStage).anySatisfy(i -> assertThat(String.join(" ", i)).isEqualTo("RUN scripts/image stage /out"));
    List<String> copied = new ArrayList<>();
    for (String[] copy : all("COPY")) {
      String[] words = copy[1].split("\\s+");
      if (words[0].equals("--from=build")) {
        assertThat(words).as("COPY %s copies one staged directory to the same path", copy[1]).hasSize(3);
        assertThat(words[1]).isEqualTo("/out" + words[2]);
        copied.add(words[2]);
      } else {
        assertThat(words).as("the final stage's other COPY installs the image's users").contains("image/rootfs/etc/passwd", "image/rootfs/etc/group");
      }
    }
    List<String> used = new ArrayList<>();
    JsonNode entrypoint = declared.get("Entrypoint");
    used.add(entrypoint.get(0).asText().replaceFirst("/bin/java$", ""));
    for (int i = 0; i < entrypoint.size() - 1; i++) {
      if (entrypoint.get(i).asText().equals("-cp")) {
        for (String element : entrypoint.get(i + 1).asText().split(":")) {
          used.add(element.replaceFirst("/\\*$", ""));
        }
      }
    }
    assertThat(copied).containsExactlyInAnyOrderElementsOf(used);
  }

  private static String single(String keyword) {
    List<String[]> found = all(keyword);
    assertThat(found).as("the final stage has one %s", keyword).hasSize(1);
    return found.get(0)[1];
  }

  private static List<String[]> all(String keyword) {
    return finalStage.stream().filter(i -> i[0].equals(keyword)).toList();
  }

  /** The Dockerfile's instructions as {keyword, arguments}, continuation lines joined, comments dropped. */
  static List<String[]> instructions(String dockerfile) {
    List<String[]> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : dockerfile.lines().toList()) {
      if (line.strip().startsWith("#") || (line.isBlank() && current.isEmpty())) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      String text = current.toString().strip();
      current.setLength(0);
      int space = text.indexOf(' ');
      out.add(new String[] {text.substring(0, space).toUpperCase(java.util.Locale.ROOT), text.substring(space + 1).strip()});
    }
    return out;
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("Dockerfile")) && Files.isExecutable(dir.resolve("scripts/image"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no Dockerfile and scripts/image above " + Path.of("").toAbsolutePath());
  }
}
