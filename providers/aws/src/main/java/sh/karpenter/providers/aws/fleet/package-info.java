/**
 * EC2 Fleet for launches (upstream pkg/providers/instance's CreateFleet input, pkg/batcher/createfleet.go,
 * pkg/errors): the CreateFleet request of a launch (instant fleet of one unit, launch template
 * configs with instance type × subnet overrides priced as priorities, tags), the subnet each zone
 * launches into, the batcher that merges identical requests into one call, and what fleet errors mean.
 * Behaviour: docs/behaviour/aws-launch.md#createfleet.
 */
package sh.karpenter.providers.aws.fleet;
