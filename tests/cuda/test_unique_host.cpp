// The GPU's Unique without a GPU: unique_cell.h's steps applied serially in the order the kernels take them (a stable
// sort of (value, position) pairs, the run starts and their scan, the scatter a step per element, the counts a step per
// run; unsorted, the runs sorted by their first positions and reordered), against ONNX's two node tests without an axis
// and against the CPU executor on values with many repeats and both signs of zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "exec/cuda/unique_cell.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

// Unique's four outputs: values, first positions, inverse indices, counts.
struct UniqueOutputs {
  std::vector<double> values, first, inverse, counts;
};

template <class T>
UniqueOutputs run_serial(const std::vector<T>& x, bool sorted_output) {
  const auto n = static_cast<int64_t>(x.size());
  // CUB's radix sort of the (key, position) pairs, as std::stable_sort orders them: numeric order (no -0 among the
  // keys), positive NaNs last.
  std::vector<T> keys;
  for (auto v : x) keys.push_back(cuda::unique_key(v));
  std::vector<int64_t> positions(x.size());
  std::iota(positions.begin(), positions.end(), 0);
  std::stable_sort(positions.begin(), positions.end(), [&](int64_t a, int64_t b) {
    const T u = keys[static_cast<size_t>(a)], v = keys[static_cast<size_t>(b)];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(u) || std::isnan(v)) return !std::isnan(u) && std::isnan(v);
    }
    return u < v;
  });
  std::vector<T> sorted;
  for (auto p : positions) sorted.push_back(keys[static_cast<size_t>(p)]);
  std::vector<int64_t> run_end(x.size());
  for (int64_t i = 0; i < n; ++i)
    run_end[static_cast<size_t>(i)] = cuda::unique_starts_run(sorted.data(), i) + (i ? run_end[i - 1] : 0);
  const int64_t runs = n ? run_end.back() : 0;
  std::vector<T> values(static_cast<size_t>(runs));
  std::vector<int64_t> first(values.size()), start(values.size()), counts(values.size()), inverse(x.size());
  for (int64_t i = 0; i < n; ++i)
    cuda::unique_scatter(i, x.data(), positions.data(), run_end.data(), values.data(), first.data(), start.data(),
                         inverse.data());
  for (int64_t r = 0; r < runs; ++r) counts[static_cast<size_t>(r)] = cuda::unique_count(r, runs, n, start.data());
  if (!sorted_output) {
    std::vector<int64_t> order(values.size()), rank(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    std::vector<T> out_values(values.size());
    std::vector<int64_t> out_counts(values.size()), out_first(values.size());
    for (int64_t j = 0; j < runs; ++j) {
      cuda::unique_reorder(j, order.data(), values.data(), counts.data(), out_values.data(), out_counts.data(),
                           rank.data());
      out_first[static_cast<size_t>(j)] = first[static_cast<size_t>(order[static_cast<size_t>(j)])];
    }
    for (auto& i : inverse) i = rank[static_cast<size_t>(i)];
    values = out_values, counts = out_counts, first = out_first;
  }
  auto doubles = [](const auto& v) { return std::vector<double>(v.begin(), v.end()); };
  return {doubles(values), doubles(first), doubles(inverse), doubles(counts)};
}

TEST(CudaUnique, TheStepsReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_unique_"})) {
    if (t.node().has("axis")) continue;  // distinct slices: the CPU's
    auto got = run_serial(floats(t.inputs()[0]), t.node().get_int("sorted", 1) != 0);
    const std::vector<double>* outputs[] = {&got.values, &got.first, &got.inverse, &got.counts};
    for (size_t o = 0; o < 4; ++o) {
      auto want = t.expected(o);
      ASSERT_TRUE(want) << t.name << " output " << o;
      EXPECT_EQ(*outputs[o], want->values) << t.name << " output " << o;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // sorted and not
}

// The CPU executor's Unique on what a model meets: ids with many repeats (int64), and floats with both zeros and both
// infinities.
TEST(CudaUnique, TheStepsComputeWhatTheCpuExecutorDoes) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 2000; ++i) ids.push_back((i * 7919) % 263 - 100);
  std::vector<float> reals;
  for (int64_t i = 0; i < 600; ++i) reals.push_back(std::round(8.f * std::sin(0.37f * static_cast<float>(i))) / 4.f);
  reals[5] = -0.f, reals[17] = 0.f, reals[40] = INFINITY, reals[41] = -INFINITY, reals[99] = -0.f;
  for (bool sorted_output : {true, false}) {
    for (bool integers : {true, false}) {
      const auto n = static_cast<int64_t>(integers ? ids.size() : reals.size());
      ModelBuilder b;
      b.input("x", {n}, integers ? ::onnx::TensorProto::INT64 : ::onnx::TensorProto::FLOAT)
          .output("y")
          .output("first")
          .output("inverse")
          .output("counts");
      set_int(b.node("Unique", {"x"}, {"y", "first", "inverse", "counts"}, "unique"), "sorted", sorted_output);
      analysis::Request request;
      request.model_path = b.save("unique_cpu");
      auto model = exec::prepare(request, "").analysis.model;
      exec::HostTensor x{"x", integers ? graph::DType::kInt64 : graph::DType::kFloat32, {n}, {}};
      if (integers)
        x.bytes.assign(reinterpret_cast<const uint8_t*>(ids.data()),
                       reinterpret_cast<const uint8_t*>(ids.data() + ids.size()));
      else
        x = float_tensor("x", {n}, reals);
      auto want = exec::load_engine().run(model, {x}, {}).outputs;
      auto got = integers ? run_serial(ids, sorted_output) : run_serial(reals, sorted_output);
      EXPECT_EQ(got.values, host_values(want.at(0))) << sorted_output << integers;
      EXPECT_EQ(got.first, host_values(want.at(1))) << sorted_output << integers;
      EXPECT_EQ(got.inverse, host_values(want.at(2))) << sorted_output << integers;
      EXPECT_EQ(got.counts, host_values(want.at(3))) << sorted_output << integers;
      if (integers) {
        EXPECT_EQ(got.values.size(), 263u);  // every residue
      } else {
        EXPECT_EQ(std::count(got.values.begin(), got.values.end(), 0.0), 1);  // -0 and +0 are one value: +0, x[0]
        EXPECT_FALSE(std::signbit(*std::find(got.values.begin(), got.values.end(), 0.0)));
      }
    }
  }
}

}  // namespace
}  // namespace ridge::test
