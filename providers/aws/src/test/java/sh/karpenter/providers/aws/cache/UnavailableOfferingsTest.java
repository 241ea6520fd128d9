package sh.karpenter.providers.aws.cache;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class UnavailableOfferingsTest {
  private final TestingClock clock = new TestingClock();
  private final UnavailableOfferings offerings = new UnavailableOfferings(clock);

  @Test
  void aMarkLastsThreeMinutes() {
    long before = offerings.seq("m5.large");
    offerings.markUnavailable("m5.large", "us-west-2a", "spot", "InsufficientInstanceCapacity");
    assertTrue(offerings.unavailable("m5.large", "us-west-2a", "spot"));
    assertFalse(offerings.unavailable("m5.large", "us-west-2a", "on-demand"));
    assertFalse(offerings.unavailable("m5.large", "us-west-2b", "spot"));
    assertFalse(offerings.unavailable("c5.large", "us-west-2a", "spot"));
    long marked = offerings.seq("m5.large");
    assertNotEquals(before, marked);
    clock.step(Duration.ofMinutes(3).minusSeconds(1));
    assertTrue(offerings.unavailable("m5.large", "us-west-2a", "spot"));
    clock.step(Duration.ofSeconds(1));
    assertFalse(offerings.unavailable("m5.large", "us-west-2a", "spot"));
    assertNotEquals(marked, offerings.seq("m5.large"), "expiry changes the sequence number");
  }

  @Test
  void markingAgainExtendsTheMark() {
    offerings.markUnavailable("m5.large", "us-west-2a", "spot", "ICE");
    clock.step(Duration.ofMinutes(2));
    offerings.markUnavailable("m5.large", "us-west-2a", "spot", "ICE");
    clock.step(Duration.ofMinutes(2));
    assertTrue(offerings.unavailable("m5.large", "us-west-2a", "spot"));
  }

  @Test
  void aCapacityTypeMarkCoversEveryOfferingOfIt() {
    long seq = offerings.seq();
    offerings.markCapacityTypeUnavailable("spot");
    assertTrue(offerings.unavailable("anything", "us-west-2c", "spot"));
    assertFalse(offerings.unavailable("anything", "us-west-2c", "on-demand"));
    assertNotEquals(seq, offerings.seq());
  }

  @Test
  void aZoneIsUnavailableOnlyWhenAllItsSubnetsAre() {
    offerings.markSubnetUnavailable("subnet-1");
    assertFalse(offerings.unavailable("m5.large", "us-west-2a", List.of("subnet-1", "subnet-2"), "spot"));
    offerings.markSubnetUnavailable("subnet-2");
    assertTrue(offerings.unavailable("m5.large", "us-west-2a", List.of("subnet-1", "subnet-2"), "spot"));
    assertFalse(offerings.unavailable("m5.large", "us-west-2a", List.of(), "spot"), "no subnets: no subnet check");
  }
}
