// The GPU's bitwise ops without a GPU (src/exec/cuda/bitwise_cell.h): BitShift against ONNX's node tests in every
// unsigned width and direction; BitwiseAnd/Or/Xor/Not (opset 18, which the installed node tests predate) against the
// CPU executor on signed and unsigned types with broadcasting; a shift by the width or more gives 0.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "exec/cuda/bitwise_cell.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

cuda::Layout layout_over(const std::vector<int64_t>& dims, const std::vector<int64_t>& out) {
  cuda::Layout l;
  l.rank = static_cast<int>(out.size());
  int64_t stride = 1;
  for (size_t i = out.size(); i-- > 0;) {
    size_t own = i + dims.size() - out.size();
    bool present = i + dims.size() >= out.size();
    l.dims[i] = out[i];
    l.strides[i] = present && dims[own] != 1 ? stride : 0;
    if (present) stride *= dims[own];
  }
  return l;
}

// A node test's expected tensor as its elements' bytes (read_expected takes no uint16, uint32 or uint64): raw_data,
// or the typed fields ONNX stores narrow and wide integers in.
std::vector<uint8_t> expected_bytes(const std::string& path, size_t width) {
  std::ifstream in(path, std::ios::binary);
  ::onnx::TensorProto t;
  EXPECT_TRUE(t.ParseFromIstream(&in)) << path;
  if (!t.raw_data().empty()) return {t.raw_data().begin(), t.raw_data().end()};
  std::vector<uint8_t> out;
  auto put = [&](uint64_t v) {
    for (size_t k = 0; k < width; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
  };
  for (auto v : t.int32_data()) put(static_cast<uint32_t>(v));
  for (auto v : t.uint64_data()) put(v);
  return out;
}

// The op on the host, element by element on the unsigned type of the width, as the kernel runs it.
template <class T>
exec::HostTensor apply(cuda::BitOp op, const exec::HostTensor& a, const exec::HostTensor& b,
                       const std::vector<int64_t>& out_dims) {
  exec::HostTensor y{"y", a.dtype, out_dims, {}};
  int64_t n = 1;
  for (auto d : out_dims) n *= d;
  y.bytes.resize(static_cast<size_t>(n) * sizeof(T));
  auto al = layout_over(a.dims, out_dims), bl = layout_over(b.dims, out_dims), ol = layout_over(out_dims, out_dims);
  for (int64_t e = 0; e < n; ++e) {
    T x = 0, z = 0;
    std::memcpy(&x, a.bytes.data() + cuda::walk_offset(al, ol, e) * sizeof(T), sizeof(T));
    std::memcpy(&z, b.bytes.data() + cuda::walk_offset(bl, ol, e) * sizeof(T), sizeof(T));
    T r = cuda::apply_bitwise(op, x, z);
    std::memcpy(y.bytes.data() + e * sizeof(T), &r, sizeof(T));
  }
  return y;
}

exec::HostTensor apply_any(cuda::BitOp op, const exec::HostTensor& a, const exec::HostTensor& b,
                           const std::vector<int64_t>& out_dims) {
  switch (graph::dtype_bytes(a.dtype, 1)) {
    case 1:
      return apply<uint8_t>(op, a, b, out_dims);
    case 2:
      return apply<uint16_t>(op, a, b, out_dims);
    case 4:
      return apply<uint32_t>(op, a, b, out_dims);
    default:
      return apply<uint64_t>(op, a, b, out_dims);
  }
}

TEST(CudaBitwise, BitShiftReproducesOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_bitshift_"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    auto op = node.get_string("direction", "") == "LEFT" ? cuda::BitOp::kShiftLeft : cuda::BitOp::kShiftRight;
    auto want = expected_bytes((data / "output_0.pb").string(), graph::dtype_bytes(p.inputs[0].dtype, 1));
    auto got = apply_any(op, p.inputs.at(0), p.inputs.at(1), p.inputs[0].dims);
    EXPECT_EQ(got.bytes, want) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 8);
  EXPECT_EQ(cuda::apply_bitwise<uint8_t>(cuda::BitOp::kShiftLeft, 0xFF, 8), 0);
  EXPECT_EQ(cuda::apply_bitwise<uint32_t>(cuda::BitOp::kShiftRight, 0x80000000u, 31), 1u);
  EXPECT_EQ(cuda::apply_bitwise<uint64_t>(cuda::BitOp::kShiftRight, ~uint64_t{0}, 64), 0u);
}

TEST(CudaBitwise, TheBitwiseOpsComputeWhatTheCpuExecutorDoes) {
  struct Case {
    const char* op;
    cuda::BitOp bit;
    int32_t type;
  };
  const std::vector<Case> cases{{"BitwiseAnd", cuda::BitOp::kAnd, ::onnx::TensorProto::INT32},
                                {"BitwiseOr", cuda::BitOp::kOr, ::onnx::TensorProto::INT8},
                                {"BitwiseXor", cuda::BitOp::kXor, ::onnx::TensorProto::INT64},
                                {"BitwiseNot", cuda::BitOp::kNot, ::onnx::TensorProto::INT16}};
  const std::vector<int64_t> a_dims{2, 3, 4}, b_dims{3, 1};
  for (const auto& c : cases) {
    bool unary = c.bit == cuda::BitOp::kNot;
    ModelBuilder b(18);
    b.input("a", {a_dims.begin(), a_dims.end()}, c.type);
    if (!unary) b.input("b", {b_dims.begin(), b_dims.end()}, c.type);
    b.output("y");
    b.node(c.op, unary ? std::vector<std::string>{"a"} : std::vector<std::string>{"a", "b"}, {"y"}, "bits");
    analysis::Request request;
    request.model_path = b.save("bitwise");
    auto model = exec::prepare(request, "").analysis.model;
    auto dtype = model.graph.value(model.graph.inputs[0]).dtype;
    auto tensor = [&](const char* name, const std::vector<int64_t>& dims, uint64_t salt) {
      exec::HostTensor t{name, dtype, dims, {}};
      int64_t n = 1;
      for (auto d : dims) n *= d;
      for (int64_t i = 0; i < n * static_cast<int64_t>(graph::dtype_bytes(dtype, 1)); ++i)
        t.bytes.push_back(static_cast<uint8_t>((i * 0x9E + salt * 0x3B + (i >> 2) * 0x61) & 0xFF));
      return t;
    };
    std::vector<exec::HostTensor> inputs{tensor("a", a_dims, 1)};
    if (!unary) inputs.push_back(tensor("b", b_dims, 2));
    auto want = exec::load_engine().run(model, inputs, {}).outputs.at(0);
    auto got = apply_any(c.bit, inputs[0], unary ? inputs[0] : inputs[1], a_dims);
    EXPECT_EQ(got.dims, want.dims) << c.op;
    EXPECT_EQ(got.bytes, want.bytes) << c.op;
  }
}

}  // namespace
}  // namespace ridge::test
