package sh.karpenter.cli.plan;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Work {@code karpenter plan} runs on a thread of its own while the main thread does something else
 * (the catalogue while the manifests are read): on a fresh JVM both sides are mostly class loading
 * and interpreted code, and a machine has cores.
 */
public final class BackgroundWork {
  private BackgroundWork() {}

  /** Runs {@code work} on a new daemon thread named {@code name} (the JVM's exit never waits for it). */
  public static <T> CompletableFuture<T> start(String name, Supplier<T> work) {
    return CompletableFuture.supplyAsync(
        work,
        task -> {
          Thread thread = new Thread(task, name);
          thread.setDaemon(true);
          thread.start();
        });
  }

  /** The future's value, or what it threw, rethrown as it was thrown. */
  public static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error cause) {
        throw cause;
      }
      throw e;
    }
  }
}
