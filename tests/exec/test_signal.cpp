// ONNX's signal ops (DFT, STFT, MelWeightMatrix; opset 17): the ONNX node tests hold the executor and shape inference
// to ONNX's reference (tests/exec/test_executor_backend.cpp); here what those tests leave out, against a direct
// O(n^2) DFT written in the test: a onesided transform of a zero-padded signal, an STFT of a complex signal with a
// window and both sides; the FLOPs the cost model counts, by hand; and MelWeightMatrix's values from ONNX's own
// example (known to shape inference where its inputs are constants).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "exec/engine.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

using Complex = std::complex<double>;

// X[k] = sum_t x[t] e^{-2 pi i k t / n}, x zero-padded (or cut) to n.
std::vector<Complex> direct_dft(const std::vector<Complex>& x, int64_t n) {
  std::vector<Complex> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    for (int64_t t = 0; t < std::min<int64_t>(n, static_cast<int64_t>(x.size())); ++t)
      out[static_cast<size_t>(k)] += x[static_cast<size_t>(t)] * std::polar(1.0, -2 * M_PI * k * t / n);
  return out;
}

void expect_spectrum(const std::vector<float>& got, const std::vector<Complex>& want, size_t offset, size_t bins) {
  for (size_t k = 0; k < bins; ++k) {
    EXPECT_NEAR(got[offset + 2 * k], want[k].real(), 1e-3) << k;
    EXPECT_NEAR(got[offset + 2 * k + 1], want[k].imag(), 1e-3) << k;
  }
}

TEST(SignalOps, AOnesidedDftOfAPaddedSignalIsTheDirectSumsFirstHalf) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{10}, int64_t{1}}).output("y");
  b.int64_constant("n", {}, {12});
  auto& node = b.node("DFT", {"x", "n"}, {"y"}, "dft");
  set_int(node, "onesided", 1);
  auto r = analyze_file(b.save("dft_onesided"));
  EXPECT_EQ(node_named(r, "dft").output_shape, "1x7x2");  // 12 / 2 + 1 bins
  std::vector<float> x{0.5f, -1, 2, 0.25f, 3, -0.75f, 1.5f, 0, -2, 1};
  auto out = exec::load_engine().run(r.model, {float_tensor("x", {1, 10, 1}, x)}, {});
  std::vector<Complex> signal(x.begin(), x.end());
  expect_spectrum(floats(out.outputs[0]), direct_dft(signal, 12), 0, 7);
  // FLOPs: one real transform of 12 points, 2.5 n log2 n; an estimate, saying so.
  EXPECT_EQ(node_named(r, "dft").flops, std::llround(2.5 * 12 * std::log2(12.0)));
  EXPECT_EQ(node_named(r, "dft").status, cost::NodeStatus::kEstimate);
}

TEST(SignalOps, AnStftOfAComplexSignalWindowsEachFrame) {
  ModelBuilder b;
  b.input("signal", {int64_t{1}, int64_t{12}, int64_t{2}}).output("y");
  b.int64_constant("step", {}, {3});
  b.weight_values("window", {4}, {0.25f, 1, 1, 0.5f});
  auto& node = b.node("STFT", {"signal", "step", "window"}, {"y"}, "stft");
  set_int(node, "onesided", 0);
  auto r = analyze_file(b.save("stft_complex"));
  EXPECT_EQ(node_named(r, "stft").output_shape, "1x3x4x2");  // (12 - 4) / 3 + 1 frames of 4 bins
  std::vector<float> s;
  for (int t = 0; t < 12; ++t) {
    s.push_back(std::sin(0.7f * static_cast<float>(t)));
    s.push_back(0.1f * static_cast<float>(t) - 0.4f);
  }
  auto out = exec::load_engine().run(r.model, {float_tensor("signal", {1, 12, 2}, s)}, {});
  auto y = floats(out.outputs[0]);
  std::vector<double> window{0.25, 1, 1, 0.5};
  for (size_t f = 0; f < 3; ++f) {
    std::vector<Complex> frame;
    for (size_t t = 0; t < 4; ++t) frame.emplace_back(Complex(s[2 * (3 * f + t)], s[2 * (3 * f + t) + 1]) * window[t]);
    expect_spectrum(y, direct_dft(frame, 4), f * 8, 4);
  }
  // FLOPs: 3 frames x (2 x 4 window multiplies + 5 x 4 x log2 4 for a complex transform).
  EXPECT_EQ(node_named(r, "stft").flops, 3 * (8 + 40));
}

// ONNX's own MelWeightMatrix example (onnx/backend/test/case/node/melweightmatrix.py): 8 filters over a 16-point DFT
// at 8192 Hz from 0 to 4096 Hz, whose expected matrix that file lists.
TEST(SignalOps, MelWeightMatrixIsOnnxsExampleAndFoldsWhereItsInputsAreKnown) {
  ModelBuilder b;
  b.output("w");
  b.int64_constant("mel", {}, {8}).int64_constant("dft", {}, {16}).int64_constant("rate", {}, {8192});
  b.weight_values("low", {}, {0}).weight_values("high", {}, {4096});
  b.node("MelWeightMatrix", {"mel", "dft", "rate", "low", "high"}, {"w"}, "mel_weights");
  auto r = analyze_file(b.save("mel"));
  std::vector<double> want(9 * 8, 0.0);
  for (auto [row, col] : {std::pair{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}})
    want[static_cast<size_t>(row * 8 + col)] = 1;
  const auto& w = r.model.graph.value(*r.model.graph.find("w"));
  ASSERT_TRUE(w.constant);
  EXPECT_EQ(w.constant->dims, (std::vector<int64_t>{9, 8}));
  EXPECT_EQ(w.constant->reals, want);
  auto out = exec::load_engine().run(r.model, {}, {});
  auto got = floats(out.outputs[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
}

}  // namespace
}  // namespace ridge::test
