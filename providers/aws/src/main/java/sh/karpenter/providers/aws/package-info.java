/**
 * The AWS cloud provider (upstream kubernetes-sigs/karpenter-provider-aws v1.15.1): EC2NodeClass
 * resolution, instance types and prices from EC2, launch with CreateFleet, drift and garbage
 * collection. Behaviour: docs/behaviour/aws.md.
 */
package sh.karpenter.providers.aws;
