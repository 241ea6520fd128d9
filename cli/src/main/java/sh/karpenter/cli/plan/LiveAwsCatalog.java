package sh.karpenter.cli.plan;

import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.instancetype.InstanceTypeProvider;
import sh.karpenter.providers.aws.instancetype.NodeClassInputs;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * {@code karpenter plan --aws-endpoint}: the instance types, offerings and prices of a live EC2
 * endpoint, read once through the AWS provider's {@link InstanceTypeProvider} and {@link
 * PricingProvider} (the controller's refresh, run one time), as a catalogue the planner takes.
 */
public final class LiveAwsCatalog {
  private LiveAwsCatalog() {}

  /** A live endpoint could not be read: the message names the flag and says why. */
  public static final class EndpointException extends RuntimeException {
    EndpointException(String message) {
      super(message);
    }
  }

  /**
   * Refreshes instance types and prices at {@code endpoint} and lists them for the zones the region
   * offers (restricted to {@code zones} when given) with the settings of {@code nodeClass} when given.
   *
   * @param region the region, or empty for the SDK's default chain ({@code AWS_REGION})
   * @throws EndpointException when the endpoint cannot be reached or answers with an error
   */
  public static InstanceTypeCatalog load(URI endpoint, Optional<String> region, Optional<List<String>> zones, Optional<EC2NodeClass> nodeClass) {
    Region resolved;
    try {
      resolved = region.map(Region::of).orElseGet(() -> new DefaultAwsRegionProviderChain().getRegion());
    } catch (SdkException e) {
      throw new EndpointException("--aws-region: not given and none found in the SDK's default chain (AWS_REGION, ~/.aws/config): " + e.getMessage());
    }
    Clock clock = Clock.systemUTC();
    try (Ec2Client ec2 = AwsSdk.at(endpoint, resolved).ec2()) {
      PricingProvider pricing = new PricingProvider(ec2, resolved.id(), clock);
      InstanceTypeProvider provider = new InstanceTypeProvider(ec2, resolved.id(), pricing, new UnavailableOfferings(clock),
          InstanceTypeProvider.Settings.DEFAULT, clock);
      try {
        pricing.refresh();
        provider.refresh();
      } catch (RuntimeException e) {
        throw new EndpointException("--aws-endpoint " + endpoint + " (region " + resolved.id() + "): cannot read instance types and prices: "
            + oneLine(e));
      }
      List<String> offered = provider.zones();
      List<ZoneInfo> chosen = new ArrayList<>();
      for (String zone : offered) {
        if (zones.isEmpty() || zones.get().contains(zone)) {
          chosen.add(new ZoneInfo(zone, null, List.of()));
        }
      }
      if (chosen.isEmpty()) {
        throw new EndpointException(zones.isPresent()
            ? "--zones: none of " + String.join(",", zones.get()) + " is offered at --aws-endpoint " + endpoint + " (zones: " + String.join(",", offered) + ")"
            : "--aws-endpoint " + endpoint + " (region " + resolved.id() + "): no zone offers an instance type");
      }
      NodeClassInputs inputs = nodeClass
          .map(NodeClassInputs::from)
          .map(from -> new NodeClassInputs(chosen, from.settings(), from.amiFamily(), from.raid0()))
          .orElseGet(() -> NodeClassInputs.of(chosen));
      List<InstanceType> types = provider.list(inputs);
      List<String> notes = new ArrayList<>();
      if (!pricing.spotPricesLive()) {
        notes.add("spot prices: none read from the endpoint");
      }
      return new InstanceTypeCatalog("EC2 at " + endpoint + " in " + resolved.id() + " (zones " + String.join(",", inputs.zoneNames()) + ")",
          types, null, notes);
    }
  }

  private static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.replaceAll("\\s*\\R\\s*", " ");
  }
}
