/**
 * EC2 status checks and scheduled events of instances (upstream's AWS {@code pkg/providers/instancestatus}):
 * DescribeInstanceStatus answers reduced to the failed checks the instance-status controller acts on.
 * Behaviour: docs/behaviour/aws-interruption.md#instance-status-checks.
 */
package sh.karpenter.providers.aws.instancestatus;
