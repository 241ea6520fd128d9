package sh.karpenter.cli.image;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import sh.karpenter.testkit.scripts.ProjectScript;

/**
 * Runs a command of an unpacked image as a container runtime would, without one: {@code unshare}
 * makes a mount and PID namespace, mounts /proc, /dev, a tmpfs on /tmp and the host's /etc/hosts and
 * /etc/resolv.conf into the unpacked root, remounts that root read-only, and {@code chroot}s into it
 * with only the image's environment (plus HOME and HOSTNAME; {@code env -i} runs outside the
 * image, which has no {@code env}). As root (CI, these machines) the command
 * runs as the image's user ({@code --userspec}); as another user the namespaces are made with
 * {@code --map-root-user}, and the command runs as that namespace's root, because an unprivileged
 * user namespace maps only the caller's own uid (docs/image.md#verifying-the-image). The network is
 * the host's, so the controller reaches the control plane on loopback.
 */
final class ImageSandbox {

  /** Where {@link #run} puts the kubeconfig inside the image (on its tmpfs). */
  static final String KUBECONFIG_IN_IMAGE = "/tmp/kubeconfig";

  private static final String SETUP = String.join("\n",
      "set -eu",
      "r=$1 kubeconfig=$2; shift 2",
      "mount --bind \"$r\" \"$r\"",
      "mount -t proc proc \"$r/proc\"",
      "mount --rbind /dev \"$r/dev\"",
      "mount -t tmpfs -o mode=1777 tmpfs \"$r/tmp\"",
      "for f in hosts resolv.conf; do [ ! -f /etc/$f ] || mount --bind /etc/$f \"$r/etc/$f\"; done",
      "if [ -n \"$kubeconfig\" ]; then cp \"$kubeconfig\" \"$r" + KUBECONFIG_IN_IMAGE + "\"; chmod 0644 \"$r" + KUBECONFIG_IN_IMAGE + "\"; fi",
      "mount -o remount,bind,ro \"$r\"",
      "exec /usr/bin/env -i \"$@\"");

  /** How a run ended: its exit code (-1 when the harness stopped it) and its output. */
  record Run(int exit, String output) {}

  private ImageSandbox() {}

  private static boolean root() throws IOException, InterruptedException {
    return exec(List.of("id", "-u"), Path.of(".")).strip().equals("0");
  }

  private static List<String> unshare() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private"));
    if (!root()) {
      command.add(1, "--map-root-user");
    }
    return command;
  }

  /**
   * Fails (CI) or skips (a developer's machine) the calling test when namespaces cannot be made here.
   */
  static void checkAvailable() throws IOException, InterruptedException {
    List<String> probe = new ArrayList<>(unshare());
    probe.add("true");
    Process process = new ProcessBuilder(probe).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw ProjectScript.unavailable("mount and PID namespaces (" + String.join(" ", probe) + ")", output.strip(), System.getenv());
    }
  }

  /**
   * Runs {@code command} in the image unpacked at {@code rootfs} with {@code config}'s environment and
   * user, for at most {@code limit}; stops it as soon as {@code enough} holds for its output so far.
   *
   * @param kubeconfig copied to {@link #KUBECONFIG_IN_IMAGE}, or null
   */
  static Run run(Path rootfs, JsonNode config, Path kubeconfig, List<String> command, Duration limit, Predicate<String> enough)
      throws IOException, InterruptedException {
    JsonNode c = config.get("config");
    List<String> full = new ArrayList<>(unshare());
    full.addAll(List.of("sh", "-c", SETUP, "sh", rootfs.toString(), kubeconfig == null ? "" : kubeconfig.toString()));
    c.get("Env").forEach(env -> full.add(env.asText()));
    full.add("HOME=/home/nonroot");
    full.add("HOSTNAME=karpenter-image-test");
    full.add(exec(List.of("sh", "-c", "command -v chroot"), Path.of(".")).strip());
    if (root()) {
      full.add("--userspec=" + c.get("User").asText());
    }
    full.add(rootfs.toString());
    full.addAll(command);
    Path out = Files.createTempFile("image-run", ".txt");
    Process process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    long deadline = System.nanoTime() + limit.toNanos();
    try {
      while (!process.waitFor(500, TimeUnit.MILLISECONDS)) {
        if (enough.test(Files.readString(out)) || System.nanoTime() > deadline) {
          return new Run(-1, Files.readString(out)); // stopped below
        }
      }
      return new Run(process.exitValue(), Files.readString(out));
    } finally {
      stop(process);
      Files.deleteIfExists(out);
    }
  }

  /**
   * Kills the run's processes, the command's descendants before the command, and waits for them to
   * end (at once when they have). Stopping {@code unshare} alone is not enough: {@code --kill-child}
   * sends its child a parent-death signal, which {@code chroot --userspec} clears when it changes the
   * user (prctl(2)); the controller went on running, reparented to init, against the shared control
   * plane (and launched capacity for the next tests' pods).
   */
  private static void stop(Process process) throws InterruptedException {
    List<ProcessHandle> processes = new ArrayList<>(process.descendants().toList());
    processes.add(process.toHandle());
    for (ProcessHandle handle : processes) {
      handle.destroyForcibly();
    }
    for (ProcessHandle handle : processes) {
      try {
        handle.onExit().get(15, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("process " + handle.pid() + " of the image run did not end", e);
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static void deleteTree(Path dir) throws IOException, InterruptedException {
    if (Files.exists(dir)) {
      exec(List.of("rm", "-rf", dir.toString()), Path.of("."));
    }
  }

  static JsonNode readJson(Path file) throws IOException {
    return ContainerImageIT.json().readTree(file.toFile());
  }

  /** Runs a host command, failing with its output when it exits non-zero; returns its output. */
  static String exec(List<String> command, Path dir) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue() + "):\n" + output);
    }
    return output;
  }
}
