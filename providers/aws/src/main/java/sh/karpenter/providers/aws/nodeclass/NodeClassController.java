package sh.karpenter.providers.aws.nodeclass;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassStatus;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.providers.aws.ami.AmiProvider;
import sh.karpenter.providers.aws.ami.UnsupportedAliasException;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import sh.karpenter.providers.aws.instanceprofile.InstanceProfileProvider;
import sh.karpenter.providers.aws.securitygroup.SecurityGroupProvider;
import sh.karpenter.providers.aws.subnet.SubnetProvider;
import software.amazon.awssdk.services.iam.model.InstanceProfile;

/**
 * The {@code nodeclass} controller, keyed by EC2NodeClass name (upstream's nodeclass
 * {@code Controller}):
 *
 * <ul>
 *   <li>puts the {@link EC2NodeClass#TERMINATION_FINALIZER} on every class;
 *   <li>resolves the AMIs, subnets, security groups and instance profile and writes them to the
 *       status with their conditions, then {@code PlacementGroupReady}, {@code ValidationSucceeded}
 *       and the {@code Ready} roll-up ({@link NodeClassStatusSteps}), in one status write locked to the
 *       resourceVersion read, only when something changed; it looks again after the shortest wait any
 *       step asked for (1 min for subnets and for anything that matched nothing, 5 min for AMIs and
 *       security groups, 10 min for validation);
 *   <li>on deletion, waits while NodeClaims use the class (event {@code WaitingOnNodeClaimTermination},
 *       looked at again every 10 min and when one of them is deleted), then deletes the instance
 *       profiles Karpenter created for it, runs the {@link NodeClassCleanup}s and removes the finalizer.
 * </ul>
 *
 * A failing step does not stop the others; its error is thrown after the status is written, so the key
 * is retried with backoff. Described in docs/behaviour/aws-nodeclass.md#the-nodeclass-controller.
 */
public final class NodeClassController implements Reconciler<String> {
  public static final String NAME = "nodeclass";
  /** How often a deleted class still used by NodeClaims is looked at (and the event fired) again. */
  public static final Duration WAITING_ON_NODE_CLAIMS_REQUEUE = Duration.ofMinutes(10);
  /** Upstream's {@code RecreationTTL}: how long a profile just created for a role is reused whatever the status says. */
  public static final Duration RECREATION_TTL = Duration.ofMinutes(1);
  static final String WAITING_ON_NODE_CLAIM_TERMINATION = "WaitingOnNodeClaimTermination";
  static final String CONDITION_METRICS_KIND = "ec2nodeclass";
  private static final Logger LOG = LoggerFactory.getLogger(NodeClassController.class);

  private final KubernetesClient client;
  private final SharedIndexInformer<EC2NodeClass> nodeClasses;
  private final Informers informers;
  private final SubnetProvider subnets;
  private final SecurityGroupProvider securityGroups;
  private final AmiProvider amis;
  private final InstanceProfileProvider instanceProfiles;
  private final NodeClassSettings settings;
  private final List<NodeClassCleanup> cleanups;
  private final Clock clock;
  private final EventRecorder events;
  private final Metrics metrics;
  private final KubernetesSerialization serialization;
  private final ExpiringCache<String, String> recreation;

  public NodeClassController(KubernetesClient client, SharedIndexInformer<EC2NodeClass> nodeClasses, Informers informers,
      NodeClassProviders providers, NodeClassSettings settings, List<NodeClassCleanup> cleanups, Clock clock, EventRecorder events,
      Metrics metrics) {
    this.client = client;
    this.nodeClasses = nodeClasses;
    this.informers = informers;
    this.subnets = providers.subnets();
    this.securityGroups = providers.securityGroups();
    this.amis = providers.amis();
    this.instanceProfiles = providers.instanceProfiles();
    this.settings = settings;
    this.cleanups = List.copyOf(cleanups);
    this.clock = clock;
    this.events = events;
    this.metrics = metrics;
    this.serialization = client.getKubernetesSerialization();
    this.recreation = new ExpiringCache<>(clock, RECREATION_TTL);
  }

  @Override
  public Result reconcile(String name) throws Exception {
    EC2NodeClass stored = NodeClassLookup.get(client, nodeClasses, name);
    if (stored == null) {
      return Result.done();
    }
    if (Metadata.deleting(stored)) {
      return finalize(stored);
    }
    List<String> finalizers = stored.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(EC2NodeClass.TERMINATION_FINALIZER)) {
      try {
        stored = OptimisticWrites.mergePatch(client.resources(EC2NodeClass.class).withName(name), serialization,
            stored.getMetadata().getResourceVersion(),
            OptimisticWrites.metadata(Map.of("finalizers", OptimisticWrites.withFinalizer(stored, EC2NodeClass.TERMINATION_FINALIZER))));
      } catch (RuntimeException e) {
        if (OptimisticWrites.isConflict(e)) {
          return Result.requeueAfter(Duration.ZERO);
        }
        if (OptimisticWrites.isNotFound(e)) {
          return Result.done();
        }
        throw e;
      }
    }
    return resolve(stored);
  }

  private Result resolve(EC2NodeClass stored) throws Exception {
    EC2NodeClass working = serialization.clone(stored);
    if (working.getStatus() == null) {
      working.setStatus(new EC2NodeClassStatus());
    }
    Instant now = clock.instant();
    List<Exception> errors = new ArrayList<>();
    Result result = Result.done();
    try {
      result = result.min(Result.requeueAfter(NodeClassStatusSteps.amis(working, amis.list(working), now)));
    } catch (UnsupportedAliasException e) {
      NodeClassStatusSteps.unsupportedAlias(working, e.getMessage(), now);
    } catch (RuntimeException e) {
      errors.add(new IllegalStateException("getting amis: " + e.getMessage(), e));
    }
    NodeClassStatusSteps.placementGroup(working, now);
    try {
      result = result.min(Result.requeueAfter(NodeClassStatusSteps.subnets(working, subnets.list(working), now)));
    } catch (RuntimeException e) {
      errors.add(new IllegalStateException("getting subnets: " + e.getMessage(), e));
    }
    try {
      result = result.min(Result.requeueAfter(NodeClassStatusSteps.securityGroups(working, securityGroups.list(working), now)));
    } catch (RuntimeException e) {
      errors.add(new IllegalStateException("getting security groups: " + e.getMessage(), e));
    }
    try {
      NodeClassStatusSteps.instanceProfile(working, instanceProfile(working), now);
    } catch (RuntimeException e) {
      errors.add(e);
    }
    Duration validation = NodeClassStatusSteps.validation(working, now);
    if (validation != null) {
      result = result.min(Result.requeueAfter(validation));
    }
    NodeClassStatusSteps.ready(working, now);
    working.getStatus().setConditions(StatusConditions.sorted(working.getStatus().getConditions()));

    if (!json(working.getStatus()).equals(json(normalized(stored)))) {
      try {
        client.resources(EC2NodeClass.class).resource(working).updateStatus();
        StatusConditions.recordTransitions(metrics, CONDITION_METRICS_KIND,
            stored.getStatus() == null ? null : stored.getStatus().getConditions(), working.getStatus().getConditions(), now);
      } catch (RuntimeException e) {
        if (OptimisticWrites.isConflict(e)) {
          return Result.requeueAfter(Duration.ZERO);
        }
        if (!OptimisticWrites.isNotFound(e)) {
          errors.add(e);
        }
      }
    }
    if (!errors.isEmpty()) {
      Exception first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      throw first;
    }
    return result;
  }

  /**
   * The instance profile nodes of the class launch with (upstream's InstanceProfile reconciler): with
   * {@code spec.role}, the profile in the status (or created in the last minute) while it still holds
   * that role, else a new {@code <cluster>_<number>} profile with the role; with
   * {@code spec.instanceProfile}, that one as is.
   */
  private String instanceProfile(EC2NodeClass nodeClass) {
    String role = nodeClass.getSpec().getRole();
    if (role == null || role.isEmpty()) {
      return nodeClass.getSpec().getInstanceProfile();
    }
    String key = role + "/" + nodeClass.getMetadata().getUid();
    String current = recreation.get(key).orElse(nodeClass.getStatus().getInstanceProfile());
    String currentRole = "";
    if (current != null && !current.isEmpty()) {
      try {
        currentRole = instanceProfiles.get(current).map(InstanceProfile::roles).filter(roles -> !roles.isEmpty())
            .map(roles -> roles.get(0).roleName()).orElse("");
      } catch (RuntimeException e) {
        throw new IllegalStateException("getting instance profile " + current + ": " + e.getMessage(), e);
      }
    }
    if (roleName(role).equals(roleName(currentRole))) {
      return current;
    }
    String created = InstanceProfileProvider.newName(settings.clusterName(), settings.region(), nodeClass.getMetadata().getName());
    try {
      instanceProfiles.create(created, role, nodeClass.instanceProfileTags(settings.clusterName(), settings.region()),
          InstanceProfileProvider.path(settings.region(), settings.clusterName(), nodeClass.getMetadata().getUid()));
    } catch (RuntimeException e) {
      // The profile may exist without its role: delete it rather than leak one per retry.
      try {
        instanceProfiles.delete(created);
      } catch (RuntimeException ignored) {
        // the finalizer's cleanup by path is the backstop
      }
      throw new IllegalStateException("creating instance profile " + created + " for role " + role + ": " + e.getMessage(), e);
    }
    recreation.put(key, created);
    LOG.info("created instance profile nodeclass={} instance-profile={} role={}", nodeClass.getMetadata().getName(), created, role);
    return created;
  }

  private static String roleName(String role) {
    return role == null ? "" : role.substring(role.lastIndexOf('/') + 1);
  }

  private Result finalize(EC2NodeClass nodeClass) throws Exception {
    List<String> finalizers = nodeClass.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(EC2NodeClass.TERMINATION_FINALIZER)) {
      return Result.done();
    }
    List<String> claims = NodeClassLookup.nodeClaimsOf(informers, nodeClass.getMetadata().getName()).stream()
        .map(claim -> claim.getMetadata().getName()).sorted().toList();
    if (!claims.isEmpty()) {
      events.publish(nodeClass, EventRecorder.NORMAL, WAITING_ON_NODE_CLAIM_TERMINATION,
          "Waiting on NodeClaim termination for " + pretty(claims, 5), EventRecorder.DEFAULT_DEDUPE);
      return Result.requeueAfter(WAITING_ON_NODE_CLAIMS_REQUEUE);
    }
    String path = InstanceProfileProvider.path(settings.region(), settings.clusterName(), nodeClass.getMetadata().getUid());
    for (InstanceProfile profile : instanceProfiles.list(path)) {
      try {
        instanceProfiles.delete(profile.instanceProfileName());
      } catch (RuntimeException e) {
        throw new IllegalStateException("deleting instance profile " + profile.instanceProfileName() + ": " + e.getMessage(), e);
      }
      LOG.info("deleted instance profile nodeclass={} instance-profile={}", nodeClass.getMetadata().getName(), profile.instanceProfileName());
    }
    for (NodeClassCleanup cleanup : cleanups) {
      cleanup.cleanUp(nodeClass);
    }
    try {
      OptimisticWrites.mergePatch(client.resources(EC2NodeClass.class).withName(nodeClass.getMetadata().getName()), serialization,
          nodeClass.getMetadata().getResourceVersion(),
          OptimisticWrites.metadata(Map.of("finalizers", OptimisticWrites.withoutFinalizer(nodeClass, EC2NodeClass.TERMINATION_FINALIZER))));
    } catch (RuntimeException e) {
      if (OptimisticWrites.isConflict(e)) {
        return Result.requeueAfter(Duration.ZERO);
      }
      if (!OptimisticWrites.isNotFound(e)) {
        throw new IllegalStateException("removing termination finalizer: " + e.getMessage(), e);
      }
    }
    return Result.done();
  }

  /** Upstream's {@code PrettySlice}: the first {@code max} names, then how many more. */
  static String pretty(List<String> names, int max) {
    if (names.size() <= max) {
      return String.join(", ", names);
    }
    return String.join(", ", names.subList(0, max)) + " and " + (names.size() - max) + " other(s)";
  }

  private EC2NodeClassStatus normalized(EC2NodeClass nodeClass) {
    EC2NodeClassStatus status = nodeClass.getStatus() == null ? new EC2NodeClassStatus() : serialization.clone(nodeClass.getStatus());
    status.setConditions(StatusConditions.sorted(status.getConditions()));
    return status;
  }

  private JsonNode json(Object value) {
    return serialization.convertValue(value, JsonNode.class);
  }
}
