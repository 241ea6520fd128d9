package sh.karpenter.providers.aws.ami;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.GetParameterRequest;
import software.amazon.awssdk.services.ssm.model.GetParameterResponse;
import software.amazon.awssdk.services.ssm.model.Parameter;
import software.amazon.awssdk.services.ssm.model.ParameterNotFoundException;

/** An SSM client that answers {@code GetParameter} from a map and records the names asked for. */
final class TestingParameters implements SsmClient {
  final Map<String, String> values = new HashMap<>();
  final List<String> asked = new ArrayList<>();

  @Override
  public GetParameterResponse getParameter(GetParameterRequest request) {
    asked.add(request.name());
    String value = values.get(request.name());
    if (value == null) {
      throw ParameterNotFoundException.builder().message("parameter " + request.name() + " not found").build();
    }
    return GetParameterResponse.builder().parameter(Parameter.builder().name(request.name()).value(value).build()).build();
  }

  @Override
  public String serviceName() {
    return "ssm";
  }

  @Override
  public void close() {}
}
