package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.state.ClusterState;

/**
 * {@code provisioner.trigger.pod}: turns provisionable pods into batcher triggers. A pod is
 * provisionable when kube-scheduler has given up on it ({@code PodScheduled=False}, reason {@code
 * Unschedulable}), it has no node, is not terminating or finished, not preempting, not a DaemonSet
 * pod and not a mirror pod. Each is acknowledged in cluster state when first seen (the start of its
 * scheduling-decision latency).
 *
 * <p>Upstream requeues every provisionable pod every 10 s; here the informer handler triggers on
 * every change and {@link #resync()} (run by a loop every {@link #RESYNC}) triggers every pod still
 * provisionable, so a pod whose NodeClaim failed to launch is tried again. A NodePool that is added
 * or whose spec changes (new generation) triggers every provisionable pod too, and so does one whose
 * {@code Ready} condition turns True, since provisioning uses only Ready NodePools.
 */
public final class PodTrigger {
  /** How often every still-provisionable pod triggers again. */
  public static final Duration RESYNC = Duration.ofSeconds(10);

  private final Batcher batcher;
  private final ClusterState state;
  private final Set<String> provisionable = ConcurrentHashMap.newKeySet();

  public PodTrigger(Batcher batcher, ClusterState state) {
    this.batcher = batcher;
    this.state = state;
  }

  /** Adds the pod and NodePool handlers (before {@link Informers#start()}). */
  public void register(Informers informers) {
    informers.pods().addEventHandler(new ResourceEventHandler<Pod>() {
      @Override
      public void onAdd(Pod pod) {
        observe(pod);
      }

      @Override
      public void onUpdate(Pod before, Pod pod) {
        observe(pod);
      }

      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        provisionable.remove(pod.getMetadata().getUid());
      }
    });
    informers.nodePools().addEventHandler(new ResourceEventHandler<NodePool>() {
      @Override
      public void onAdd(NodePool pool) {
        resync();
      }

      @Override
      public void onUpdate(NodePool before, NodePool pool) {
        if (retriggers(before, pool)) {
          resync();
        }
      }

      @Override
      public void onDelete(NodePool pool, boolean finalStateUnknown) {}
    });
  }

  /** A NodePool update that may let pending pods schedule: a new spec generation, or Ready turning True. */
  static boolean retriggers(NodePool before, NodePool after) {
    return !Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration())
        || (ClusterState.notReady(before).isPresent() && ClusterState.notReady(after).isEmpty());
  }

  /** Handles one pod add or update. */
  void observe(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    if (isProvisionable(pod)) {
      provisionable.add(uid);
      state.ackPod(uid);
      batcher.trigger(uid);
    } else {
      provisionable.remove(uid);
    }
  }

  /** Triggers every pod that is still provisionable; the loop calls it again after {@link #RESYNC}. */
  public Result resync() {
    for (String uid : List.copyOf(provisionable)) {
      batcher.trigger(uid);
    }
    return Result.requeueAfter(RESYNC);
  }

  /** The number of pods currently provisionable (for tests and logs). */
  public int provisionablePods() {
    return provisionable.size();
  }

  /** Upstream's {@code IsProvisionable} plus kube-scheduler's verdict. */
  public static boolean isProvisionable(Pod pod) {
    return !Pods.bound(pod) && !Pods.terminal(pod) && Pods.provisionable(pod) && Pods.failedToSchedule(pod);
  }
}
