package sh.karpenter.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs the {@code karpenter} command in a child JVM with the test classpath, a heap limit and a
 * wall-clock limit the harness enforces: a run that has not ended by then is killed and reported
 * as hung. Output goes to files, so a chatty child never blocks on a full pipe.
 */
final class ChildCli {
  private ChildCli() {}

  /** How a run ended: its exit code (-1 when it was killed), what it printed, and how long it took. */
  record Run(int exit, String out, String err, Duration took, boolean killed) {
    String output() {
      return out + err;
    }
  }

  /**
   * Runs {@code karpenter args...} and waits at most {@code limit}.
   *
   * @param heap the child's {@code -Xmx}, e.g. {@code 64m}
   * @param env variables to set (null values remove the variable)
   */
  static Run run(Path work, String heap, Duration limit, Map<String, String> env, List<String> jvmArgs, List<String> args)
      throws IOException, InterruptedException {
    return run(work, heap, limit, env, jvmArgs, args, null);
  }

  /**
   * As {@link #run(Path, String, Duration, Map, List, List)}, but ends the child as soon as its
   * output satisfies {@code enough} (for commands that run until stopped, such as the controller).
   */
  static Run run(
      Path work, String heap, Duration limit, Map<String, String> env, List<String> jvmArgs, List<String> args, Predicate<String> enough)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.add("-XX:+UseSerialGC");
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(args);
    Path out = Files.createTempFile(work, "out", ".txt");
    Path err = Files.createTempFile(work, "err", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
    env.forEach((name, value) -> {
      if (value == null) {
        builder.environment().remove(name);
      } else {
        builder.environment().put(name, value);
      }
    });
    long start = System.nanoTime();
    Process process = builder.start();
    boolean ended = false;
    boolean killed = false;
    long deadline = start + limit.toNanos();
    while (!ended) {
      ended = process.waitFor(200, TimeUnit.MILLISECONDS);
      if (!ended && enough != null && enough.test(Files.readString(out) + Files.readString(err))) {
        process.destroy();
        ended = process.waitFor(10, TimeUnit.SECONDS);
        killed = true;
      }
      if (!ended && System.nanoTime() > deadline) {
        killed = true;
        break;
      }
    }
    if (!ended) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    return new Run(ended && !killed ? process.exitValue() : -1, Files.readString(out), Files.readString(err), took, killed);
  }
}
