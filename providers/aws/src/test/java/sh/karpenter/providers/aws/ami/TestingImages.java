package sh.karpenter.providers.aws.ami;

import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeImagesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeImagesResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Image;

/** An EC2 client that answers {@code DescribeImages} from a list, honouring {@code image-id} filters, and records the requests. */
final class TestingImages implements Ec2Client {
  final List<Image> images = new ArrayList<>();
  final List<DescribeImagesRequest> requests = new ArrayList<>();

  TestingImages add(String id, String name, String architecture, String created, String deprecation) {
    images.add(Image.builder().imageId(id).name(name).architecture(architecture).creationDate(created).deprecationTime(deprecation).build());
    return this;
  }

  @Override
  public DescribeImagesResponse describeImages(DescribeImagesRequest request) {
    requests.add(request);
    List<String> ids = request.filters().stream().filter(f -> f.name().equals("image-id")).findFirst().map(Filter::values).orElse(null);
    return DescribeImagesResponse.builder()
        .images(images.stream().filter(image -> ids == null || ids.contains(image.imageId())).toList())
        .build();
  }

  @Override
  public String serviceName() {
    return "ec2";
  }

  @Override
  public void close() {}
}
