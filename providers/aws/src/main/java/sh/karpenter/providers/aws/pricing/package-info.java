/**
 * Prices of EC2 instance types (upstream {@code pkg/providers/pricing} and its controller): the
 * bundled on-demand price list and spot prices from DescribeSpotPriceHistory, refreshed every 12
 * hours. Behaviour: docs/behaviour/aws-instance-types.md.
 */
package sh.karpenter.providers.aws.pricing;
