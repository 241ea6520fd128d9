/**
 * Garbage collection of leaked instances: instances Karpenter launched that no NodeClaim references
 * (upstream's AWS {@code pkg/controllers/nodeclaim/garbagecollection}).
 * Behaviour: docs/behaviour/aws.md#garbage-collection.
 */
package sh.karpenter.providers.aws.garbagecollection;
