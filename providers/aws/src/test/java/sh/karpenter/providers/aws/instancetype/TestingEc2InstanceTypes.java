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
    Page<InstanceTypeInfo> page = Page.of(instanceTypes, request.nextToken());
    return DescribeInstanceTypesResponse.builder().instanceTypes(page.items()).nextToken(page.next()).build();
  }

  @Override
  public DescribeInstanceTypeOfferingsResponse describeInstanceTypeOfferings(DescribeInstanceTypeOfferingsRequest request) {
    describeInstanceTypeOfferingsCalls.incrementAndGet();
    List<InstanceTypeOffering> all = new ArrayList<>();
    offerings.forEach((type, zones) -> zones.forEach(zone -> all.add(
        InstanceTypeOffering.builder().instanceType(type).location(zone).locationType(LocationType.AVAILABILITY_ZONE).build())));
    Page<InstanceTypeOffering> page = Page.of(all, request.nextToken());
    return DescribeInstanceTypeOfferingsResponse.builder().instanceTypeOfferings(page.items()).nextToken(page.next()).build();
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
    Page<SpotPrice> page = Page.of(spotPrices, request.nextToken());
    return DescribeSpotPriceHistoryResponse.builder().spotPriceHistory(page.items()).nextToken(page.next()).build();
  }

  /** One item of {@code all} from the position {@code token} names, and the token of the next. */
  private record Page<T>(List<T> items, String next) {
    static <T> Page<T> of(List<T> all, String token) {
      int at = token == null || token.isEmpty() ? 0 : Integer.parseInt(token);
      return new Page<>(all.isEmpty() ? List.of() : List.of(all.get(at)), at + 1 < all.size() ? Integer.toString(at + 1) : null);
    }
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
