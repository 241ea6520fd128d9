package sh.karpenter.testkit.scripts;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * Runs the project's scripts that start real parts for tests ({@code scripts/control-plane},
 * {@code scripts/aws-emulator}) from a test JVM, and says what a test does when such a part cannot
 * be had: skip on a developer's machine, fail under {@code CI=true}.
 */
public final class ProjectScript {

  /** A script's exit status and its combined standard output and error. */
  public record Result(int exitCode, String output) {}

  private ProjectScript() {}

  /**
   * The checkout: the nearest directory above the working directory holding {@code script}.
   *
   * @param part what the script starts, for the message when there is none (e.g. "real control plane")
   */
  public static Path repositoryRoot(String script, String part) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isExecutable(dir.resolve(script))) {
        return dir;
      }
    }
    throw unavailable(part, "no " + script + " above " + Path.of("").toAbsolutePath(), System.getenv());
  }

  /**
   * Runs {@code root/script command} in {@code root} with {@code environment} added to this JVM's,
   * standard input from {@code /dev/null}, and waits for it. The processes the scripts start write to
   * their own log files, so the pipe closes when the script exits; the scripts bound their own waits.
   */
  public static Result run(Path root, String script, String command, Map<String, String> environment) {
    ProcessBuilder builder = new ProcessBuilder(root.resolve(script).toString(), command)
        .directory(root.toFile())
        .redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(environment);
    try {
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(process.waitFor(), output);
    } catch (IOException e) {
      throw new UncheckedIOException("running " + script + " " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script + " " + command, e);
    }
  }

  /**
   * Runs {@code script down} with {@code environment} when the JVM exits, for a part this JVM started
   * with {@code up}; a failing {@code down} is reported on standard error.
   */
  public static void downAtExit(Path root, String script, Map<String, String> environment) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      Result down = run(root, script, "down", environment);
      if (down.exitCode() != 0) {
        System.err.println(script + " down failed:\n" + down.output());
      }
    }, script + " down"));
  }

  /**
   * What a fixture throws when {@code part} cannot be had: an abort, which JUnit reports as a skip, on
   * a developer's machine; a failure when {@code CI=true}, where a skipped integration test would let
   * the run pass without testing anything.
   */
  public static RuntimeException unavailable(String part, String reason, Map<String, String> environment) {
    if ("true".equals(environment.get("CI"))) {
      return new IllegalStateException(
          part + " unavailable, and CI=true, so this test fails instead of skipping: " + reason);
    }
    return new TestAbortedException(part + " unavailable, skipping (with CI=true this fails instead): " + reason);
  }
}
