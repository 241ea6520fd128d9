package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.List;

/**
 * An AMI the selector terms resolved to, with the requirements an instance type must meet to use it
 * (architecture, and the variant's GPU/accelerator or Windows requirements), in the status's order.
 *
 * @param creationDate RFC 3339, or empty when EC2 gave none
 */
public record ResolvedAmi(String name, String id, String creationDate, boolean deprecated, List<NodeSelectorRequirement> requirements) {}
