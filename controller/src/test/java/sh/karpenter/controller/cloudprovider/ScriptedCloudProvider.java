package sh.karpenter.controller.cloudprovider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.resources.Resources;

/**
 * A hand-written CloudProvider for decorator tests: every call advances a {@link TestingClock} by
 * {@link #callTakes} (so measured durations are exact), is recorded by name, and throws {@link
 * #failNextWith} once when set.
 *
 * <p>Core's {@link sh.karpenter.core.cloudprovider.TestingCloudProvider} models a cloud (it chooses
 * Offerings, remembers instances) but cannot stand in here: its calls take no time on the clock, it
 * records only create and delete, and it fails only {@code create}, only with a {@code
 * CloudProviderException}, while {@code MeteredCloudProvider} must be shown to time the delegate's
 * call itself and to count any method's failure, including a bug's {@code IllegalStateException}.
 */
final class ScriptedCloudProvider implements CloudProvider {
  static final Instance INSTANCE =
      new Instance(
          "fake://i-1", "m5.large", "zone-a", "on-demand", Map.of(), Map.of(), Resources.EMPTY, Resources.EMPTY, "");

  private final TestingClock clock;
  final List<String> calls = new ArrayList<>();
  Duration callTakes = Duration.ZERO;
  RuntimeException failNextWith;

  ScriptedCloudProvider(TestingClock clock) {
    this.clock = clock;
  }

  private void call(String method) {
    calls.add(method);
    clock.step(callTakes);
    RuntimeException error = failNextWith;
    failNextWith = null;
    if (error != null) throw error;
  }

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    call("instanceTypes");
    return List.of();
  }

  @Override
  public Instance create(LaunchRequest request) {
    call("create");
    return INSTANCE;
  }

  @Override
  public void delete(String providerId) {
    call("delete");
  }

  @Override
  public Optional<Instance> get(String providerId) {
    call("get");
    return Optional.of(INSTANCE);
  }

  @Override
  public List<Instance> list() {
    call("list");
    return List.of(INSTANCE);
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    call("driftReason");
    return "ImageDrift";
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return List.of(new RepairPolicy("Ready", "False", Duration.ofMinutes(30)));
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return List.of(new NodeClassRef("karpenter.kwok.sh", "KWOKNodeClass", ""));
  }
}
