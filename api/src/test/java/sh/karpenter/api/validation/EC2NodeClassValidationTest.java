package sh.karpenter.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.api.validation.YamlTrees.set;
import static sh.karpenter.api.validation.YamlTrees.tree;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.CapacityReservation;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.MetadataOptions;

/**
 * The offline validator on EC2NodeClasses: upstream's CEL suite (ec2nodeclass_validation_cel_test.go)
 * as tables of changes to upstream's base class, each valid or rejected with the field and the CRD
 * rule's message. Upstream builds its cases from Go structs, where an empty string, an empty map and a
 * nil list are left out of the JSON; the ports write them as Go would send them, and a few extra cases
 * show what the CRD does with the YAML forms Go cannot send.
 */
class EC2NodeClassValidationTest {
  private static final Validator VALIDATOR = Validator.standard();
  private static final String DOCUMENT = "nodeclass.yaml, document 1";

  /** Upstream's BeforeEach. */
  private static final String BASE =
      """
      apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata:
        name: default
      spec:
        amiFamily: AL2023
        amiSelectorTerms:
          - alias: al2023@latest
        role: role-1
        securityGroupSelectorTerms:
          - tags: {'*': '*'}
        subnetSelectorTerms:
          - tags: {'*': '*'}
      """;

  private static final String SUBNETS = "/spec/subnetSelectorTerms";
  private static final String SECURITY_GROUPS = "/spec/securityGroupSelectorTerms";
  private static final String RESERVATIONS = "/spec/capacityReservationSelectorTerms";
  private static final String AMIS = "/spec/amiSelectorTerms";
  private static final String FOUR_TERMS_LAST_INVALID = "[{tags: {test: testvalue}}, {tags: {test2: testvalue2}}, {tags: {test3: testvalue3}}, {tags: {'': testvalue4}}]";

  static Stream<Arguments> valid() {
    List<Arguments> cases = new ArrayList<>(List.of(
        valid("should succeed if just specifying role"),
        valid("should succeed if just specifying instance profile", "/spec/instanceProfile", "test-instance-profile", "/spec/role", null),
        valid("should accept valid enclave options when enabled", "/spec/enclaveOptions", "{enabled: true}"),
        valid("should accept valid enclave options when disabled", "/spec/enclaveOptions", "{enabled: false}"),
        valid("should succeed when tags are empty", "/spec/tags", "{}"),
        valid("should succeed if tags aren't in restricted tag keys",
            "/spec/tags", "{karpenter.sh/custom-key: value, karpenter.sh/managed: 'true', kubernetes.io/role/key: value}"),
        valid("should succeed with a valid subnet selector on tags", SUBNETS, "[{tags: {test: testvalue}}]"),
        valid("should succeed with a valid subnet selector on id", SUBNETS, "[{id: subnet-12345749}]"),
        valid("should succeed with a valid security group selector on tags", SECURITY_GROUPS, "[{tags: {test: testvalue}}]"),
        valid("should succeed with a valid security group selector on id", SECURITY_GROUPS, "[{id: sg-12345749}]"),
        valid("should succeed with a valid security group selector on name", SECURITY_GROUPS, "[{name: testname}]"),
        valid("should succeed with a valid capacity reservation selector on tags", RESERVATIONS, "[{tags: {test: testvalue}}]"),
        valid("should succeed with a valid capacity reservation selector on id", RESERVATIONS, "[{id: cr-12345749}]"),
        valid("should succeed for a valid ownerID", RESERVATIONS, "[{ownerID: '012345678901', tags: {test: testvalue}}]"),
        valid("should succeed when capacity group selector terms is set to nil", RESERVATIONS, "null"),
        valid("should succeed with a valid instanceMatchCriteria 'open'", RESERVATIONS, "[{instanceMatchCriteria: open}]"),
        valid("should succeed with a valid instanceMatchCriteria 'targeted'", RESERVATIONS, "[{instanceMatchCriteria: targeted}]"),
        valid("should succeed with instanceMatchCriteria combined with tags", RESERVATIONS, "[{instanceMatchCriteria: open, tags: {test: testvalue}}]"),
        valid("should succeed with instanceMatchCriteria combined with ownerID and tags",
            RESERVATIONS, "[{instanceMatchCriteria: targeted, ownerID: '012345678901', tags: {test: testvalue}}]"),
        valid("should succeed with a valid ami selector on alias", AMIS, "[{alias: al2023@latest}]"),
        valid("should succeed with a valid ami selector on tags", AMIS, "[{tags: {test: testvalue}}]"),
        valid("should succeed with a valid ami selector on id", AMIS, "[{id: ami-12345749}]"),
        valid("should succeed with a valid ami selector on name", AMIS, "[{name: testname}]"),
        valid("should succeed with a valid ami selector on name and owner", AMIS, "[{name: testname, owner: testowner}]"),
        valid("should succeed when an ami selector term has an owner key with tags", AMIS, "[{owner: testowner, tags: {test: testvalue}}]"),
        valid("should succeed for valid kubelet inputs", "/spec/kubelet",
            "{maxPods: 110, podsPerCore: 10, kubeReserved: {cpu: 200m, memory: 100Mi}, systemReserved: {cpu: 200m, memory: 100Mi},"
                + " evictionHard: {memory.available: 5%}}"),
        valid("should persist a field Karpenter has no Go representation for", "/spec/kubelet", "{serializeImagePulls: false}"),
        valid("should preserve a nested subtree unaltered", "/spec/kubelet",
            "{logging: {format: json, flushFrequency: 5s, options: {json: {infoBufferSize: 100Mi, splitStream: true}}}}"),
        valid("should succeed for valid metadata options", "/spec/metadataOptions",
            "{httpEndpoint: disabled, httpProtocolIPv6: enabled, httpPutResponseHopLimit: 34, httpTokens: optional}"),
        valid("should succeed if only one root volume is specified", "/spec/blockDeviceMappings",
            "[{deviceName: map-device-1, ebs: {volumeSize: 500G}, rootVolume: true}, {deviceName: map-device-2, ebs: {volumeSize: 50T}, rootVolume: false}]"),
        valid("should succeed for valid VolumeSize in G", "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: 58G}}]"),
        valid("should succeed for valid VolumeSize in T", "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: 45T}}]"),
        valid("should succeed with valid multiple network interfaces", "/spec/networkInterfaces",
            "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: 0, deviceIndex: 1, interfaceType: efa-only},"
                + " {networkCardIndex: 1, deviceIndex: 0, interfaceType: efa-only}, {networkCardIndex: 1, deviceIndex: 1, interfaceType: interface}]"),
        valid("should succeed when network interfaces is empty", "/spec/networkInterfaces", "[]"),
        valid("should succeed with valid tcpEstablishedTimeout", "/spec/connectionTracking", "{tcpEstablishedTimeout: 60}"),
        valid("should succeed with valid udpStreamTimeout", "/spec/connectionTracking", "{udpStreamTimeout: 120}"),
        valid("should succeed with valid udpTimeout", "/spec/connectionTracking", "{udpTimeout: 45}"),
        valid("should succeed with all valid connection tracking settings", "/spec/connectionTracking",
            "{tcpEstablishedTimeout: 432000, udpStreamTimeout: 180, udpTimeout: 60}"),
        valid("should succeed with nestedVirtualization enabled", "/spec/cpuOptions", "{nestedVirtualization: enabled}"),
        valid("should succeed with nestedVirtualization disabled", "/spec/cpuOptions", "{nestedVirtualization: disabled}"),
        valid("should succeed with empty CPUOptions", "/spec/cpuOptions", "{}"),
        valid("placement group by name", "/spec/placementGroupSelector", "{name: analytics}"),
        valid("placement group by id", "/spec/placementGroupSelector", "{id: pg-0123abcd}"),
        // YAML forms Go's omitempty never sends: the CRD accepts an empty tags map in a term.
        valid("a selector term with an empty tags map", SUBNETS, "[{tags: {}}]")));
    for (String family : AMIFamily.ALL) {
      cases.add(valid("should succeed with valid families: " + family, AMIS, "[{id: ami-0123456789abcdef}]", "/spec/amiFamily", family));
    }
    for (String family : AMIFamily.WITH_ALIAS) {
      String alias = family.toLowerCase(Locale.ROOT) + "@latest";
      cases.add(valid("should succeed when the amiFamily matches amiSelectorTerms[].alias: " + alias, AMIS, "[{alias: '" + alias + "'}]",
          "/spec/amiFamily", family));
      cases.add(valid("should succeed when the amiFamily is custom with amiSelectorTerms[].alias: " + alias, AMIS, "[{alias: '" + alias + "'}]",
          "/spec/amiFamily", AMIFamily.CUSTOM));
      cases.add(valid("an alias without amiFamily: " + alias, AMIS, "[{alias: '" + alias + "'}]", "/spec/amiFamily", null));
    }
    for (String[] alias : new String[][] {
        {"al2@latest", "AL2"}, {"al2@v20240625", "AL2"}, {"al2023@latest", "AL2023"}, {"al2023@v20240625", "AL2023"},
        {"bottlerocket@latest", "Bottlerocket"}, {"bottlerocket@1.10.0", "Bottlerocket"}, {"windows2019@latest", "Windows2019"},
        {"windows2022@latest", "Windows2022"}, {"windows2025@latest", "Windows2025"}}) {
      cases.add(valid("should succeed for valid aliases: " + alias[0], "/spec/amiFamily", alias[1], AMIS, "[{alias: '" + alias[0] + "'}]"));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void acceptsWhatUpstreamsCrdAccepts(String description, List<String> edits) {
    Validated<EC2NodeClass> result = VALIDATOR.ec2NodeClass(edited(edits), DOCUMENT);

    assertThat(result.errors()).as(description).isEmpty();
    assertThat(result.object()).isNotNull();
  }

  static Stream<Arguments> invalid() {
    String exactlyOne = "must specify exactly one of ['role', 'instanceProfile']";
    List<Arguments> cases = new ArrayList<>(List.of(
        invalid("should fail if specifying both instance profile and role", "spec", exactlyOne, "/spec/instanceProfile", "test-instance-profile"),
        invalid("should fail if not specifying one of instance profile and role", "spec", exactlyOne, "/spec/role", null),
        invalid("role given as an empty string", "spec.role", "role cannot be empty", "/spec/role", "''"),
        invalid("instanceProfile given as an empty string", "spec.instanceProfile", "instanceProfile cannot be empty",
            "/spec/role", null, "/spec/instanceProfile", "''"),
        invalid("should reject enclave options when enabled is omitted", "spec.enclaveOptions.enabled", "Required value", "/spec/enclaveOptions", "{}"),
        invalid("should fail with the ubuntu family", "spec.amiFamily",
            "Unsupported value: \"Ubuntu\": supported values: \"AL2\", \"AL2023\", \"Bottlerocket\", \"Custom\", \"Windows2019\", \"Windows2022\", \"Windows2025\"",
            AMIS, "[{id: ami-0123456789abcdef}]", "/spec/amiFamily", "Ubuntu"),
        invalid("should fail when neither amiFamily nor an alias are specified", "spec", "must specify amiFamily if amiSelectorTerms does not contain an alias",
            AMIS, "[{id: ami-01234567890abcdef}]", "/spec/amiFamily", null),
        invalid("should fail if tags contain a restricted domain key: karpenter.sh/nodepool", "spec.tags",
            "tag contains a restricted tag matching karpenter.sh/nodepool", "/spec/tags", "{karpenter.sh/nodepool: value}"),
        invalid("should fail if tags contain a restricted domain key: kubernetes.io/cluster/test", "spec.tags",
            "tag contains a restricted tag matching kubernetes.io/cluster/", "/spec/tags", "{kubernetes.io/cluster/test: value}"),
        invalid("should fail if tags contain a restricted domain key: eks:eks-cluster-name", "spec.tags",
            "tag contains a restricted tag matching eks:eks-cluster-name", "/spec/tags", "{'eks:eks-cluster-name': test}"),
        invalid("should fail if tags contain a restricted domain key: karpenter.k8s.aws/ec2nodeclass", "spec.tags",
            "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass", "/spec/tags", "{karpenter.k8s.aws/ec2nodeclass: test}"),
        invalid("should fail if tags contain a restricted domain key: karpenter.sh/nodeclaim", "spec.tags",
            "tag contains a restricted tag matching karpenter.sh/nodeclaim", "/spec/tags", "{karpenter.sh/nodeclaim: test}"),
        invalid("an empty tag key", "spec.tags", "empty tag keys aren't supported", "/spec/tags", "{'': value}"),

        invalid("should fail when subnet selector terms is set to nil", "spec.subnetSelectorTerms", "Required value", SUBNETS, null),
        invalid("should fail when no subnet selector terms exist", "spec.subnetSelectorTerms", "subnetSelectorTerms cannot be empty", SUBNETS, "[]"),
        invalid("should fail when a subnet selector term has no values", "spec.subnetSelectorTerms", "expected at least one, got none, ['tags', 'id']",
            SUBNETS, "[{}]"),
        invalid("should fail when a subnet selector term has a tag map key that is empty", "spec.subnetSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", SUBNETS, "[{tags: {test: ''}}]"),
        invalid("should fail when a subnet selector term has a tag map value that is empty", "spec.subnetSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", SUBNETS, "[{tags: {'': testvalue}}]"),
        invalid("should fail when the last subnet selector is invalid", "spec.subnetSelectorTerms[3].tags",
            "empty tag keys or values aren't supported", SUBNETS, FOUR_TERMS_LAST_INVALID),
        invalid("should fail when specifying id with tags (subnet)", "spec.subnetSelectorTerms",
            "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term",
            SUBNETS, "[{id: subnet-12345749, tags: {test: testvalue}}]"),
        invalid("subnet id of the wrong form", "spec.subnetSelectorTerms[0].id", "should match 'subnet-[0-9a-z]+'", SUBNETS, "[{id: sn-12345749}]"),

        invalid("should fail when security group selector terms is set to nil", "spec.securityGroupSelectorTerms", "Required value", SECURITY_GROUPS, null),
        invalid("should fail when no security group selector terms exist", "spec.securityGroupSelectorTerms",
            "securityGroupSelectorTerms cannot be empty", SECURITY_GROUPS, "[]"),
        invalid("should fail when a security group selector term has no values", "spec.securityGroupSelectorTerms",
            "expected at least one, got none, ['tags', 'id', 'name']", SECURITY_GROUPS, "[{}]"),
        invalid("should fail when a security group selector term has a tag map key that is empty", "spec.securityGroupSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", SECURITY_GROUPS, "[{tags: {test: ''}}]"),
        invalid("should fail when a security group selector term has a tag map value that is empty", "spec.securityGroupSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", SECURITY_GROUPS, "[{tags: {'': testvalue}}]"),
        invalid("should fail when the last security group selector is invalid", "spec.securityGroupSelectorTerms[3].tags",
            "empty tag keys or values aren't supported", SECURITY_GROUPS, FOUR_TERMS_LAST_INVALID),
        invalid("should fail when specifying id with tags (security group)", "spec.securityGroupSelectorTerms",
            "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
            SECURITY_GROUPS, "[{id: sg-12345749, tags: {test: testvalue}}]"),
        invalid("should fail when specifying id with name", "spec.securityGroupSelectorTerms",
            "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
            SECURITY_GROUPS, "[{id: sg-12345749, name: my-security-group}]"),
        invalid("should fail when specifying name with tags", "spec.securityGroupSelectorTerms",
            "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
            SECURITY_GROUPS, "[{name: my-security-group, tags: {test: testvalue}}]"),

        invalid("should fail with a capacity reservation selector on a malformed id", "spec.capacityReservationSelectorTerms[0].id",
            "should match '^cr-[0-9a-z]+$'", RESERVATIONS, "[{id: r-12345749}]"),
        invalid("should fail when a capacity reservation selector term has no values", "spec.capacityReservationSelectorTerms",
            "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']", RESERVATIONS, "[{}]"),
        invalid("should fail when a capacity reservation selector term has a tag map key that is empty", "spec.capacityReservationSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", RESERVATIONS, "[{tags: {test: ''}}]"),
        invalid("should fail when a capacity reservation selector term has a tag map value that is empty", "spec.capacityReservationSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", RESERVATIONS, "[{tags: {'': testvalue}}]"),
        invalid("should fail when the last capacity reservation selector is invalid", "spec.capacityReservationSelectorTerms[3].tags",
            "empty tag keys or values aren't supported", RESERVATIONS, FOUR_TERMS_LAST_INVALID),
        invalid("should fail when specifying id with tags in a single term", "spec.capacityReservationSelectorTerms",
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
            RESERVATIONS, "[{id: cr-12345749, tags: {test: testvalue}}]"),
        invalid("should fail when specifying id with ownerID in a single term", "spec.capacityReservationSelectorTerms",
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
            RESERVATIONS, "[{ownerID: '012345678901', id: cr-12345749}]"),
        invalid("should fail when the ownerID is malformed", "spec.capacityReservationSelectorTerms[0].ownerID",
            "should match '^[0-9]{12}$'", RESERVATIONS, "[{ownerID: '01234567890', tags: {test: testvalue}}]"),
        invalid("should fail when the ownerID is set by itself", "spec.capacityReservationSelectorTerms",
            "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']", RESERVATIONS, "[{ownerID: '012345678901'}]"),
        invalid("should fail with invalid instanceMatchCriteria value", "spec.capacityReservationSelectorTerms[0].instanceMatchCriteria",
            "Unsupported value: \"invalid\": supported values: \"open\", \"targeted\"", RESERVATIONS, "[{instanceMatchCriteria: invalid}]"),
        invalid("should fail when specifying id with instanceMatchCriteria", "spec.capacityReservationSelectorTerms",
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
            RESERVATIONS, "[{id: cr-12345749, instanceMatchCriteria: open}]"),
        // Upstream's rule is !self.all(...), which is false for an empty list: an empty list (which Go
        // never sends, its nil is left out) is rejected with the 'id' message.
        invalid("an empty capacity reservation selector term list", "spec.capacityReservationSelectorTerms",
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term", RESERVATIONS, "[]"),

        invalid("should fail when a ami selector term has no values", "spec.amiSelectorTerms",
            "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']", AMIS, "[{}]"),
        invalid("should fail when a ami selector term has a tag map key that is empty", "spec.amiSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", AMIS, "[{tags: {test: ''}}]"),
        invalid("should fail when a ami selector term has a tag map value that is empty", "spec.amiSelectorTerms[0].tags",
            "empty tag keys or values aren't supported", AMIS, "[{tags: {'': testvalue}}]"),
        invalid("should fail when the last ami selector is invalid", "spec.amiSelectorTerms[3].tags",
            "empty tag keys or values aren't supported", AMIS, FOUR_TERMS_LAST_INVALID),
        invalid("should fail when specifying alias with other terms", "spec.amiSelectorTerms",
            "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms", AMIS, "[{alias: al2023@latest}, {id: ami-1234749}]"),
        invalid("no ami selector terms", "spec.amiSelectorTerms", "should have at least 1 items", AMIS, "[]"),
        invalid("should fail for an alias with an invalid family", "spec.amiSelectorTerms[0].alias",
            "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
            AMIS, "[{alias: ubuntu@latest}]"),
        invalid("an alias longer than 30 characters", "spec.amiSelectorTerms[0].alias", "Too long: may not be more than 30 bytes",
            AMIS, "[{alias: al2023@v20240625v20240625v20240625}]"),
        invalid("windows alias without a version", "spec.amiSelectorTerms[0].alias",
            "Invalid value: \"string\": index out of bounds: 1 evaluating rule: windows families may only specify version 'latest'",
            AMIS, "[{alias: windows2019}]"),

        invalid("should fail for invalid for HTTPEndpoint", "spec.metadataOptions.httpEndpoint",
            "Unsupported value: \"test\": supported values: \"enabled\", \"disabled\"", "/spec/metadataOptions", "{httpEndpoint: test}"),
        invalid("should fail for invalid for HTTPProtocolIPv6", "spec.metadataOptions.httpProtocolIPv6",
            "Unsupported value: \"test\": supported values: \"enabled\", \"disabled\"", "/spec/metadataOptions", "{httpProtocolIPv6: test}"),
        invalid("should fail for invalid for HTTPPutResponseHopLimit", "spec.metadataOptions.httpPutResponseHopLimit",
            "Invalid value: -5: spec.metadataOptions.httpPutResponseHopLimit in body should be greater than or equal to 1",
            "/spec/metadataOptions", "{httpPutResponseHopLimit: -5}"),
        invalid("should fail for invalid for HTTPTokens", "spec.metadataOptions.httpTokens",
            "Unsupported value: \"test\": supported values: \"required\", \"optional\"", "/spec/metadataOptions", "{httpTokens: test}"),

        invalid("should fail if more than one root volume is specified", "spec.blockDeviceMappings", "must have only one blockDeviceMappings with rootVolume",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: 50G}, rootVolume: true},"
                + " {deviceName: map-device-2, ebs: {volumeSize: 50G}, rootVolume: true}]"),
        invalid("should fail VolumeSize is less then 1Gi/1G", "spec.blockDeviceMappings[0].ebs.volumeSize", "in body should match",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: 1m}}]"),
        invalid("should fail VolumeSize is greater then 64T", "spec.blockDeviceMappings[0].ebs.volumeSize", "in body should match",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: 100T}}]"),
        invalid("should fail for VolumeSize that do not parse into quantity values", "spec.blockDeviceMappings[0].ebs.volumeSize",
            "in body should match", "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: '0'}}]"),
        invalid("should fail if VolumeInitializationRate set but SnapshotID not specified", "spec.blockDeviceMappings[0].ebs",
            "snapshotID must be set when volumeInitializationRate is set",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: '0', volumeInitializationRate: 100}}]"),
        invalid("should fail if VolumeInitializationRate too low", "spec.blockDeviceMappings[0].ebs.volumeInitializationRate",
            "should be greater than or equal to 100",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: '0', snapshotID: snap-1, volumeInitializationRate: 99}}]"),
        invalid("should fail if VolumeInitializationRate too high", "spec.blockDeviceMappings[0].ebs.volumeInitializationRate",
            "should be less than or equal to 300",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeSize: '0', snapshotID: snap-1, volumeInitializationRate: 888}}]"),
        invalid("an EBS volume with neither snapshot nor size", "spec.blockDeviceMappings[0].ebs", "snapshotID or volumeSize must be defined",
            "/spec/blockDeviceMappings", "[{deviceName: map-device-1, ebs: {volumeType: gp3}}]"),

        invalid("should fail with an invalid interface type", "spec.networkInterfaces[0].interfaceType",
            "Unsupported value: \"efa\": supported values: \"interface\", \"efa-only\"",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: efa}]"),
        invalid("should fail with a negative NetworkCardIndex", "spec.networkInterfaces[1].networkCardIndex", "should be greater than or equal to 0",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: -1, deviceIndex: 0, interfaceType: interface}]"),
        invalid("should fail with a negative DeviceIndex", "spec.networkInterfaces[1].deviceIndex", "should be greater than or equal to 0",
            "/spec/networkInterfaces", "[{networkCardIndex: -1, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: 0, deviceIndex: -1, interfaceType: interface}]"),
        invalid("should fail with duplicate Network Interface and Device Index fields", "spec.networkInterfaces",
            "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: 0, deviceIndex: 1, interfaceType: efa-only},"
                + " {networkCardIndex: 1, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: 1, deviceIndex: 0, interfaceType: efa-only}]"),
        invalid("should fail with no primary network interface", "spec.networkInterfaces",
            "networkInterfaces must include a primary interface with interfaceType='interface'",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 1, interfaceType: interface}]"),
        invalid("should fail when primary network interface is not ENA", "spec.networkInterfaces",
            "networkInterfaces must include a primary interface with interfaceType='interface'",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: efa-only}]"),
        invalid("should fail when multiple EFA devices on one network card", "spec.networkInterfaces",
            "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}, {networkCardIndex: 1, deviceIndex: 0, interfaceType: efa-only},"
                + " {networkCardIndex: 1, deviceIndex: 1, interfaceType: efa-only}]"),
        invalid("a network interface without its type", "spec.networkInterfaces[0].interfaceType", "Required value",
            "/spec/networkInterfaces", "[{networkCardIndex: 0, deviceIndex: 0}]"),

        invalid("should fail when connectionTracking is specified with no fields set", "spec.connectionTracking",
            "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set", "/spec/connectionTracking", "{}"),
        invalid("should fail when tcpEstablishedTimeout is below minimum (60s)", "spec.connectionTracking.tcpEstablishedTimeout",
            "should be greater than or equal to 60", "/spec/connectionTracking", "{tcpEstablishedTimeout: 59}"),
        invalid("should fail when tcpEstablishedTimeout is above maximum (432000s)", "spec.connectionTracking.tcpEstablishedTimeout",
            "should be less than or equal to 432000", "/spec/connectionTracking", "{tcpEstablishedTimeout: 432001}"),
        invalid("should fail when udpStreamTimeout is below minimum (60s)", "spec.connectionTracking.udpStreamTimeout",
            "should be greater than or equal to 60", "/spec/connectionTracking", "{udpStreamTimeout: 59}"),
        invalid("should fail when udpStreamTimeout is above maximum (180s)", "spec.connectionTracking.udpStreamTimeout",
            "should be less than or equal to 180", "/spec/connectionTracking", "{udpStreamTimeout: 181}"),
        invalid("should fail when udpTimeout is below minimum (30s)", "spec.connectionTracking.udpTimeout",
            "should be greater than or equal to 30", "/spec/connectionTracking", "{udpTimeout: 29}"),
        invalid("should fail when udpTimeout is above maximum (60s)", "spec.connectionTracking.udpTimeout",
            "should be less than or equal to 60", "/spec/connectionTracking", "{udpTimeout: 61}"),
        invalid("should fail with invalid nestedVirtualization value", "spec.cpuOptions.nestedVirtualization",
            "Unsupported value: \"invalid\": supported values: \"enabled\", \"disabled\"", "/spec/cpuOptions", "{nestedVirtualization: invalid}"),

        invalid("placement group with neither name nor id", "spec.placementGroupSelector", "expected at least one, got none, ['name', 'id']",
            "/spec/placementGroupSelector", "{}"),
        invalid("placement group with name and id", "spec.placementGroupSelector", "'name' and 'id' are mutually exclusive",
            "/spec/placementGroupSelector", "{name: analytics, id: pg-0123abcd}"),
        invalid("placement group id of the wrong form", "spec.placementGroupSelector.id", "should match '^pg-[0-9a-z]+$'",
            "/spec/placementGroupSelector", "{id: analytics}"),
        invalid("negative ipPrefixCount", "spec.ipPrefixCount", "should be greater than or equal to 0", "/spec/ipPrefixCount", "-1"),
        invalid("instanceStorePolicy other than RAID0", "spec.instanceStorePolicy", "Unsupported value: \"RAID1\": supported values: \"RAID0\"",
            "/spec/instanceStorePolicy", "RAID1"),
        invalid("unknown field", "spec.amiSelector", "unknown field \"spec.amiSelector\"", "/spec/amiSelector", "{id: ami-1}"),

        // spec.kubelet: the API server stores it unchecked; upstream's validation controller rejects these
        // (ValidationSucceeded=False), and so does the offline validator.
        invalid("should admit a configuration the kubelet library rejects (offline: rejected)", "spec.kubelet.podsPerCore",
            "cannot unmarshal string into a field of type int32", "/spec/kubelet", "{notAKubeletField: true, podsPerCore: ten}"),
        invalid("a field the kubelet does not declare", "spec.kubelet", "unknown field \"notAKubeletField\"", "/spec/kubelet", "{notAKubeletField: true}"),
        invalid("a field Karpenter sets itself", "spec.kubelet.registerWithTaints",
            "can't be set, Karpenter sets it from the NodeClaim's taints so the node registers unschedulable until it's ready",
            "/spec/kubelet", "{registerWithTaints: [{key: example.com/dedicated, value: gpu, effect: NoSchedule}]}"),
        invalid("an eviction threshold that is neither a percentage nor a quantity", "spec.kubelet.evictionHard[memory.available]",
            "\"lots\" must be a percentage or a resource quantity", "/spec/kubelet", "{evictionHard: {memory.available: lots}}")));

    for (String alias : List.of("@latest", "al2023", "al2023@", "al2023-latest")) {
      cases.add(invalid("should fail for incorrectly formatted aliases: " + alias, "spec.amiSelectorTerms[0].alias",
          "'alias' is improperly formatted, must match the format 'family@version'", AMIS, "[{alias: '" + alias + "'}]"));
    }
    for (String alias : List.of("windows2019@v1.0.0", "windows2022@v1.0.0", "windows2025@v1.0.0")) {
      cases.add(invalid("should fail when specifying non-latest versions with Windows aliases: " + alias, "spec.amiSelectorTerms[0].alias",
          "windows families may only specify version 'latest'", AMIS, "[{alias: '" + alias + "'}]"));
    }
    for (String other : List.of("alias: al2023@latest", "tags: {test: testvalue}", "name: my-custom-ami", "owner: '123456789'")) {
      cases.add(invalid("should fail when specifying id with other fields: " + other, "spec.amiSelectorTerms",
          "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms", AMIS, "[{id: ami-1234749, " + other + "}]"));
    }
    for (String other : List.of("id: ami-1234749", "tags: {test: testvalue}", "name: my-custom-ami", "owner: '123456789'")) {
      cases.add(invalid("should fail when specifying alias with other fields: " + other, "spec.amiSelectorTerms",
          "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms", AMIS, "[{alias: al2023@latest, " + other + "}]"));
    }
    for (String family : AMIFamily.WITH_ALIAS) {
      for (String aliasFamily : AMIFamily.WITH_ALIAS) {
        if (!family.equals(aliasFamily)) {
          String article = aliasFamily.startsWith("AL") ? "an" : "a";
          cases.add(invalid("should fail when then amiFamily does not match amiSelectorTerms[].alias: " + family + " with " + aliasFamily, "spec",
              "if set, amiFamily must be '" + aliasFamily + "' or 'Custom' when using " + article + " " + aliasFamily + " alias",
              AMIS, "[{alias: '" + aliasFamily.toLowerCase(Locale.ROOT) + "@latest'}]", "/spec/amiFamily", family));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void rejectsWhatUpstreamRejectsNamingTheFieldAndRule(String description, String fieldPath, String message, List<String> edits) {
    Validated<EC2NodeClass> result = VALIDATOR.ec2NodeClass(edited(edits), DOCUMENT);

    assertThat(result.isValid()).as(description).isFalse();
    assertThat(result.errors()).as(description).anySatisfy(error -> {
      assertThat(error.document()).isEqualTo(DOCUMENT);
      assertThat(error.fieldPath()).isEqualTo(fieldPath);
      assertThat(error.message()).contains(message);
    });
  }

  @Test
  void appliesTheMetadataOptionsDefaults() {
    EC2NodeClass nodeClass = VALIDATOR.ec2NodeClass(tree(BASE), DOCUMENT).orElseThrow();

    MetadataOptions options = nodeClass.getSpec().getMetadataOptions();
    assertThat(options.getHttpEndpoint()).isEqualTo(MetadataOptions.DEFAULT_HTTP_ENDPOINT);
    assertThat(options.getHttpProtocolIPv6()).isEqualTo(MetadataOptions.DEFAULT_HTTP_PROTOCOL_IPV6);
    assertThat(options.getHttpPutResponseHopLimit()).isEqualTo(MetadataOptions.DEFAULT_HTTP_PUT_RESPONSE_HOP_LIMIT);
    assertThat(options.getHttpTokens()).isEqualTo(MetadataOptions.DEFAULT_HTTP_TOKENS);
  }

  @Test
  void defaultsTheMissingFieldsOfAGivenMetadataOptions() {
    ObjectNode tree = tree(BASE);
    set(tree, "/spec/metadataOptions", "{httpTokens: optional}");

    MetadataOptions options = VALIDATOR.ec2NodeClass(tree, DOCUMENT).orElseThrow().getSpec().getMetadataOptions();

    assertThat(options.getHttpTokens()).isEqualTo("optional");
    assertThat(options.getHttpEndpoint()).isEqualTo("enabled");
    assertThat(options.getHttpPutResponseHopLimit()).isEqualTo(1L);
  }

  @Test
  void defaultsCapacityReservationTypeAndState() {
    ObjectNode tree = tree(BASE);
    set(tree, "/status", "{capacityReservations: [{availabilityZone: us-west-2a, id: cr-0123, instanceMatchCriteria: open,"
        + " instanceType: m5.large, ownerID: '012345678901'}]}");

    CapacityReservation reservation = VALIDATOR.ec2NodeClass(tree, DOCUMENT).orElseThrow().getStatus().getCapacityReservations().getFirst();

    assertThat(reservation.getReservationType()).isEqualTo(CapacityReservation.TYPE_DEFAULT);
    assertThat(reservation.getState()).isEqualTo(CapacityReservation.STATE_ACTIVE);
  }

  @Test
  void keepsKubeletNullsButPrunesTopLevelOnes() {
    ObjectNode tree = tree(BASE);
    set(tree, "/spec/kubelet", "{maxPods: 110, podsPerCore: null, logging: {format: null}}");

    EC2NodeClass nodeClass = VALIDATOR.ec2NodeClass(tree, DOCUMENT).orElseThrow();

    assertThat(nodeClass.getSpec().getKubelet().fields()).containsOnlyKeys("maxPods", "logging");
    assertThat(nodeClass.getSpec().getKubelet().fields().get("logging").get("format").isNull()).isTrue();
  }

  @Test
  void validatesEC2NodeClassesBuiltInCodeAndInAStream() {
    EC2NodeClass nodeClass = VALIDATOR.ec2NodeClass(tree(BASE), DOCUMENT).orElseThrow();
    assertThat(VALIDATOR.validateEC2NodeClass(nodeClass, "built")).isEmpty();
    assertThat(nodeClass.amiFamily()).isEqualTo(AMIFamily.AL2023);

    nodeClass.getSpec().setInstanceProfile("profile");
    assertThat(VALIDATOR.validateEC2NodeClass(nodeClass, "built")).extracting(ValidationError::message)
        .containsExactly("Invalid value: must specify exactly one of ['role', 'instanceProfile']");

    List<Validated<?>> results = VALIDATOR.validateYaml(BASE + "---\n" + BASE.replace("karpenter.k8s.aws/v1", "karpenter.k8s.aws/v1beta1"), "classes.yaml");
    assertThat(results.get(0).object()).isInstanceOf(EC2NodeClass.class);
    assertThat(results.get(1).errors()).singleElement().satisfies(e -> assertThat(e.message())
        .startsWith("no kind \"EC2NodeClass\" is served in \"karpenter.k8s.aws/v1beta1\""));
  }

  private static ObjectNode edited(List<String> edits) {
    ObjectNode tree = tree(BASE);
    for (int i = 0; i < edits.size(); i += 2) {
      set(tree, edits.get(i), edits.get(i + 1));
    }
    return tree;
  }

  private static Arguments valid(String description, String... edits) {
    return Arguments.of(description, Arrays.asList(edits));
  }

  private static Arguments invalid(String description, String fieldPath, String message, String... edits) {
    return Arguments.of(description, fieldPath, message, Arrays.asList(edits));
  }
}
