package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * {@code provisioner.trigger.node}: a Node carrying the {@code karpenter.sh/disrupted} taint is
 * being disrupted or terminated, so its pods will need a new home; it triggers provisioning on every
 * change and, through {@link #resync()}, every {@link #RESYNC} while it keeps the taint (upstream
 * requeues it every 10 s).
 */
public final class NodeTrigger {
  /** How often a disrupted node triggers again. */
  public static final Duration RESYNC = Duration.ofSeconds(10);

  private final Batcher batcher;
  private final Set<String> disrupted = ConcurrentHashMap.newKeySet();

  public NodeTrigger(Batcher batcher) {
    this.batcher = batcher;
  }

  /** Adds the node handler (before {@link Informers#start()}). */
  public void register(Informers informers) {
    informers.nodes().addEventHandler(new ResourceEventHandler<Node>() {
      @Override
      public void onAdd(Node node) {
        observe(node);
      }

      @Override
      public void onUpdate(Node before, Node node) {
        observe(node);
      }

      @Override
      public void onDelete(Node node, boolean finalStateUnknown) {
        disrupted.remove(node.getMetadata().getUid());
      }
    });
  }

  void observe(Node node) {
    String uid = node.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    if (isDisrupted(node)) {
      disrupted.add(uid);
      batcher.trigger(uid);
    } else {
      disrupted.remove(uid);
    }
  }

  /** Triggers for every node still disrupted; the loop calls it again after {@link #RESYNC}. */
  public Result resync() {
    for (String uid : List.copyOf(disrupted)) {
      batcher.trigger(uid);
    }
    return Result.requeueAfter(RESYNC);
  }

  /** True when the node carries {@code karpenter.sh/disrupted:NoSchedule}. */
  public static boolean isDisrupted(Node node) {
    return node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream()
            .anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()) && "NoSchedule".equals(t.getEffect()));
  }
}
