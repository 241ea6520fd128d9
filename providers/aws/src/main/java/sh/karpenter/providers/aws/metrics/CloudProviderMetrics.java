package sh.karpenter.providers.aws.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Gauge;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodepool.NodePoolReadiness;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.wellknown.Labels;

/**
 * The AWS provider's own metric families (upstream's {@code cloudprovider.metrics} controller and
 * instance-type gauges), refreshed every {@link #PERIOD} by a singleton loop from the instance types
 * of every NodePool on an EC2NodeClass:
 *
 * <ul>
 *   <li>{@code karpenter_cloudprovider_instance_type_offering_available} (1 or 0) and
 *       {@code karpenter_cloudprovider_instance_type_offering_price_estimate} (hourly price), by
 *       {@code instance_type}, {@code capacity_type} and {@code zone};
 *   <li>{@code karpenter_cloudprovider_instance_type_cpu_cores} and
 *       {@code karpenter_cloudprovider_instance_type_memory_bytes}, by {@code instance_type};
 *   <li>this port's own {@code karpenter_cloudprovider_prices_live} by {@code capacity_type}: 1 when
 *       that capacity type's prices come from the live API, 0 when from the bundled price list (the
 *       on-demand prices always do here: the Pricing API has no client in this build).
 * </ul>
 *
 * A NodePool whose instance types cannot be read is skipped (and logged); the others still count.
 */
public final class CloudProviderMetrics implements OperatorExtension {
  private static final Logger LOG = LoggerFactory.getLogger(CloudProviderMetrics.class);

  public static final String NAME = "cloudprovider.metrics";
  /** Upstream's requeue period. */
  public static final Duration PERIOD = Duration.ofMinutes(1);

  private final BiFunction<String, NodeClassRef, List<InstanceType>> instanceTypes;
  private final BooleanSupplier onDemandPricesLive;
  private final BooleanSupplier spotPricesLive;

  /**
   * @param instanceTypes the cloud provider's instance types of a NodePool on a NodeClass
   * @param onDemandPricesLive whether on-demand prices come from the live API
   * @param spotPricesLive whether spot prices come from the live API
   */
  public CloudProviderMetrics(BiFunction<String, NodeClassRef, List<InstanceType>> instanceTypes, BooleanSupplier onDemandPricesLive,
      BooleanSupplier spotPricesLive) {
    this.instanceTypes = instanceTypes;
    this.onDemandPricesLive = onDemandPricesLive;
    this.spotPricesLive = spotPricesLive;
  }

  @Override
  public void register(OperatorContext context) {
    context.metrics().registry().ifPresent(registry -> {
      Families families = new Families(registry);
      context.loop(NAME, () -> {
        families.update(context.informers().nodePools().getStore()::list);
        return Result.requeueAfter(PERIOD);
      });
    });
  }

  /** The families in one registry; {@link #update} sets them from the NodePools' instance types. */
  final class Families {
    private final Gauge offeringAvailable;
    private final Gauge offeringPrice;
    private final Gauge cpuCores;
    private final Gauge memoryBytes;
    private final Gauge pricesLive;

    Families(CollectorRegistry registry) {
      offeringAvailable = Gauge.build("karpenter_cloudprovider_instance_type_offering_available",
              "Instance type offering availability, based on instance type, capacity type, and zone")
          .labelNames("instance_type", "capacity_type", "zone").register(registry);
      offeringPrice = Gauge.build("karpenter_cloudprovider_instance_type_offering_price_estimate",
              "Instance type offering estimated hourly price used when making informed decisions on node cost calculation,"
                  + " based on instance type, capacity type, and zone.")
          .labelNames("instance_type", "capacity_type", "zone").register(registry);
      cpuCores = Gauge.build("karpenter_cloudprovider_instance_type_cpu_cores", "VCPUs cores for a given instance type.")
          .labelNames("instance_type").register(registry);
      memoryBytes = Gauge.build("karpenter_cloudprovider_instance_type_memory_bytes", "Memory, in bytes, for a given instance type.")
          .labelNames("instance_type").register(registry);
      pricesLive = Gauge.build("karpenter_cloudprovider_prices_live",
              "1 when the prices of a capacity type come from the live AWS API, 0 when from the bundled price list.")
          .labelNames("capacity_type").register(registry);
    }

    void update(Supplier<List<NodePool>> nodePools) {
      Map<List<String>, Boolean> available = new HashMap<>();
      Map<List<String>, Double> prices = new HashMap<>();
      for (NodePool pool : nodePools.get()) {
        NodeClassReference ref = NodePoolReadiness.nodeClassRef(pool);
        if (ref == null || !EC2NodeClass.GROUP.equals(ref.getGroup()) || !EC2NodeClass.KIND.equals(ref.getKind())) {
          continue;
        }
        List<InstanceType> types;
        try {
          types = instanceTypes.apply(pool.getMetadata().getName(), new NodeClassRef(ref.getGroup(), ref.getKind(), ref.getName()));
        } catch (RuntimeException e) {
          LOG.warn("cloud provider metrics: instance types of NodePool {} not read, its offerings are left out: {}",
              pool.getMetadata().getName(), e.getMessage());
          continue;
        }
        for (InstanceType type : types) {
          cpuCores.labels(type.name()).set(type.capacity().cpuMilli() / 1000.0);
          memoryBytes.labels(type.name()).set(type.capacity().memoryMilli() / 1000.0);
          for (Offering offering : type.offerings()) {
            List<String> key = List.of(type.name(), offering.capacityType(), offering.zone());
            available.merge(key, offering.available(), Boolean::logicalOr);
            prices.put(key, offering.price());
          }
        }
      }
      available.forEach((key, value) -> offeringAvailable.labels(key.toArray(String[]::new)).set(value ? 1 : 0));
      prices.forEach((key, value) -> offeringPrice.labels(key.toArray(String[]::new)).set(value));
      pricesLive.labels(Labels.CAPACITY_TYPE_ON_DEMAND).set(onDemandPricesLive.getAsBoolean() ? 1 : 0);
      pricesLive.labels(Labels.CAPACITY_TYPE_SPOT).set(spotPricesLive.getAsBoolean() ? 1 : 0);
    }
  }
}
