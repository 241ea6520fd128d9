package sh.karpenter.core.scheduling;

import sh.karpenter.core.pod.Pod;

/** A pod the pass could not place, with a reason naming the constraint that failed and against what. */
public record PodError(Pod pod, String reason) {}
