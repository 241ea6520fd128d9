package sh.karpenter.providers.aws.fleet;

import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;

/** What EC2's error codes mean to a launch (upstream pkg/errors). */
public final class FleetErrors {
  private FleetErrors() {}

  public static final String LAUNCH_TEMPLATE_NAME_NOT_FOUND = "InvalidLaunchTemplateName.NotFoundException";
  public static final String SERVICE_LINKED_ROLE_CREATION_NOT_PERMITTED = "AuthFailure.ServiceLinkedRoleCreationNotPermitted";
  public static final String INSUFFICIENT_FREE_ADDRESSES_IN_SUBNET = "InsufficientFreeAddressesInSubnet";

  /** Fleet error codes that mean "no capacity for this offering now" (upstream's {@code unfulfillableCapacityErrorCodes}). */
  public static final Set<String> UNFULFILLABLE_CAPACITY = Set.of(
      "InsufficientInstanceCapacity",
      "MaxSpotInstanceCountExceeded",
      "VcpuLimitExceeded",
      "UnfulfillableCapacity",
      "Unsupported",
      INSUFFICIENT_FREE_ADDRESSES_IN_SUBNET,
      "MaxFleetCountExceeded",
      "SpotMaxPriceTooLow",
      "ReservationCapacityExceeded",
      "InvalidCapacityReservationState.Unavailable");

  private static final Set<String> NOT_FOUND = Set.of(
      "InvalidCapacityReservationId.NotFound",
      "InvalidInstanceID.NotFound",
      LAUNCH_TEMPLATE_NAME_NOT_FOUND,
      "InvalidLaunchTemplateId.NotFound",
      "QueueDoesNotExist",
      "NoSuchEntity",
      "ParameterNotFound");

  public static boolean isUnfulfillableCapacity(CreateFleetError e) {
    return UNFULFILLABLE_CAPACITY.contains(e.errorCode());
  }

  public static boolean isServiceLinkedRoleCreationNotPermitted(CreateFleetError e) {
    return SERVICE_LINKED_ROLE_CREATION_NOT_PERMITTED.equals(e.errorCode());
  }

  public static boolean isInsufficientFreeAddressesInSubnet(CreateFleetError e) {
    return INSUFFICIENT_FREE_ADDRESSES_IN_SUBNET.equals(e.errorCode());
  }

  public static String code(Throwable e) {
    if (e instanceof AwsServiceException ase && ase.awsErrorDetails() != null && ase.awsErrorDetails().errorCode() != null) {
      return ase.awsErrorDetails().errorCode();
    }
    return "";
  }

  /** Upstream's {@code IsNotFound}. */
  public static boolean isNotFound(Throwable e) {
    return NOT_FOUND.contains(code(e));
  }

  /** Upstream's {@code IsLaunchTemplateNotFound}. */
  public static boolean isLaunchTemplateNotFound(Throwable e) {
    return LAUNCH_TEMPLATE_NAME_NOT_FOUND.equals(code(e));
  }

  /** A reason and message for the {@code Launched} condition (upstream's {@code ToReasonMessage}). */
  public record ReasonMessage(String reason, String message) {}

  /** Upstream's {@code ToReasonMessage}, matching on the error's text. */
  public static ReasonMessage reasonMessage(String error) {
    String e = error == null ? "" : error;
    if (e.contains(SERVICE_LINKED_ROLE_CREATION_NOT_PERMITTED)) {
      return new ReasonMessage("SpotSLRCreationFailed", "User does not have sufficient permission to create the Spot ServiceLinkedRole to launch spot instances");
    }
    if (e.contains("UnauthorizedOperation") || e.contains("AccessDenied") || e.contains("AuthFailure")) {
      if (e.contains("with an explicit deny in a permissions boundary")) {
        return new ReasonMessage("Unauthorized", "User is not authorized to perform this operation due to a permission boundary");
      }
      if (e.contains("with an explicit deny in a service control policy")) {
        return new ReasonMessage("Unauthorized", "User is not authorized to perform this operation due to a service control policy");
      }
      if (e.contains("Not authorized for images")) {
        return new ReasonMessage("AMIAuthorizationFailure", "User is not authorized for AMI used in instance launch");
      }
      return new ReasonMessage("Unauthorized", "User is not authorized to perform this operation because no identity-based policy allows it");
    }
    if (e.contains("InvalidParameter") && e.contains("belong to different networks")) {
      return new ReasonMessage("SecurityGroupSubnetVPCMismatch", "Security groups and subnets must be in the same VPC.");
    }
    if (e.contains("iamInstanceProfile.name is invalid")) {
      return new ReasonMessage("InstanceProfileNameInvalid", "Instance profile name used from EC2NodeClass status does not exist");
    }
    if (e.contains("InvalidLaunchTemplateId.NotFound")) {
      return new ReasonMessage("LaunchTemplateNotFound", "Launch template used for instance launch wasn't found");
    }
    if (e.contains("User data is limited to")) {
      return new ReasonMessage("UserDataSizeLimitExceeded", "Rendered user data exceeds the EC2 user data size limit");
    }
    if (e.contains("InvalidAMIID.Malformed")) {
      return new ReasonMessage("InvalidAMIID", "AMI used for instance launch is invalid");
    }
    if (e.contains("InvalidAMIID.NotFound")) {
      return new ReasonMessage("AMINotFound", "AMI used for instance launch either does not exist or you don't have permissions to use it");
    }
    if (e.contains("RequestLimitExceeded")) {
      return new ReasonMessage("RequestLimitExceeded", "Request limit exceeded");
    }
    if (e.contains("InternalError")) {
      return new ReasonMessage("InternalError", "An internal error has occurred");
    }
    if (e.contains("not eligible for Free Tier")) {
      return new ReasonMessage("FreeTierIneligible", "The specified instance type is not eligible for Free Tier");
    }
    if (e.contains("MaxFleetCountExceeded")) {
      return new ReasonMessage("FleetQuotaExceeded", "A fleet launch was requested but this would exceed your fleet request quota");
    }
    if (e.contains("PendingVerification")) {
      return new ReasonMessage("AccountPendingVerification", "An instance launch was requested but the request for launching resources in this region is still being verified");
    }
    if (e.contains("MaxSpotInstanceCountExceeded")) {
      return new ReasonMessage("SpotQuotaExceeded", "A spot instance launch was requested but this would exceed your spot instance quota");
    }
    if (e.contains("VcpuLimitExceeded")) {
      return new ReasonMessage("VCPULimitExceeded", "An instance was requested that would exceed your VCPU quota");
    }
    if (e.contains(INSUFFICIENT_FREE_ADDRESSES_IN_SUBNET)) {
      return new ReasonMessage("InsufficientFreeAddressesInSubnet", "There are not enough free IP addresses to launch an instance in this subnet");
    }
    return new ReasonMessage("LaunchFailed", "Instance launch failed");
  }
}
