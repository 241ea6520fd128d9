package sh.karpenter.core.cloudprovider;

import java.time.Duration;

/** A node condition that, held for longer than {@code toleration}, marks the node for repair. */
public record RepairPolicy(String conditionType, String conditionStatus, Duration toleration) {}
