// The GPU's Einsum without a GPU: the plan (src/exec/cuda/einsum_plan.h) applied serially (each operand's strided copy
// and sum, the batched product, the reorder into the output), against the ONNX project's node tests and, for the forms
// networks and users write (attention's products, diagonals, broadcast ellipses, outer and inner products, sums, an
// operand passed through), against the CPU executor's Einsum (ATen's) on the same inputs; what the GPU refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "exec/cuda/einsum_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/einsum_reference.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

int64_t count_of(const cuda::Layout& l) {
  int64_t n = 1;
  for (int d = 0; d < l.rank; ++d) n *= l.dims[d];
  return n;
}

// What strided_copy writes: element e of the dense output reads `in` at the layout's offset of e.
std::vector<float> copied(const std::vector<float>& in, const cuda::Layout& l) {
  std::vector<float> out(static_cast<size_t>(count_of(l)));
  for (int64_t e = 0; e < count_of(l); ++e) {
    int64_t offset = 0, rest = e;
    for (int d = l.rank - 1; d >= 0; --d) {
      offset += (rest % l.dims[d]) * l.strides[d];
      rest /= l.dims[d];
    }
    out[static_cast<size_t>(e)] = in.at(static_cast<size_t>(offset));
  }
  return out;
}

// The plan's steps on the host, as einsum_op runs them on the GPU.
std::vector<float> run_plan(const cuda::EinsumPlan& p, const std::vector<std::vector<float>>& operands) {
  std::vector<std::vector<float>> results;
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const auto& s = p.stages[i];
    auto t = s.copies ? copied(operands[i], s.copy) : operands[i];
    EXPECT_EQ(static_cast<int64_t>(t.size()), s.kept_elements * s.summed);
    std::vector<float> kept(static_cast<size_t>(s.kept_elements));
    for (int64_t e = 0; e < s.kept_elements; ++e) {
      double sum = 0;
      for (int64_t j = 0; j < s.summed; ++j) sum += t[static_cast<size_t>(e * s.summed + j)];
      kept[static_cast<size_t>(e)] = static_cast<float>(sum);
    }
    results.push_back(kept);
  }
  auto result = results[0];
  if (p.product) {
    result.assign(static_cast<size_t>(p.batch * p.m * p.n), 0.f);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < p.k; ++l)
            sum += static_cast<double>(results[0][static_cast<size_t>((b * p.m + i) * p.k + l)]) *
                   results[1][static_cast<size_t>((b * p.k + l) * p.n + j)];
          result[static_cast<size_t>((b * p.m + i) * p.n + j)] = static_cast<float>(sum);
        }
  }
  return p.reorders ? copied(result, p.output) : result;
}

TEST(CudaEinsum, ThePlanReproducesOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& test : node_tests({"test_einsum"})) {
    const auto& p = test.prepared;
    const auto& data = test.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    std::vector<std::vector<int64_t>> dims;
    std::vector<std::vector<float>> operands;
    for (const auto& t : p.inputs) {
      if (t.dtype != graph::DType::kFloat32) break;  // the node tests are fp64 (the GPU's Einsum is fp32)
      dims.push_back(t.dims);
      operands.push_back(floats(t));
    }
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want);
    std::vector<double> inputs_fp64;
    if (dims.size() != p.inputs.size()) {  // fp64 inputs: computed in fp32 from their values
      dims.clear();
      operands.clear();
      for (const auto& t : p.inputs) {
        dims.push_back(t.dims);
        auto v = host_values(t);
        operands.emplace_back(v.begin(), v.end());
      }
    }
    auto plan = cuda::einsum_plan(node.get_string("equation", ""), dims);
    auto got = run_plan(plan, operands);
    ASSERT_EQ(got.size(), want->values.size()) << test.name;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want->values[i], 1e-5 + 1e-5 * std::fabs(want->values[i])) << test.name;
    ++checked;
  }
  EXPECT_EQ(checked, 5);  // batch diagonal, batch matmul, inner product, sum, transpose
}

// Each form on the CPU executor (ATen's einsum) and by the definition: the plan agrees with both.
TEST(CudaEinsum, ThePlanComputesWhatTheCpuExecutorsEinsumDoes) {
  for (const auto& f : einsum_forms()) {
    ModelBuilder b(12);
    std::vector<std::string> names;
    for (size_t i = 0; i < f.dims.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      b.input(names.back(), {f.dims[i].begin(), f.dims[i].end()});
    }
    b.output("y");
    set_string(b.node("Einsum", names, {"y"}, "einsum"), "equation", f.equation);
    analysis::Request request;
    request.model_path = b.save("einsum_form");
    auto model = exec::prepare(request, "").analysis.model;
    std::vector<exec::HostTensor> inputs;
    std::vector<std::vector<float>> operands;
    for (size_t i = 0; i < f.dims.size(); ++i) {
      int64_t n = 1;
      for (auto d : f.dims[i]) n *= d;
      operands.push_back(einsum_operand(n, static_cast<int>(i)));
      inputs.push_back(float_tensor(names[i], f.dims[i], operands.back()));
    }
    auto want = floats(exec::load_engine().run(model, inputs, {}).outputs.at(0));
    auto plan = cuda::einsum_plan(f.equation, f.dims);
    auto got = run_plan(plan, operands);
    ASSERT_EQ(got.size(), want.size()) << f.equation;
    auto definition = einsum_by_definition(f.equation, f.dims, operands);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << f.equation << " [" << i << "]";
      EXPECT_NEAR(got[i], definition.at(i), 1e-5 + 1e-5 * std::fabs(definition[i])) << f.equation << " [" << i << "]";
    }
  }
}

TEST(CudaEinsum, TheStepsAreTheFewestThatComputeIt) {
  // Attention's scores: Q is read as it is, K copied into [batch, contracted, free]; the result is the output.
  auto scores = cuda::einsum_plan("bhqd,bhkd->bhqk", {{2, 3, 5, 4}, {2, 3, 6, 4}});
  EXPECT_FALSE(scores.stages[0].copies);
  EXPECT_TRUE(scores.stages[1].copies);
  EXPECT_TRUE(scores.product);
  EXPECT_EQ(scores.batch, 6);
  EXPECT_EQ(scores.m, 5);
  EXPECT_EQ(scores.k, 4);
  EXPECT_EQ(scores.n, 6);
  EXPECT_FALSE(scores.reorders);
  // A transpose: one copy straight into the output.
  auto t = cuda::einsum_plan("ij->ji", {{3, 4}});
  EXPECT_TRUE(t.stages[0].copies);
  EXPECT_EQ(t.stages[0].summed, 1);
  EXPECT_FALSE(t.reorders);
  // The refusals, in one line.
  EXPECT_EQ(one_line_refusal([] { cuda::einsum_plan("i,i,i->i", {{2}, {2}, {2}}); }, "the GPU takes one or two"), "");
  EXPECT_EQ(one_line_refusal([] { cuda::einsum_plan("ij,jk->ik", {{2, 3}, {4, 5}}); }, "label 'j'"), "");
  EXPECT_EQ(one_line_refusal(
                [] {
                  cuda::einsum_plan("abcdefghi->a", {{1, 1, 1, 1, 1, 1, 1, 1, 1}});
                },
                "at most 8"),
            "");
}

}  // namespace
}  // namespace ridge::test
