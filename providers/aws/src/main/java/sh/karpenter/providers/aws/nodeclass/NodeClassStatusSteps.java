package sh.karpenter.providers.aws.nodeclass;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import sh.karpenter.api.aws.v1.AMI;
import sh.karpenter.api.aws.v1.AwsTags;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.aws.v1.EC2NodeClassStatus;
import sh.karpenter.api.aws.v1.KubeletConfiguration;
import sh.karpenter.api.aws.v1.SecurityGroup;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.providers.aws.ami.ResolvedAmi;
import sh.karpenter.providers.aws.subnet.SubnetProvider;

/**
 * What each of upstream's EC2NodeClass status reconcilers writes, given what was resolved: the status
 * field, its condition (True, or False with upstream's reason and message) and how soon to look
 * again. Each step works on a working copy whose status is not null. Pure: no API calls.
 */
public final class NodeClassStatusSteps {
  private NodeClassStatusSteps() {}

  /** How soon a selection that matched nothing is retried: the user may add the tags later. */
  public static final Duration NOT_FOUND_REQUEUE = Duration.ofMinutes(1);
  public static final Duration SUBNETS_REQUEUE = Duration.ofMinutes(1);
  public static final Duration SECURITY_GROUPS_REQUEUE = Duration.ofMinutes(5);
  public static final Duration AMIS_REQUEUE = Duration.ofMinutes(5);
  /** Upstream's validation {@code requeueAfterTime}. */
  public static final Duration VALIDATION_REQUEUE = Duration.ofMinutes(10);

  public static final String SUBNETS_NOT_FOUND_MESSAGE = "SubnetSelector did not match any Subnets";
  public static final String SECURITY_GROUPS_NOT_FOUND_MESSAGE = "SecurityGroupSelector did not match any SecurityGroups";
  public static final String AMIS_NOT_FOUND_MESSAGE = "AMISelector did not match any AMIs";
  public static final String DEPENDENCIES_NOT_READY_MESSAGE = "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution";

  /** The conditions {@code ValidationSucceeded} waits for (upstream's {@code requiredConditions}). */
  static final List<String> VALIDATION_DEPENDENCIES = List.of(
      EC2NodeClassConditions.AMIS_READY, EC2NodeClassConditions.INSTANCE_PROFILE_READY,
      EC2NodeClassConditions.SECURITY_GROUPS_READY, EC2NodeClassConditions.SUBNETS_READY);

  /** The subnets, most free addresses first; SubnetsReady. */
  public static Duration subnets(EC2NodeClass nodeClass, List<software.amazon.awssdk.services.ec2.model.Subnet> subnets, Instant now) {
    if (subnets.isEmpty()) {
      nodeClass.getStatus().setSubnets(null);
      set(nodeClass, EC2NodeClassConditions.SUBNETS_READY, Conditions.FALSE, EC2NodeClassConditions.REASON_SUBNETS_NOT_FOUND,
          SUBNETS_NOT_FOUND_MESSAGE, now);
      return NOT_FOUND_REQUEUE;
    }
    nodeClass.getStatus().setSubnets(SubnetProvider.byAvailableAddresses(subnets).stream()
        .map(s -> new Subnet(s.subnetId(), s.availabilityZone(), s.availabilityZoneId()))
        .toList());
    setTrue(nodeClass, EC2NodeClassConditions.SUBNETS_READY, now);
    return SUBNETS_REQUEUE;
  }

  /** The security groups by ID; SecurityGroupsReady. */
  public static Duration securityGroups(EC2NodeClass nodeClass, List<software.amazon.awssdk.services.ec2.model.SecurityGroup> groups, Instant now) {
    var terms = nodeClass.getSpec().getSecurityGroupSelectorTerms();
    if (groups.isEmpty() && terms != null && !terms.isEmpty()) {
      nodeClass.getStatus().setSecurityGroups(null);
      set(nodeClass, EC2NodeClassConditions.SECURITY_GROUPS_READY, Conditions.FALSE, EC2NodeClassConditions.REASON_SECURITY_GROUPS_NOT_FOUND,
          SECURITY_GROUPS_NOT_FOUND_MESSAGE, now);
      return NOT_FOUND_REQUEUE;
    }
    nodeClass.getStatus().setSecurityGroups(groups.stream()
        .sorted(java.util.Comparator.comparing(software.amazon.awssdk.services.ec2.model.SecurityGroup::groupId))
        .map(g -> {
          SecurityGroup group = new SecurityGroup();
          group.setId(g.groupId());
          group.setName(g.groupName());
          return group;
        }).toList());
    setTrue(nodeClass, EC2NodeClassConditions.SECURITY_GROUPS_READY, now);
    return SECURITY_GROUPS_REQUEUE;
  }

  /** The AMIs, newest first, each with its requirements; AMIsReady. */
  public static Duration amis(EC2NodeClass nodeClass, List<ResolvedAmi> amis, Instant now) {
    if (amis.isEmpty()) {
      nodeClass.getStatus().setAmis(null);
      set(nodeClass, EC2NodeClassConditions.AMIS_READY, Conditions.FALSE, EC2NodeClassConditions.REASON_AMI_NOT_FOUND, AMIS_NOT_FOUND_MESSAGE, now);
      return NOT_FOUND_REQUEUE;
    }
    nodeClass.getStatus().setAmis(amis.stream().map(resolved -> {
      AMI ami = new AMI();
      ami.setId(resolved.id());
      ami.setName(resolved.name());
      ami.setDeprecated(resolved.deprecated() ? Boolean.TRUE : null);
      ami.setRequirements(resolved.requirements());
      return ami;
    }).toList());
    setTrue(nodeClass, EC2NodeClassConditions.AMIS_READY, now);
    return AMIS_REQUEUE;
  }

  /** An alias the cluster's Kubernetes version does not support: AMIsReady False, UnsupportedAlias. */
  public static void unsupportedAlias(EC2NodeClass nodeClass, String message, Instant now) {
    set(nodeClass, EC2NodeClassConditions.AMIS_READY, Conditions.FALSE, EC2NodeClassConditions.REASON_UNSUPPORTED_ALIAS, message, now);
  }

  /** The instance profile nodes launch with; InstanceProfileReady. */
  public static void instanceProfile(EC2NodeClass nodeClass, String instanceProfile, Instant now) {
    nodeClass.getStatus().setInstanceProfile(instanceProfile);
    setTrue(nodeClass, EC2NodeClassConditions.INSTANCE_PROFILE_READY, now);
  }

  /**
   * PlacementGroupReady: True without {@code placementGroupSelector}; with one, False
   * ({@code PlacementGroupNotFound}): this port does not resolve placement groups.
   */
  public static void placementGroup(EC2NodeClass nodeClass, Instant now) {
    var selector = nodeClass.getSpec().getPlacementGroupSelector();
    if (selector == null) {
      setTrue(nodeClass, EC2NodeClassConditions.PLACEMENT_GROUP_READY, now);
      return;
    }
    String name = selector.getName() != null && !selector.getName().isEmpty() ? selector.getName() : selector.getId();
    set(nodeClass, EC2NodeClassConditions.PLACEMENT_GROUP_READY, Conditions.FALSE, EC2NodeClassConditions.REASON_PLACEMENT_GROUP_NOT_FOUND,
        "Placement group \"" + name + "\" not found", now);
  }

  /**
   * ValidationSucceeded, the checks that need no AWS call, in upstream's order: the kubelet
   * configuration, then the other conditions (False when one is False, Unknown when one is Unknown),
   * then the tags. Upstream's dry-run authorization checks are not made (as with its
   * {@code --disable-dry-run}).
   *
   * @return when to validate again, or null for not by itself (a change of the class retriggers it)
   */
  public static Duration validation(EC2NodeClass nodeClass, Instant now) {
    KubeletConfiguration kubelet = nodeClass.getSpec().getKubelet();
    List<KubeletConfiguration.Violation> violations = kubelet == null ? List.of() : kubelet.validate();
    if (!violations.isEmpty()) {
      set(nodeClass, EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.FALSE, EC2NodeClassConditions.REASON_INVALID_KUBELET_CONFIGURATION,
          violations.stream().map(Object::toString).collect(Collectors.joining("; ")), now);
      return null;
    }
    List<Condition> conditions = nodeClass.getStatus().getConditions();
    if (VALIDATION_DEPENDENCIES.stream().anyMatch(type -> Conditions.get(conditions, type).map(c -> Conditions.FALSE.equals(c.getStatus())).orElse(false))) {
      set(nodeClass, EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.FALSE, EC2NodeClassConditions.REASON_DEPENDENCIES_NOT_READY,
          DEPENDENCIES_NOT_READY_MESSAGE, now);
      return VALIDATION_REQUEUE;
    }
    if (VALIDATION_DEPENDENCIES.stream().anyMatch(type -> Conditions.isUnknown(conditions, type))) {
      set(nodeClass, EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.UNKNOWN, EC2NodeClassConditions.REASON_DEPENDENCIES_NOT_READY,
          DEPENDENCIES_NOT_READY_MESSAGE, now);
      return VALIDATION_REQUEUE;
    }
    var tags = nodeClass.getSpec().getTags();
    List<String> restricted = tags == null ? List.of() : tags.keySet().stream().filter(AwsTags::isRestricted).sorted().toList();
    if (!restricted.isEmpty()) {
      set(nodeClass, EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.FALSE, EC2NodeClassConditions.REASON_TAG_VALIDATION_FAILED,
          "tags failed validation requirements (tags=" + restricted.stream().map(t -> "\"" + t + "\"").collect(Collectors.joining(", ")) + ")", now);
      return null;
    }
    setTrue(nodeClass, EC2NodeClassConditions.VALIDATION_SUCCEEDED, now);
    return VALIDATION_REQUEUE;
  }

  /** The reason of {@code Ready} when a dependent is False at the class's generation (operatorpkg's). */
  public static final String REASON_UNHEALTHY_DEPENDENTS = "UnhealthyDependents";
  /** The reason of {@code Ready} while dependents are Unknown or from an older generation. */
  public static final String REASON_RECONCILING_DEPENDENTS = "ReconcilingDependents";
  /** The reason and message of a dependent no step has set yet (operatorpkg initialises them so). */
  public static final String REASON_AWAITING_RECONCILIATION = "AwaitingReconciliation";
  public static final String AWAITING_RECONCILIATION_MESSAGE = "object is awaiting reconciliation";

  /** The order the controller's steps set the dependents in; a later one counts as more recent. */
  static final List<String> STEP_ORDER = List.of(
      EC2NodeClassConditions.AMIS_READY, EC2NodeClassConditions.PLACEMENT_GROUP_READY, EC2NodeClassConditions.SUBNETS_READY,
      EC2NodeClassConditions.SECURITY_GROUPS_READY, EC2NodeClassConditions.INSTANCE_PROFILE_READY, EC2NodeClassConditions.VALIDATION_SUCCEEDED);

  /**
   * Rolls {@code Ready} up as operatorpkg's {@code ConditionSet} does for upstream's dependents
   * ({@link EC2NodeClassConditions#readyDependencies}, without capacity reservations, which are not
   * resolved here). A dependent not set yet becomes Unknown {@value #REASON_AWAITING_RECONCILIATION}.
   * The unhealthy dependents are those not True or observed at an older generation, most recently
   * changed first (ties: the one a later step set first): none makes {@code Ready} True; else
   * {@code Ready} is False {@value #REASON_UNHEALTHY_DEPENDENTS} when one of them is False at the
   * current generation, otherwise Unknown {@value #REASON_RECONCILING_DEPENDENTS}, with the message
   * {@code ValidationSucceeded=False, SubnetsReady=False}.
   */
  public static void ready(EC2NodeClass nodeClass, Instant now) {
    Long generation = nodeClass.getMetadata().getGeneration();
    List<String> dependents = EC2NodeClassConditions.readyDependencies(false);
    for (String type : dependents) {
      if (Conditions.get(nodeClass.getStatus().getConditions(), type).isEmpty()) {
        set(nodeClass, type, Conditions.UNKNOWN, REASON_AWAITING_RECONCILIATION, AWAITING_RECONCILIATION_MESSAGE, now);
      }
    }
    List<Condition> conditions = nodeClass.getStatus().getConditions();
    List<Condition> unhealthy = dependents.stream()
        .map(type -> Conditions.get(conditions, type).orElseThrow())
        .filter(c -> !Conditions.TRUE.equals(c.getStatus()) || !java.util.Objects.equals(c.getObservedGeneration(), generation))
        .sorted(java.util.Comparator.comparing((Condition c) -> c.getLastTransitionTime() == null ? "" : c.getLastTransitionTime())
            .thenComparing(c -> STEP_ORDER.indexOf(c.getType()))
            .reversed())
        .toList();
    if (unhealthy.isEmpty()) {
      setTrue(nodeClass, EC2NodeClassConditions.READY, now);
      return;
    }
    boolean failed = unhealthy.stream()
        .anyMatch(c -> Conditions.FALSE.equals(c.getStatus()) && java.util.Objects.equals(c.getObservedGeneration(), generation));
    set(nodeClass, EC2NodeClassConditions.READY, failed ? Conditions.FALSE : Conditions.UNKNOWN,
        failed ? REASON_UNHEALTHY_DEPENDENTS : REASON_RECONCILING_DEPENDENTS,
        unhealthy.stream().map(c -> c.getType() + "=" + c.getStatus()).collect(Collectors.joining(", ")), now);
  }

  static void setTrue(EC2NodeClass nodeClass, String type, Instant now) {
    set(nodeClass, type, Conditions.TRUE, type, "", now);
  }

  static void set(EC2NodeClass nodeClass, String type, String status, String reason, String message, Instant now) {
    EC2NodeClassStatus current = nodeClass.getStatus();
    current.setConditions(Conditions.set(current.getConditions(), type, status, reason, message, now, nodeClass.getMetadata().getGeneration()));
  }
}
