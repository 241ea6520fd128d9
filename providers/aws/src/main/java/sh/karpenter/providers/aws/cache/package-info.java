/**
 * Caches of the AWS provider shared between the launch path and the instance types: offerings that
 * recently failed with insufficient capacity (upstream pkg/cache/unavailableofferings.go).
 * Behaviour: docs/behaviour/aws-launch.md#unavailable-offerings.
 */
package sh.karpenter.providers.aws.cache;
