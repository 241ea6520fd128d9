/**
 * Interruption handling (upstream's AWS {@code pkg/controllers/interruption}): EventBridge events
 * about instances (spot interruption warnings, rebalance recommendations, scheduled changes, state
 * changes, capacity reservation interruptions) read from the SQS interruption queue and turned into
 * NodeClaim deletions, Events, unavailable offerings and metrics.
 * Behaviour: docs/behaviour/aws-interruption.md.
 */
package sh.karpenter.providers.aws.interruption;
