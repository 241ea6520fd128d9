/**
 * AMI families (upstream pkg/providers/amifamily): the user data each family's nodes bootstrap from
 * (AL2023's nodeadm NodeConfig in a MIME archive, Bottlerocket's TOML settings, AL2's bootstrap.sh,
 * Custom's user data as written), each merged with the EC2NodeClass's {@code userData} as upstream
 * does; default block device mappings and metadata options; and the resolution of the launch
 * templates a launch needs (one per AMI and max-pods value). Pure functions of their inputs.
 * Behaviour: docs/behaviour/aws-launch.md#user-data.
 */
package sh.karpenter.providers.aws.amifamily;
