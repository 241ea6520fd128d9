package sh.karpenter.testkit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the repository readable on its own: no file points outside it at the spec it was built from,
 * and every reference to a page under {@code docs/} names a page and heading that exist.
 *
 * <ul>
 *   <li>no tracked file mentions the spec directory beside the repository or the spec files that
 *       used to live there (the behaviour is described under {@code docs/behaviour/});
 *   <li>every {@code docs/<page>.md} or {@code docs/<page>.md#<anchor>} written anywhere (code
 *       comments included) names an existing file and, with an anchor, one of its headings;
 *   <li>every relative link in a Markdown file ({@code [text](path#anchor)}) resolves, anchors
 *       included.
 * </ul>
 *
 * Anchors are GitHub's: the heading text lower-cased, punctuation other than {@code -} and {@code _}
 * dropped, spaces turned into hyphens, {@code -1}, {@code -2} … appended to repeats.
 */
class DocumentationReferencesTest {

  /** Built from parts so that this file does not trip its own check. */
  private static final List<String> FORBIDDEN =
      List.of("../" + "shared", "karpenter-" + "behaviour.md", "aws-" + "provider.md");

  private static final Pattern DOCS_REFERENCE =
      Pattern.compile("(?<![\\w./-])(docs/[\\w./-]+?\\.md)(?:#([\\w-]+))?");
  private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

  private static Path root;
  private static Map<String, String> texts;
  private static final Map<Path, Set<String>> ANCHORS = new HashMap<>();

  @BeforeAll
  static void readRepository() throws IOException, InterruptedException {
    root = repositoryRoot();
    texts = new HashMap<>();
    for (String file : trackedFiles(root)) {
      Path path = root.resolve(file);
      if (!Files.isRegularFile(path) || Files.isSymbolicLink(path)) {
        continue;
      }
      try {
        texts.put(file, StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(path))).toString());
      } catch (CharacterCodingException binary) {
        // not text
      }
    }
  }

  /** One line of a tracked text file. */
  private record Line(String file, int number, String text) {
    String at() {
      return file + ":" + number + ": ";
    }
  }

  private static Stream<Line> lines() {
    return texts.entrySet().stream()
        .flatMap(e -> {
          String[] lines = e.getValue().split("\n", -1);
          return IntStream.range(0, lines.length).mapToObj(i -> new Line(e.getKey(), i + 1, lines[i]));
        });
  }

  @Test
  void noFileCitesTheSpecOutsideTheRepository() {
    List<String> found = new ArrayList<>();
    lines().forEach(line -> {
      for (String forbidden : FORBIDDEN) {
        if (line.text().contains(forbidden)) {
          found.add(line.at() + forbidden + " (cite a page under docs/ instead)");
        }
      }
    });
    assertThat(found).as("references to files outside the repository").isEmpty();
  }

  @Test
  void everyDocsReferenceNamesAnExistingPageAndHeading() {
    List<String> broken = new ArrayList<>();
    lines().forEach(line -> {
      Matcher m = DOCS_REFERENCE.matcher(line.text());
      while (m.find()) {
        String problem = problem(root.resolve(m.group(1)), m.group(2));
        if (problem != null) {
          broken.add(line.at() + m.group(0) + ": " + problem);
        }
      }
    });
    assertThat(broken).as("docs/ references to missing pages or headings").isEmpty();
  }

  @Test
  void everyRelativeMarkdownLinkResolves() {
    List<String> broken = new ArrayList<>();
    texts.forEach((file, text) -> {
      if (!file.endsWith(".md")) {
        return;
      }
      Path self = root.resolve(file);
      String[] lines = text.split("\n", -1);
      boolean fenced = false;
      for (int i = 0; i < lines.length; i++) {
        if (lines[i].strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher m = MARKDOWN_LINK.matcher(lines[i]);
        while (m.find()) {
          String link = m.group(1);
          if (link.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            continue; // https:, mailto: ...
          }
          int hash = link.indexOf('#');
          String target = hash < 0 ? link : link.substring(0, hash);
          String anchor = hash < 0 ? null : link.substring(hash + 1);
          Path resolved = target.isEmpty() ? self : self.getParent().resolve(target).normalize();
          String problem = problem(resolved, anchor);
          if (problem != null) {
            broken.add(file + ":" + (i + 1) + ": " + link + ": " + problem);
          }
        }
      }
    });
    assertThat(broken).as("broken relative Markdown links").isEmpty();
  }

  @Test
  void anchorsFollowGitHub() {
    assertThat(slug("Single-node consolidation")).isEqualTo("single-node-consolidation");
    assertThat(slug("Well-known labels, annotations, taints and finalizers"))
        .isEqualTo("well-known-labels-annotations-taints-and-finalizers");
    assertThat(slug("`nodeclaim.lifecycle` and [Launch](x.md)")).isEqualTo("nodeclaimlifecycle-and-launch");
    assertThat(slug("Caveat: one scheduler across iterations")).isEqualTo("caveat-one-scheduler-across-iterations");
  }

  /** Why {@code anchor} of {@code target} does not resolve, or null when it does. */
  private static String problem(Path target, String anchor) {
    if (!target.startsWith(root) || !Files.exists(target)) {
      return "no such file";
    }
    if (anchor == null || anchor.isEmpty() || !target.toString().endsWith(".md")) {
      return null;
    }
    return anchors(target).contains(anchor) ? null : "no heading with anchor #" + anchor + " in " + root.relativize(target);
  }

  private static Set<String> anchors(Path page) {
    return ANCHORS.computeIfAbsent(page, p -> {
      Set<String> anchors = new HashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      boolean fenced = false;
      try {
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
          if (line.strip().startsWith("```")) {
            fenced = !fenced;
            continue;
          }
          Matcher m = HEADING.matcher(line);
          if (!fenced && m.matches()) {
            String slug = slug(m.group(2));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return anchors;
    });
  }

  /** GitHub's heading anchor. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    text = text.strip().toLowerCase(Locale.ROOT);
    text = text.replaceAll("[^\\p{L}\\p{N}\\s_-]", "");
    return text.replace(' ', '-');
  }

  /** The nearest ancestor of the working directory holding {@code scripts/java-home}. */
  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("scripts/java-home"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root (scripts/java-home) above " + Path.of("").toAbsolutePath());
  }

  /** {@code git ls-files}, or, without git, every file outside {@code .git} and build output. */
  private static List<String> trackedFiles(Path root) throws IOException, InterruptedException {
    if (Files.exists(root.resolve(".git"))) {
      try {
        Process git = new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z").redirectErrorStream(false).start();
        byte[] out = git.getInputStream().readAllBytes();
        if (git.waitFor(60, TimeUnit.SECONDS) && git.exitValue() == 0) {
          List<String> files = new ArrayList<>();
          for (String f : new String(out, StandardCharsets.UTF_8).split("\0")) {
            if (!f.isEmpty()) {
              files.add(f);
            }
          }
          return files;
        }
      } catch (IOException noGit) {
        // fall back to walking the tree
      }
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .map(root::relativize)
          .filter(p -> {
            for (Path part : p) {
              String name = part.toString();
              if (name.equals(".git") || name.equals("target") || name.equals("node_modules")) {
                return false;
              }
            }
            return true;
          })
          .map(p -> p.toString().replace('\\', '/'))
          .toList();
    }
  }
}
