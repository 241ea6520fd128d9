/**
 * EC2 instances Karpenter launches (upstream pkg/providers/instance): create through CreateFleet,
 * find by ID or by Karpenter's tags, terminate, and what CreateFleet's errors mean for the offerings
 * and the NodeClaim. Behaviour: docs/behaviour/aws-launch.md#create.
 */
package sh.karpenter.providers.aws.instance;
