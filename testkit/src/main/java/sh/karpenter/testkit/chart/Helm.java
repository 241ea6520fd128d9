package sh.karpenter.testkit.chart;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import sh.karpenter.testkit.scripts.ProjectScript;
import sh.karpenter.testkit.scripts.StartedOnce;

/**
 * The helm binary {@code scripts/control-plane ensure} builds from its Go module into the binary cache
 * (found with {@code scripts/control-plane helm}), and the project's chart, {@code charts/karpenter}.
 *
 * <p>When helm has not been built, {@link #shared()} aborts the calling test, which JUnit reports as
 * skipped; with {@code CI=true} it fails the test instead, as a missing control plane does. Helm runs
 * with its configuration, cache and data directories in a private temporary directory, so it never
 * reads a user's repositories or plugins.
 */
public final class Helm {
  private static final String SCRIPT = "scripts/control-plane";
  private static final long TIMEOUT_MINUTES = 5;
  private static final StartedOnce<Helm> SHARED = new StartedOnce<>(Helm::find);

  /** What a helm command printed: standard output and standard error apart. */
  public record Result(int exitCode, String stdout, String stderr) {
    /** This result, or an {@link IllegalStateException} with the command's output when it failed. */
    public Result orThrow(List<String> args) {
      if (exitCode != 0) {
        throw new IllegalStateException("helm " + String.join(" ", args) + " failed (exit " + exitCode + "):\n" + stderr + stdout);
      }
      return this;
    }
  }

  private final Path binary;
  private final Path chart;
  private final Path home;

  private Helm(Path binary, Path chart, Path home) {
    this.binary = binary;
    this.chart = chart;
    this.home = home;
  }

  /** The helm of this JVM. */
  public static Helm shared() {
    return SHARED.get();
  }

  private static Helm find() {
    Path root = ProjectScript.repositoryRoot(SCRIPT, "helm");
    ProjectScript.Result path = ProjectScript.run(root, SCRIPT, "helm", Map.of());
    if (path.exitCode() != 0) {
      throw ProjectScript.unavailable("helm", path.output().strip(), System.getenv());
    }
    Path binary = Path.of(path.output().strip().lines().reduce((first, second) -> second).orElse(""));
    if (!Files.isExecutable(binary)) {
      throw ProjectScript.unavailable("helm", SCRIPT + " helm printed " + binary + ", which is not executable", System.getenv());
    }
    try {
      Path home = Files.createTempDirectory("karpenter-helm-");
      return new Helm(binary, root.resolve("charts/karpenter"), home);
    } catch (IOException e) {
      throw new UncheckedIOException("creating helm's home directory", e);
    }
  }

  /** The project's chart directory. */
  public Path chart() {
    return chart;
  }

  /** Runs {@code helm args...} and waits for it (at most five minutes). */
  public Result run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(args);
    try {
      Path out = Files.createTempFile(home, "stdout-", ".txt");
      Path err = Files.createTempFile(home, "stderr-", ".txt");
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      Map<String, String> environment = builder.environment();
      environment.remove("KUBECONFIG"); // every cluster command passes --kubeconfig: never a user's cluster
      environment.put("HELM_CONFIG_HOME", home.resolve("config").toString());
      environment.put("HELM_CACHE_HOME", home.resolve("cache").toString());
      environment.put("HELM_DATA_HOME", home.resolve("data").toString());
      Process process = builder.start();
      if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("helm " + String.join(" ", args) + " did not finish in " + TIMEOUT_MINUTES + " minutes");
      }
      Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
      Files.delete(out);
      Files.delete(err);
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException("running helm " + String.join(" ", args), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running helm " + String.join(" ", args), e);
    }
  }

  /**
   * {@code helm template} of the project's chart with {@code --set} values, checked to succeed.
   *
   * @return the rendered manifests
   */
  public String template(String release, String namespace, Map<String, String> values) {
    List<String> args = new ArrayList<>(List.of("template", release, chart.toString(), "--namespace", namespace));
    values.forEach((key, value) -> args.addAll(List.of("--set", key + "=" + value)));
    return run(args).orThrow(args).stdout();
  }
}
