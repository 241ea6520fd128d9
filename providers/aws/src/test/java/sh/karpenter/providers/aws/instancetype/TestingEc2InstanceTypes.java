package sh.karpenter.providers.aws.instancetype;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypeOfferingsRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypeOfferingsResponse;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypesResponse;
import software.amazon.awssdk.services.ec2.model.DescribeSpotPriceHistoryRequest;
import software.amazon.awssdk.services.ec2.model.DescribeSpotPriceHistoryResponse;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.InstanceTypeOffering;
import software.amazon.awssdk.services.ec2.model.LocationType;
import software.amazon.awssdk.services.ec2.model.SpotPrice;

/**
 * A hand-written EC2 client answering the three read calls of instance types and pricing from lists
 * the test sets, one item per page (so the SDK's paginators page), counting calls; {@code failNext}
 * makes the next calls of an operation fail. Every other operation is the SDK's default
 * (UnsupportedOperationException).
 */
public final class TestingEc2InstanceTypes implements Ec2Client {
  public volatile List<InstanceTypeInfo> instanceTypes = List.of();
  /** Instance type to zones. */
  public volatile Map<String, List<String>> offerings = Map.of();
  public volatile List<SpotPrice> spotPrices = List.of();
  public final AtomicInteger describeInstanceTypesCalls = new AtomicInteger();
  public final AtomicInteger describeInstanceTypeOfferingsCalls = new AtomicInteger();
  public final AtomicInteger describeSpotPriceHistoryCalls = new AtomicInteger();
  public final List<DescribeSpotPriceHistoryRequest> spotRequests = new ArrayList<>();
  public final List<DescribeInstanceTypesRequest> instanceTypeRequests = new ArrayList<>();
  private final AtomicInteger failSpot = new AtomicInteger();
  private final AtomicInteger failInstanceTypes = new AtomicInteger();

  public TestingEc2InstanceTypes failSpotPriceHistory(int times) {
    failSpot.set(times);
    return this;
  }

  public TestingEc2InstanceTypes failInstanceTypes(int times) {
    failInstanceTypes.set(times);
    return this;
  }

  @Override
  public DescribeInstanceTypesResponse describeInstanceTypes(DescribeInstanceTypesRequest request) {
    describeInstanceTypesCalls.incrementAndGet();
    synchronized (instanceTypeRequests) {
      instanceTypeRequests.add(request);
    }
    if (failInstanceTypes.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw error("DescribeInstanceTypes");
    }
    int at = request.nextToken() == null ? 0 : Integer.parseInt(request.nextToken());
    List<InstanceTypeInfo> all = instanceTypes;
    return DescribeInstanceTypesResponse.builder()
        .instanceTypes(all.isEmpty() ? List.of() : List.of(all.get(at)))
        .nextToken(at + 1 < all.size() ? Integer.toString(at + 1) : null)
        .build();
  }

  @Override
  public DescribeInstanceTypeOfferingsResponse describeInstanceTypeOfferings(DescribeInstanceTypeOfferingsRequest request) {
    describeInstanceTypeOfferingsCalls.incrementAndGet();
    List<InstanceTypeOffering> all = new ArrayList<>();
    offerings.forEach((type, zones) -> zones.forEach(zone -> all.add(
        InstanceTypeOffering.builder().instanceType(type).location(zone).locationType(LocationType.AVAILABILITY_ZONE).build())));
    int at = request.nextToken() == null ? 0 : Integer.parseInt(request.nextToken());
    return DescribeInstanceTypeOfferingsResponse.builder()
        .instanceTypeOfferings(all.isEmpty() ? List.of() : List.of(all.get(at)))
        .nextToken(at + 1 < all.size() ? Integer.toString(at + 1) : null)
        .build();
  }

  @Override
  public DescribeSpotPriceHistoryResponse describeSpotPriceHistory(DescribeSpotPriceHistoryRequest request) {
    describeSpotPriceHistoryCalls.incrementAndGet();
    synchronized (spotRequests) {
      spotRequests.add(request);
    }
    if (failSpot.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw error("DescribeSpotPriceHistory");
    }
    int at = request.nextToken() == null || request.nextToken().isEmpty() ? 0 : Integer.parseInt(request.nextToken());
    List<SpotPrice> all = spotPrices;
    return DescribeSpotPriceHistoryResponse.builder()
        .spotPriceHistory(all.isEmpty() ? List.of() : List.of(all.get(at)))
        .nextToken(at + 1 < all.size() ? Integer.toString(at + 1) : null)
        .build();
  }

  private static Ec2Exception error(String operation) {
    return (Ec2Exception) Ec2Exception.builder()
        .statusCode(503)
        .message(operation + " failed (injected)")
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("Unavailable").errorMessage(operation + " failed (injected)").build())
        .build();
  }

  @Override
  public String serviceName() {
    return "ec2";
  }

  @Override
  public void close() {}
}
