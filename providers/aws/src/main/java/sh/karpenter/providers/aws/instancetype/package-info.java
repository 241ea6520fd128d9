/**
 * The EC2 instance types an EC2NodeClass can launch (upstream {@code pkg/providers/instancetype} and
 * the {@code providers.instancetype} controller): DescribeInstanceTypes and
 * DescribeInstanceTypeOfferings turned into core instance types with core's AWS formulas, offerings
 * priced by {@code pricing} and marked unavailable by {@link
 * sh.karpenter.providers.aws.instancetype.OfferingAvailability}. Behaviour:
 * docs/behaviour/aws-instance-types.md.
 */
package sh.karpenter.providers.aws.instancetype;
