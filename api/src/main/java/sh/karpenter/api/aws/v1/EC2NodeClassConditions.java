package sh.karpenter.api.aws.v1;

import java.util.ArrayList;
import java.util.List;
import sh.karpenter.api.v1.ConditionTypes;

/**
 * Status condition types of an EC2NodeClass and the reasons the AWS provider's NodeClass controllers
 * give when one is False (upstream ec2nodeclass_status.go and pkg/controllers/nodeclass).
 */
public final class EC2NodeClassConditions {
  private EC2NodeClassConditions() {}

  public static final String READY = ConditionTypes.READY;
  public static final String SUBNETS_READY = "SubnetsReady";
  public static final String SECURITY_GROUPS_READY = "SecurityGroupsReady";
  public static final String AMIS_READY = "AMIsReady";
  public static final String INSTANCE_PROFILE_READY = "InstanceProfileReady";
  public static final String CAPACITY_RESERVATIONS_READY = "CapacityReservationsReady";
  public static final String VALIDATION_SUCCEEDED = ConditionTypes.VALIDATION_SUCCEEDED;
  public static final String PLACEMENT_GROUP_READY = "PlacementGroupReady";

  // Reasons of SubnetsReady, SecurityGroupsReady, AMIsReady and PlacementGroupReady
  public static final String REASON_SUBNETS_NOT_FOUND = "SubnetsNotFound";
  public static final String REASON_SECURITY_GROUPS_NOT_FOUND = "SecurityGroupsNotFound";
  public static final String REASON_AMI_NOT_FOUND = "AMINotFound";
  public static final String REASON_UNSUPPORTED_ALIAS = "UnsupportedAlias";
  public static final String REASON_PLACEMENT_GROUP_RESOLUTION_FAILED = "PlacementGroupResolutionFailed";
  public static final String REASON_PLACEMENT_GROUP_NOT_FOUND = "PlacementGroupNotFound";

  // Reasons of ValidationSucceeded
  public static final String REASON_CREATE_FLEET_AUTH_FAILED = "CreateFleetAuthCheckFailed";
  public static final String REASON_CREATE_LAUNCH_TEMPLATE_AUTH_FAILED = "CreateLaunchTemplateAuthCheckFailed";
  public static final String REASON_RUN_INSTANCES_AUTH_FAILED = "RunInstancesAuthCheckFailed";
  public static final String REASON_INSTANCE_PROFILE_NOT_FOUND = "InstanceProfileNotFound";
  public static final String REASON_DEPENDENCIES_NOT_READY = "DependenciesNotReady";
  public static final String REASON_TAG_VALIDATION_FAILED = "TagValidationFailed";
  public static final String REASON_INVALID_KUBELET_CONFIGURATION = "InvalidKubeletConfiguration";
  public static final String REASON_KUBELET_EXPRESSION_INVALID = "KubeletExpressionInvalid";
  public static final String REASON_KUBELET_EXPRESSION_EVAL_FAILED = "KubeletExpressionEvaluationFailed";
  public static final String REASON_KUBELET_EXPRESSIONS_DISABLED = "KubeletExpressionsDisabled";
  public static final String REASON_UNSUPPORTED_KUBELET_CONFIGURATION = "UnsupportedKubeletConfiguration";
  public static final String REASON_DRY_RUN_DISABLED = "DryRunDisabled";
  public static final String REASON_USER_DATA_TOO_LARGE = "UserDataSizeLimitExceeded";
  public static final String REASON_CONSUMABLE_CAPACITY_INVALID = "NVIDIAConsumableCapacityInvalid";
  public static final String REASON_DRA_DISABLED = "DRADisabled";

  /**
   * The conditions rolled up into {@link #READY}, in upstream's order; {@link #CAPACITY_RESERVATIONS_READY}
   * only when capacity reservations are enabled (the ReservedCapacity feature gate).
   */
  public static List<String> readyDependencies(boolean capacityReservationsEnabled) {
    List<String> types = new ArrayList<>(List.of(
        AMIS_READY, SUBNETS_READY, SECURITY_GROUPS_READY, INSTANCE_PROFILE_READY, VALIDATION_SUCCEEDED, PLACEMENT_GROUP_READY));
    if (capacityReservationsEnabled) {
      types.add(CAPACITY_RESERVATIONS_READY);
    }
    return List.copyOf(types);
  }
}
