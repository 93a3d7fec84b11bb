// The GPU executor's index-driven ops and group normalizations without a GPU: the plans (src/exec/cuda/index_plan.h,
// reduce_plan.h's walk_norm) and the per-element arithmetic (index_cell.h, reduce_cell.h's walk_norm_serial: what a
// thread or block of the kernels computes), applied serially to the ONNX project's node tests of GatherElements,
// ScatterElements, Scatter, GatherND, ScatterND, CumSum, TopK and MeanVarianceNormalization, and, where it has none
// (LpNormalization, other axes), set against the CPU executor. What only a GPU checks: the atomics of a scatter's
// reduction and the blocks' sums (tests/gpu/test_cuda_gpu.cpp runs the same node tests on the GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include "exec/cuda/index_plan.h"
#include "exec/cuda/reduce_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

void add_int(graph::Node& node, const std::string& name, int64_t value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kInt;
  a.i = value;
  node.attributes.push_back(a);
}

void add_string(graph::Node& node, const std::string& name, const std::string& value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kString;
  a.s = value;
  node.attributes.push_back(a);
}

void add_ints(graph::Node& node, const std::string& name, std::vector<int64_t> values) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kInts;
  a.ints = std::move(values);
  node.attributes.push_back(a);
}

size_t element_size(const exec::HostTensor& t) { return graph::dtype_bytes(t.dtype, 1); }

std::vector<int64_t> indices_of(const exec::HostTensor& t) {
  std::vector<int64_t> v;
  for (double x : host_values(t)) v.push_back(static_cast<int64_t>(x));
  return v;
}

// A scatter's update combined into the element at `at` of `out`, as the kernel's land() does (fp32 in these tests).
void land(exec::HostTensor& out, int64_t at, const exec::HostTensor& updates, int64_t from, cuda::ScatterReduce r) {
  const size_t es = element_size(out);
  if (r == cuda::ScatterReduce::kNone) {
    std::memcpy(out.bytes.data() + at * es, updates.bytes.data() + from * es, es);
    return;
  }
  ASSERT_EQ(out.dtype, graph::DType::kFloat32);
  auto* y = reinterpret_cast<float*>(out.bytes.data());
  y[at] = cuda::scatter_combine(r, y[at], reinterpret_cast<const float*>(updates.bytes.data())[from]);
}

// The node's output computed as the GPU's threads compute it, one element after another.
exec::HostTensor run_serial(const graph::Node& node, const std::vector<exec::HostTensor>& in) {
  const auto& op = node.op_type;
  const auto& data = in.at(0);
  exec::HostTensor y{"y", data.dtype, data.dims, data.bytes};
  const size_t es = element_size(data);
  if (op == "GatherElements") {
    auto idx = indices_of(in.at(1));
    auto p = cuda::elements_plan(data.dims, in[1].dims, node.get_int("axis", 0));
    y.dims = in[1].dims;
    y.bytes.assign(static_cast<size_t>(p.count) * es, 0);
    for (int64_t i = 0; i < p.count; ++i) {
      auto at = cuda::elements_offset(p, i, idx[static_cast<size_t>(i)]);
      EXPECT_GE(at, 0);
      std::memcpy(y.bytes.data() + i * es, data.bytes.data() + at * es, es);
    }
  } else if (op == "ScatterElements" || op == "Scatter") {
    auto idx = indices_of(in.at(1));
    auto p = cuda::elements_plan(data.dims, in[1].dims, node.get_int("axis", 0));
    auto r = cuda::scatter_reduce(node);
    for (int64_t i = 0; i < p.count; ++i) {
      auto at = cuda::elements_offset(p, i, idx[static_cast<size_t>(i)]);
      EXPECT_GE(at, 0);
      land(y, at, in.at(2), i, r);
    }
  } else if (op == "GatherND" || op == "ScatterND") {
    auto idx = indices_of(in.at(1));
    auto p = cuda::nd_plan(data.dims, in[1].dims, op == "GatherND" ? node.get_int("batch_dims", 0) : 0);
    if (op == "GatherND") {  // the indices' dims but the last, then data's past the tuple
      const auto batch = static_cast<size_t>(node.get_int("batch_dims", 0));
      y.dims.assign(in[1].dims.begin(), in[1].dims.end() - 1);
      y.dims.insert(y.dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(batch + p.depth), data.dims.end());
      y.bytes.assign(static_cast<size_t>(p.rows * p.slice) * es, 0);
    }
    auto r = op == "ScatterND" ? cuda::scatter_reduce(node) : cuda::ScatterReduce::kNone;
    for (int64_t i = 0; i < p.rows * p.slice; ++i) {
      int64_t row = i / p.slice, s = i % p.slice;
      auto at = cuda::nd_offset(p, row, idx.data() + row * p.depth);
      EXPECT_GE(at, 0);
      if (op == "GatherND")
        std::memcpy(y.bytes.data() + i * es, data.bytes.data() + (at + s) * es, es);
      else
        land(y, at + s, in.at(2), i, r);
    }
  } else if (op == "CumSum") {
    auto p = cuda::cumsum_plan(node, data.dims, indices_of(in.at(1)).at(0));
    for (int64_t line = 0; line < p.outer * p.inner; ++line) {
      if (data.dtype == graph::DType::kFloat64)
        cuda::cumsum_line(p, reinterpret_cast<const double*>(data.bytes.data()),
                          reinterpret_cast<double*>(y.bytes.data()), line);
      else if (data.dtype == graph::DType::kFloat32)
        cuda::cumsum_line(p, reinterpret_cast<const float*>(data.bytes.data()),
                          reinterpret_cast<float*>(y.bytes.data()), line);
      else if (data.dtype == graph::DType::kInt64)
        cuda::cumsum_line(p, reinterpret_cast<const int64_t*>(data.bytes.data()),
                          reinterpret_cast<int64_t*>(y.bytes.data()), line);
      else
        ADD_FAILURE() << "CumSum of " << graph::dtype_name(data.dtype);
    }
  } else {  // MeanVarianceNormalization, LpNormalization
    std::vector<int64_t> axes;
    auto norm = cuda::walk_norm(node, static_cast<int64_t>(data.dims.size()), axes);
    auto p = cuda::reduce_plan(data.dims, axes);
    for (int64_t o = 0; o < p.outputs; ++o)
      cuda::walk_norm_serial(p, norm, reinterpret_cast<const float*>(data.bytes.data()),
                             reinterpret_cast<float*>(y.bytes.data()), o);
  }
  return y;
}

TEST(CudaIndex, TheGpusPlansAndArithmeticReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  const std::vector<std::string> prefixes{
      "test_gather_elements", "test_scatter_elements", "test_scatter_with", "test_scatter_without",
      "test_gathernd",        "test_scatternd",        "test_cumsum",       "test_mvn"};
  std::map<std::string, int> checked;
  for (const auto& t : node_tests(prefixes)) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    auto got = run_serial(node, p.inputs);
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(got, *want, 1e-5, 1e-6), "") << name;
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["GatherElements"], 3);
  EXPECT_EQ(checked["ScatterElements"], 4);  // duplicate indices with reduction add among them
  EXPECT_EQ(checked["Scatter"], 2);
  EXPECT_EQ(checked["GatherND"], 3);   // batch_dims 1 among them
  EXPECT_EQ(checked["ScatterND"], 3);  // add and mul among them
  EXPECT_EQ(checked["CumSum"], 7);
  EXPECT_EQ(checked["MeanVarianceNormalization"], 1);
}

// OneHot (indices of float and int types, negative ones, an axis in the middle and from the end) and Hardmax (every
// axis, before and after opset 13's change from a flattened 2-D view to one axis; ties to the first) against their node
// tests: the plans and one_hot_on, the selection done on the host as the kernels do it (a truncating cast and
// one_hot_index; the reduction's first maximum).
TEST(CudaIndex, OneHotAndHardmaxReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_onehot", "test_hardmax"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    bool one_hot = name.rfind("test_onehot", 0) == 0;
    const auto& node = p.analysis.model.graph.nodes.front();
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    cuda::OneHotPlan plan;
    std::vector<int64_t> selected;
    exec::HostTensor y;
    if (one_hot) {
      auto depth = static_cast<int64_t>(host_values(p.inputs.at(1)).at(0));
      plan = cuda::one_hot_plan(node, p.inputs[0].dims, depth);
      for (double index : host_values(p.inputs[0]))
        selected.push_back(cuda::one_hot_index(static_cast<int64_t>(index), depth));
      const auto& values = p.inputs.at(2);
      const size_t es = element_size(values);
      y = {"y", values.dtype, want->dims, std::vector<uint8_t>(static_cast<size_t>(plan.count()) * es)};
      for (int64_t e = 0; e < plan.count(); ++e)
        std::memcpy(y.bytes.data() + e * es,
                    values.bytes.data() + (cuda::one_hot_on(plan, e, selected.data()) ? es : 0), es);
    } else {
      const auto& x = p.inputs.at(0);
      plan = cuda::hardmax_plan(node, x.dims, p.analysis.model.default_opset());
      auto v = host_values(x);
      for (int64_t o = 0; o < plan.outer; ++o)
        for (int64_t i = 0; i < plan.inner; ++i) {
          int64_t best = 0;
          for (int64_t d = 1; d < plan.depth; ++d)
            if (v[static_cast<size_t>((o * plan.depth + d) * plan.inner + i)] >
                v[static_cast<size_t>((o * plan.depth + best) * plan.inner + i)])
              best = d;
          selected.push_back(best);
        }
      std::vector<float> out;
      for (int64_t e = 0; e < plan.count(); ++e) out.push_back(cuda::one_hot_on(plan, e, selected.data()) ? 1.f : 0.f);
      y = float_tensor("y", x.dims, out);
    }
    EXPECT_EQ(compare_tensor(y, *want, 0, 0), "") << name;
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["OneHot"], 4);
  EXPECT_EQ(checked["Hardmax"], 7);
  graph::Node node;
  node.op_type = "OneHot";
  EXPECT_THROW(cuda::one_hot_plan(node, {2, 3}, 0), Error);
  add_int(node, "axis", 3);
  EXPECT_THROW(cuda::one_hot_plan(node, {2, 3}, 4), Error);
  EXPECT_EQ(cuda::one_hot_index(-1, 5), 4);
  EXPECT_EQ(cuda::one_hot_index(5, 5), -1);
  EXPECT_EQ(cuda::one_hot_index(-6, 5), -1);
}

// ReverseSequence (time-first and batch-first) against its node tests, and a length out of range clamped (the kernel
// counts it so the op is refused).
TEST(CudaIndex, ReverseSequenceReproducesOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_reversesequence"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    const auto& x = p.inputs.at(0);
    auto lens = indices_of(p.inputs.at(1));
    auto plan = cuda::reverse_sequence_plan(node, x.dims, p.inputs[1].dims);
    const size_t es = element_size(x);
    exec::HostTensor y{"y", x.dtype, x.dims, std::vector<uint8_t>(x.bytes.size())};
    for (int64_t e = 0; e < plan.count(); ++e)
      std::memcpy(y.bytes.data() + e * es, x.bytes.data() + cuda::reverse_sequence_source(plan, e, lens.data()) * es,
                  es);
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(y, *want, 0, 0), "") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  cuda::ReverseSequencePlan p;
  p.time = 3, p.batch = 1, p.inner = 1;
  const int64_t too_long[] = {7};
  EXPECT_EQ(cuda::reverse_sequence_source(p, 0, too_long), 2);  // clamped to the 3 steps
  graph::Node node;
  node.op_type = "ReverseSequence";
  add_int(node, "time_axis", 2);
  EXPECT_THROW(cuda::reverse_sequence_plan(node, {3, 2, 4}, {2}), Error);
}

// Compress (every axis form, and none) and NonZero against their node tests: the condition's flagged positions in
// order (what CUB's DeviceSelect gives the kernels), then the plan's gather along the axis, or NonZero's coordinates.
TEST(CudaIndex, CompressAndNonZeroReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_compress", "test_nonzero"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    const auto& x = p.inputs.at(0);
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    if (node.op_type == "NonZero") {
      auto values = host_values(x);
      std::vector<int64_t> flat;
      for (size_t i = 0; i < values.size(); ++i)
        if (values[i] != 0) flat.push_back(static_cast<int64_t>(i));
      std::vector<double> got(x.dims.size() * flat.size());
      for (size_t j = 0; j < flat.size(); ++j) {
        int64_t rest = flat[j];
        for (size_t d = x.dims.size(); d-- > 0;) {
          got[d * flat.size() + j] = static_cast<double>(rest % x.dims[d]);
          rest /= x.dims[d];
        }
      }
      EXPECT_EQ(got, want->values) << name;
    } else {
      const auto& condition = p.inputs.at(1);
      auto plan = cuda::compress_plan(node, x.dims, static_cast<int64_t>(condition.bytes.size()));
      std::vector<int64_t> picked;
      for (int64_t i = 0; i < plan.flags; ++i)
        if (condition.bytes[static_cast<size_t>(i)]) picked.push_back(i);
      auto values = host_values(x);
      std::vector<double> got;
      for (int64_t o = 0; o < plan.outer; ++o)
        for (auto j : picked)
          for (int64_t i = 0; i < plan.inner; ++i)
            got.push_back(values[static_cast<size_t>((o * plan.length + j) * plan.inner + i)]);
      EXPECT_EQ(got, want->values) << name;
    }
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["Compress"], 4);
  EXPECT_EQ(checked["NonZero"], 1);
}

// TopK: every element's rank in its line, and the k first written in order, against the node tests (largest and
// smallest, a negative axis) for both outputs.
TEST(CudaIndex, TopKsRanksReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_top_k"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    const auto& x = p.inputs.at(0);
    ASSERT_EQ(x.dtype, graph::DType::kFloat32) << name;
    auto k = indices_of(p.inputs.at(1)).at(0);
    auto plan = cuda::topk_plan(node, x.dims, k);
    auto want_values = read_expected((data / "output_0.pb").string());
    auto want_indices = read_expected((data / "output_1.pb").string());
    ASSERT_TRUE(want_values && want_indices) << name;
    std::vector<float> values(static_cast<size_t>(plan.outer * plan.inner * k), NAN);
    exec::HostTensor indices{"i", graph::DType::kInt64, want_indices->dims, {}};
    indices.bytes.resize(values.size() * 8);
    auto* index = reinterpret_cast<int64_t*>(indices.bytes.data());
    const auto* in = reinterpret_cast<const float*>(x.bytes.data());
    for (int64_t line = 0; line < plan.outer * plan.inner; ++line)
      for (int64_t j = 0; j < plan.length; ++j) {
        auto rank = cuda::topk_rank(plan, in, line, j);
        if (rank >= k) continue;
        auto at = cuda::topk_out(plan, line, rank);
        values[static_cast<size_t>(at)] =
            in[(line / plan.inner) * plan.length * plan.inner + j * plan.inner + line % plan.inner];
        index[at] = j;
      }
    EXPECT_EQ(compare_tensor(float_tensor("v", want_values->dims, values), *want_values, 0, 0), "") << name;
    EXPECT_EQ(compare_tensor(indices, *want_indices, 0, 0), "") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 3);

  // Ties go to the lower index, NaN ranks above every number: [2, NaN, 2, 5] largest first is NaN, 5, 2 (index 0),
  // 2 (index 2); smallest first 2 (0), 2 (2), 5, NaN.
  graph::Node node;
  node.op_type = "TopK";
  const float line[] = {2.f, NAN, 2.f, 5.f};
  auto largest = cuda::topk_plan(node, {4}, 4);
  EXPECT_EQ(cuda::topk_rank(largest, line, 0, 1), 0);
  EXPECT_EQ(cuda::topk_rank(largest, line, 0, 3), 1);
  EXPECT_EQ(cuda::topk_rank(largest, line, 0, 0), 2);
  EXPECT_EQ(cuda::topk_rank(largest, line, 0, 2), 3);
  add_int(node, "largest", 0);
  auto smallest = cuda::topk_plan(node, {4}, 2);
  EXPECT_EQ(cuda::topk_rank(smallest, line, 0, 0), 0);
  EXPECT_EQ(cuda::topk_rank(smallest, line, 0, 2), 1);
  EXPECT_EQ(cuda::topk_rank(smallest, line, 0, 1), 3);
  EXPECT_THROW(cuda::topk_plan(node, {4}, 5), Error);
  EXPECT_THROW(cuda::topk_plan(node, {}, 1), Error);
}

// What the node tests do not cover, against the CPU executor (ATen): LpNormalization with p 1 and 2 along several
// axes, MeanVarianceNormalization over other axes, CumSum of int64 along a middle axis, reversed and exclusive.
TEST(CudaIndex, NormalizationsAndSumsTheNodeTestsLackAgreeWithTheCpuExecutor) {
  struct Case {
    std::string op;
    std::vector<int64_t> dims;
    std::function<void(onnx::NodeProto&)> attrs;
  };
  const std::vector<Case> cases{
      {"LpNormalization", {2, 3, 4}, [](auto& n) { set_int(n, "p", 1); }},
      {"LpNormalization", {2, 3, 4}, [](auto& n) { set_int(n, "axis", 1); }},
      {"LpNormalization",
       {2, 3, 4, 5},
       [](auto& n) {
         set_int(n, "axis", 0);
         set_int(n, "p", 1);
       }},
      {"MeanVarianceNormalization",
       {2, 3, 4, 5},
       [](auto& n) {
         set_ints(n, "axes", {1, 3});
       }},
      {"MeanVarianceNormalization", {4, 6}, [](auto& n) { set_ints(n, "axes", {0}); }},
  };
  auto& cpu = exec::load_engine();
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    ModelBuilder b(13);
    b.input("x", std::vector<DimSpec>(c.dims.begin(), c.dims.end())).output("y");
    c.attrs(b.node(c.op, {"x"}, {"y"}, "norm"));
    analysis::Request request;
    request.model_path = b.save("index_norm");
    auto model = exec::prepare(request, "").analysis.model;
    int64_t n = 1;
    for (auto d : c.dims) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = 2.f * std::sin(static_cast<float>(k * 7 + 1)) + 0.3f;
    std::vector<exec::HostTensor> in{float_tensor("x", c.dims, v)};
    auto p = exec::prepare_again(model, request, in);
    auto want = floats(cpu.run(p.analysis.model, p.inputs, {}).outputs.at(0));
    auto got = floats(run_serial(p.analysis.model.graph.nodes.front(), in));
    ASSERT_EQ(got.size(), want.size()) << "case " << i;
    for (size_t k = 0; k < got.size(); ++k)
      ASSERT_NEAR(got[k], want[k], 1e-4 * (1 + std::fabs(want[k]))) << "case " << i << " " << c.op << " [" << k << "]";
  }

  // CumSum of int64 [2, 3, 4] along dim 1, reversed and exclusive: y[a][j][c] = sum of x[a][k][c] for k > j.
  graph::Node node;
  node.op_type = "CumSum";
  add_int(node, "exclusive", 1);
  add_int(node, "reverse", 1);
  auto plan = cuda::cumsum_plan(node, {2, 3, 4}, -2);
  EXPECT_EQ(plan.outer, 2);
  EXPECT_EQ(plan.length, 3);
  EXPECT_EQ(plan.inner, 4);
  std::vector<int64_t> x(24), y(24, -1);
  for (size_t k = 0; k < 24; ++k) x[k] = static_cast<int64_t>(k * k);
  for (int64_t line = 0; line < 8; ++line) cuda::cumsum_line(plan, x.data(), y.data(), line);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t col = 0; col < 4; ++col) {
        int64_t want = 0;
        for (int64_t k = j + 1; k < 3; ++k) want += x[static_cast<size_t>(a * 12 + k * 4 + col)];
        EXPECT_EQ(y[static_cast<size_t>(a * 12 + j * 4 + col)], want) << a << " " << j << " " << col;
      }
}

TEST(CudaIndex, IndicesOutOfRangeAndDimsThatDoNotFitAreNamed) {
  // GatherElements along dim 1 of [3, 4]: element (1, 2) of the indices holding -1 reads data (1, 3); 4 and -5 are
  // outside [-4, 4).
  auto p = cuda::elements_plan({3, 4}, {2, 3}, 1);
  EXPECT_EQ(p.count, 6);
  EXPECT_EQ(cuda::elements_offset(p, 5, -1), 1 * 4 + 3);
  EXPECT_EQ(cuda::elements_offset(p, 5, 4), -1);
  EXPECT_EQ(cuda::elements_offset(p, 0, -5), -1);
  EXPECT_THROW(cuda::elements_plan({3, 4}, {3, 4, 1}, 0), Error);  // ranks differ
  EXPECT_THROW(cuda::elements_plan({3, 4}, {4, 4}, 1), Error);     // dim 0 reaches past data's
  EXPECT_NO_THROW(cuda::elements_plan({3, 4}, {5, 4}, 0));         // along the axis it may
  EXPECT_THROW(cuda::elements_plan({3, 4}, {3, 4}, 2), Error);

  // GatherND of [2, 3, 4] with tuples of 2: slices of 4; tuple (1, -1) starts at 1 x 12 + 2 x 4.
  auto nd = cuda::nd_plan({2, 3, 4}, {5, 2}, 0);
  EXPECT_EQ(nd.rows, 5);
  EXPECT_EQ(nd.slice, 4);
  int64_t tuple[] = {1, -1}, outside[] = {2, 0};
  EXPECT_EQ(cuda::nd_offset(nd, 0, tuple), 20);
  EXPECT_EQ(cuda::nd_offset(nd, 0, outside), -1);
  // batch_dims 1: indices [2, 3, 1] into [2, 3, 4]: row 4 lies in batch 1, which starts at 12.
  auto batched = cuda::nd_plan({2, 3, 4}, {2, 3, 1}, 1);
  int64_t one[] = {1};
  EXPECT_EQ(cuda::nd_offset(batched, 4, one), 12 + 4);
  EXPECT_THROW(cuda::nd_plan({2, 3, 4}, {3, 1}, 1), Error);     // batch dims differ
  EXPECT_THROW(cuda::nd_plan({2, 3, 4}, {5, 4}, 0), Error);     // tuples longer than data's rank
  EXPECT_THROW(cuda::nd_plan({2, 3, 4}, {2, 3, 1}, 3), Error);  // batch_dims past the indices

  graph::Node node;
  node.op_type = "ScatterND";
  add_string(node, "reduction", "sum");
  EXPECT_THROW(cuda::scatter_reduce(node), Error);
  node.op_type = "LpNormalization";
  add_int(node, "p", 3);
  std::vector<int64_t> axes;
  EXPECT_THROW(cuda::walk_norm(node, 2, axes), Error);
  node.op_type = "MeanVarianceNormalization";
  add_ints(node, "axes", {0, 4});
  EXPECT_THROW(cuda::walk_norm(node, 4, axes), Error);
  EXPECT_THROW(cuda::cumsum_plan(node, {}, 0), Error);
}

}  // namespace
}  // namespace ridge::test
