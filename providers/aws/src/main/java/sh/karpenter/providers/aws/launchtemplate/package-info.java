/**
 * EC2 launch templates for launches (upstream pkg/providers/launchtemplate): one per resolved
 * template, named {@code karpenter.k8s.aws/<hash of its contents>}, created on first use, found again
 * by name after a restart or a lost race, cached, and deleted with their EC2NodeClass.
 * Behaviour: docs/behaviour/aws-launch.md#launch-templates.
 */
package sh.karpenter.providers.aws.launchtemplate;
