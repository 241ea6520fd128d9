/**
 * Request batching (upstream pkg/batcher): a window collects concurrent single-item requests, groups
 * the ones one API call can answer together, and hands each group to an executor that makes the call
 * and completes every caller. {@code fleet.CreateFleetBatcher} and {@code instance.DescribeInstancesBatcher}
 * are built on it. Behaviour: docs/behaviour/aws-launch.md#batching.
 */
package sh.karpenter.providers.aws.batcher;
