package sh.karpenter.providers.aws.interruption;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * Upstream's {@code workqueue.ParallelizeUntil(ctx, n, len, f)} for the interruption controllers:
 * runs a task for every item on virtual threads, at most {@code parallelism} at once, and waits for all
 * of them; afterwards the first failure is thrown, naming how many failed, the others suppressed in it.
 */
final class Parallel {
  private Parallel() {}

  /**
   * @param threads the name prefix of the virtual threads
   * @param what the items, plural, for the failure's message ({@code interruption messages})
   */
  static <T> void forEach(String threads, String what, List<T> items, int parallelism, Consumer<T> task) throws InterruptedException {
    List<RuntimeException> failures = new ArrayList<>();
    Semaphore slots = new Semaphore(parallelism);
    try (ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(threads + "-", 0).factory())) {
      List<Future<?>> started = new ArrayList<>();
      for (T item : items) {
        slots.acquire();
        started.add(workers.submit(() -> {
          try {
            task.accept(item);
          } finally {
            slots.release();
          }
        }));
      }
      for (Future<?> done : started) {
        try {
          done.get();
        } catch (ExecutionException e) {
          failures.add(e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause()));
        }
      }
    }
    if (!failures.isEmpty()) {
      RuntimeException first = failures.getFirst();
      failures.stream().skip(1).forEach(first::addSuppressed);
      throw new IllegalStateException(failures.size() + " of " + items.size() + " " + what + " failed, first: " + first.getMessage(), first);
    }
  }
}
