// The GPU executor's ConvTranspose without a GPU: the extended output cuDNN's backward data writes and where the
// output is cropped from it (src/exec/cuda/conv_plan.h: ConvTransposeGeometry). The extended output is computed here
// by a plain loop and cropped as the kernel crops it, against the ONNX project's node tests (pads, auto_pad,
// output_shape, output_padding, dilations, groups, 1-D and 3-D); cuDNN's own output-size arithmetic (its descriptors
// need no device) confirms that the extended output convolves back to the input.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/cuda/conv_plan.h"
#include "exec/cuda/descriptors.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

int64_t product(const std::vector<int64_t>& d, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < d.size(); ++i) n *= d[i];
  return n;
}

// The transposed convolution into the extended output, plus the bias, then the crop.
std::vector<float> conv_transpose_on_host(const cuda::ConvTransposeGeometry& g, const std::vector<int64_t>& xd,
                                          const std::vector<float>& x, const std::vector<int64_t>& wd,
                                          const std::vector<float>& w, const std::vector<float>* bias,
                                          const std::vector<int64_t>& yd) {
  const auto& ed = g.extended;
  const size_t n = xd.size() - 2;
  const int64_t in_per_group = xd[1] / g.group, out_per_group = wd[1];
  const int64_t x_spatial = product(xd, 2), k_spatial = product(wd, 2), e_spatial = product(ed, 2);
  std::vector<float> e(static_cast<size_t>(product(ed, 0)), 0.f);
  for (int64_t b = 0; b < xd[0]; ++b)
    for (int64_t ci = 0; ci < xd[1]; ++ci)
      for (int64_t xi = 0; xi < x_spatial; ++xi) {
        float v = x[static_cast<size_t>((b * xd[1] + ci) * x_spatial + xi)];
        int64_t group = ci / in_per_group;
        for (int64_t co = 0; co < out_per_group; ++co)
          for (int64_t ki = 0; ki < k_spatial; ++ki) {
            // Output position per dim: x index x stride + kernel index x dilation.
            int64_t eo = 0, xr = xi, kr = ki;
            std::vector<int64_t> pos(n);
            for (size_t d = n; d-- > 0;) {
              pos[d] = (xr % xd[d + 2]) * g.strides[d] + (kr % wd[d + 2]) * g.dilations[d];
              xr /= xd[d + 2];
              kr /= wd[d + 2];
            }
            for (size_t d = 0; d < n; ++d) eo = eo * ed[d + 2] + pos[d];
            int64_t channel = group * out_per_group + co;
            e[static_cast<size_t>((b * ed[1] + channel) * e_spatial + eo)] +=
                v * w[static_cast<size_t>((ci * out_per_group + co) * k_spatial + ki)];
          }
      }
  if (bias)
    for (size_t i = 0; i < e.size(); ++i) e[i] += (*bias)[static_cast<size_t>(i / e_spatial % ed[1])];
  std::vector<float> y(static_cast<size_t>(product(yd, 0)), 0.f);
  const int64_t y_spatial = product(yd, 2);
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    int64_t rest = i % y_spatial, bc = i / y_spatial, eo = 0;
    bool inside = true;
    std::vector<int64_t> pos(n);
    for (size_t d = n; d-- > 0;) {
      pos[d] = rest % yd[d + 2] + g.begin[d];
      rest /= yd[d + 2];
      if (pos[d] < 0 || pos[d] >= ed[d + 2]) inside = false;
    }
    for (size_t d = 0; d < n; ++d) eo = eo * ed[d + 2] + pos[d];
    if (inside) y[static_cast<size_t>(i)] = e[static_cast<size_t>(bc * e_spatial + eo)];
  }
  return y;
}

TEST(CudaConvTranspose, TheExtendedOutputAndItsCropReproduceOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    if (name.rfind("test_convtranspose", 0) != 0) continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    auto p = exec::prepare(request, data.string());
    const auto& node = p.analysis.model.graph.nodes.front();
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    const auto &x = p.inputs.at(0), &w = p.inputs.at(1);
    auto g = cuda::conv_transpose_geometry(node, x.dims, w.dims, want->dims);
    auto bias = p.inputs.size() > 2 ? floats(p.inputs[2]) : std::vector<float>{};
    auto y = conv_transpose_on_host(g, x.dims, floats(x), w.dims, floats(w), p.inputs.size() > 2 ? &bias : nullptr,
                                    want->dims);
    EXPECT_EQ(compare_tensor(float_tensor("y", want->dims, y), *want, 1e-4, 1e-5), "") << name;
    // cuDNN: the extended output, convolved with no padding, gives the input's dims back.
    cuda::ConvGeometry c;
    c.kernel.assign(w.dims.begin() + 2, w.dims.end());
    c.strides = g.strides;
    c.dilations = g.dilations;
    c.cudnn_pads.assign(c.kernel.size(), 0);
    c.group = g.group;
    auto e = cuda::tensor_descriptor(g.extended, graph::DType::kFloat32);
    auto f = cuda::filter_descriptor(w.dims, graph::DType::kFloat32);
    cudnnConvolutionDescriptor_t conv = nullptr;
    ASSERT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
    cuda::ConvolutionDescriptor owned(conv);
    std::vector<int> pads(c.kernel.size(), 0), strides, dilations;
    for (size_t d = 0; d < c.kernel.size(); ++d) {
      strides.push_back(static_cast<int>(c.strides[d]));
      dilations.push_back(static_cast<int>(c.dilations[d]));
    }
    if (pads.size() == 1) pads.push_back(0), strides.push_back(1), dilations.push_back(1);
    ASSERT_EQ(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                              dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, static_cast<int>(g.group)), CUDNN_STATUS_SUCCESS);
    std::vector<int> back(std::max<size_t>(4, x.dims.size()));
    ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(conv, e, f, static_cast<int>(back.size()), back.data()),
              CUDNN_STATUS_SUCCESS)
        << name;
    for (size_t d = 0; d < x.dims.size(); ++d) EXPECT_EQ(back[d], x.dims[d]) << name << " dim " << d;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace ridge::test
