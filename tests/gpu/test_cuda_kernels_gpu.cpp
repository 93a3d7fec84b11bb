// The GPU executor's elementwise kernels on a GPU (scripts/gpu-check.sh; not part of the CPU-only CI run):
// every path the launchers choose (flat with vector loads and a tail, flat without, in place, scalar,
// strided in 32-bit and the general walk) against the same arithmetic on the host.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "exec/cuda/elementwise_math.h"
#include "exec/cuda/generator_kernels.h"
#include "exec/cuda/index_kernels.h"
#include "exec/cuda/index_plan.h"
#include "exec/cuda/kernels.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/quantize_kernels.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"
#include "exec/cuda/select_kernels.h"
#include "exec/cuda/training_kernels.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

template <class T>
struct DeviceBuffer {
  T* data = nullptr;
  size_t count = 0;
  explicit DeviceBuffer(const std::vector<T>& host) : count(host.size() + 4) {
    // Four spare elements: a view one element in is misaligned for vector loads.
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data), count * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemset(data, 0, count * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data); }
  std::vector<T> read(size_t n, size_t offset = 0) const {
    std::vector<T> host(n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(host.data(), data + offset, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};

int64_t offset_in(int64_t i, const cuda::Layout& out, const cuda::Layout& in) {
  int64_t offset = 0;
  for (int d = out.rank - 1; d >= 0; --d) {
    offset += (i % out.dims[d]) * in.strides[d];
    i /= out.dims[d];
  }
  return offset;
}

int64_t elements(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

std::vector<float> ramp(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * static_cast<float>(i % 97) - 3.f;
  return v;
}

// out = a - b (not commutative: an operand swap shows) through the launcher, against the host.
void expect_sub(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims,
                const std::vector<int64_t>& out_dims, size_t a_shift = 0) {
  auto a = ramp(elements(a_dims), 0.5f), b = ramp(elements(b_dims), 0.25f);
  DeviceBuffer<float> da(a), db(b), dout(std::vector<float>(static_cast<size_t>(elements(out_dims))));
  if (a_shift) {  // the same values one element in: misaligned for float4
    std::vector<float> shifted(a_shift, 0.f);
    shifted.insert(shifted.end(), a.begin(), a.end());
    EXPECT_EQ(cudaMemcpy(da.data, shifted.data(), shifted.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  auto ol = cuda::dense_layout(out_dims);
  auto al = cuda::broadcast_layout(a_dims, out_dims), bl = cuda::broadcast_layout(b_dims, out_dims);
  cuda::binary(cuda::BinaryOp::kSub, false, da.data + a_shift, al, db.data, bl, dout.data, ol, nullptr);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto got = dout.read(static_cast<size_t>(elements(out_dims)));
  for (int64_t i = 0; i < elements(out_dims); ++i)
    ASSERT_EQ(got[static_cast<size_t>(i)],
              a[static_cast<size_t>(offset_in(i, ol, al))] - b[static_cast<size_t>(offset_in(i, ol, bl))])
        << "element " << i;
}

TEST(GpuKernels, BinaryOpsReadEveryOperandThroughItsBroadcast) {
  expect_sub({4, 1027}, {4, 1027}, {4, 1027});        // flat, float4 and a 3-element tail
  expect_sub({4, 1027}, {4, 1027}, {4, 1027}, 1);     // flat, misaligned: one by one
  expect_sub({2, 3, 5, 7}, {}, {2, 3, 5, 7});         // flat and scalar
  expect_sub({}, {2, 3, 5, 7}, {2, 3, 5, 7});         // scalar and flat
  expect_sub({2, 3, 5, 7}, {3, 1, 1}, {2, 3, 5, 7});  // per-channel: rows of 35, no float4
  expect_sub({3, 1}, {1, 4}, {2, 3, 4});              // both broadcast
  expect_sub({1, 1}, {1}, {1, 1});                    // one element
  expect_sub({2, 3, 40}, {3, 1}, {2, 3, 40});         // rows of 40: a bias per row, float4
  expect_sub({2, 3, 40}, {3, 1}, {2, 3, 40}, 1);      // the same rows misaligned: one by one
  expect_sub({5, 64}, {64}, {5, 64});                 // a bias over the last dim: both rows flat
  expect_sub({64}, {3, 64}, {3, 64});                 // the same, swapped
  expect_sub({3, 37}, {37}, {3, 37});                 // rows of 37: no float4
}

TEST(GpuKernels, InPlaceAddAndInt64AndComparisonsAgreeWithTheHost) {
  // y += x in place, as the fused Add writes it.
  auto y = ramp(4099, 1.f), x = ramp(4099, 2.f);
  DeviceBuffer<float> dy(y), dx(x);
  auto l = cuda::dense_layout({4099});
  cuda::binary(cuda::BinaryOp::kAdd, false, dy.data, l, dx.data, l, dy.data, l, nullptr);
  auto got = dy.read(4099);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], y[i] + x[i]) << i;
  // int64 Mul with a broadcast row (the general walk).
  std::vector<int64_t> a{1, 2, 3, 4, 5, 6}, b{10, -1, 3};
  DeviceBuffer<int64_t> da(a), db(b), dout(std::vector<int64_t>(6));
  auto ol = cuda::dense_layout({2, 3});
  cuda::binary(cuda::BinaryOp::kMul, true, da.data, ol, db.data, cuda::broadcast_layout({3}, {2, 3}), dout.data, ol,
               nullptr);
  EXPECT_EQ(dout.read(6), (std::vector<int64_t>{10, -2, 9, 40, -5, 18}));
  // Less with a broadcast scalar: bools.
  std::vector<float> v{-1.f, 0.f, 2.f, 0.5f}, t{0.5f};
  DeviceBuffer<float> dv(v), dt(t);
  DeviceBuffer<uint8_t> dbool(std::vector<uint8_t>(4));
  auto vl = cuda::dense_layout({4});
  cuda::binary(cuda::BinaryOp::kLess, false, dv.data, vl, dt.data, cuda::broadcast_layout({}, {4}), dbool.data, vl,
               nullptr);
  EXPECT_EQ(dbool.read(4), (std::vector<uint8_t>{1, 1, 0, 0}));
}

TEST(GpuKernels, UnaryWhereAndStridedCopyAgreeWithTheHost) {
  // Relu with float4 and a tail, then misaligned.
  auto x = ramp(1030, 0.1f);
  DeviceBuffer<float> dx(x), dy(std::vector<float>(1031));
  for (size_t shift : {size_t{0}, size_t{1}}) {
    cuda::unary(cuda::UnaryOp::kRelu, dx.data, dy.data + shift, 1030, 0.f, 0.f, nullptr);
    auto got = dy.read(1030, shift);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], std::max(x[i], 0.f)) << i << " shift " << shift;
  }
  // Where over three broadcasts.
  std::vector<uint8_t> cond{1, 0, 1};
  std::vector<float> a = ramp(6, 1.f), b{-7.f, -8.f};
  DeviceBuffer<uint8_t> dc(cond);
  DeviceBuffer<float> da(a), db(b), dout(std::vector<float>(6));
  auto ol = cuda::dense_layout({2, 3});
  cuda::where(dc.data, cuda::broadcast_layout({3}, {2, 3}), da.data, ol, db.data,
              cuda::broadcast_layout({2, 1}, {2, 3}), dout.data, ol, 4, nullptr);
  EXPECT_EQ(dout.read(6), (std::vector<float>{a[0], -7.f, a[2], a[3], -8.f, a[5]}));
  // A transpose (perm 0, 2, 1) of a 3 x 5 x 7 tensor.
  auto t = ramp(105, 1.f);
  DeviceBuffer<float> dt(t), dtt(std::vector<float>(105));
  cuda::Layout perm;
  perm.rank = 3;
  const int64_t dims[3] = {3, 7, 5}, strides[3] = {35, 1, 7};
  for (int d = 0; d < 3; ++d) {
    perm.dims[d] = dims[d];
    perm.strides[d] = strides[d];
  }
  cuda::strided_copy(dt.data, perm, 0, dtt.data, 105, 4, nullptr);
  // A [4, 6, 33] tensor with its first two dims swapped (the innermost dim kept), in 2-byte elements, read from an
  // offset base.
  std::vector<uint16_t> h(4 * 6 * 33 + 7);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i * 7 + 1);
  DeviceBuffer<uint16_t> dh(h), dho(std::vector<uint16_t>(4 * 6 * 33));
  cuda::Layout swap;
  swap.rank = 3;
  const int64_t sdims[3] = {6, 4, 33}, sstrides[3] = {33, 198, 1};
  for (int d = 0; d < 3; ++d) {
    swap.dims[d] = sdims[d];
    swap.strides[d] = sstrides[d];
  }
  cuda::strided_copy(dh.data, swap, 7, dho.data, 4 * 6 * 33, 2, nullptr);
  auto swapped = dho.read(4 * 6 * 33);
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 33; ++k)
        ASSERT_EQ(swapped[static_cast<size_t>((i * 4 + j) * 33 + k)], h[static_cast<size_t>(7 + j * 198 + i * 33 + k)]);
  auto got = dtt.read(105);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 7; ++j)
      for (int64_t k = 0; k < 5; ++k)
        ASSERT_EQ(got[static_cast<size_t>((i * 7 + j) * 5 + k)], t[static_cast<size_t>(i * 35 + k * 7 + j)]);
}

TEST(GpuKernels, LayerNormAgreesWithTheHostOnEveryPath) {
  // cols: warp-per-row paths with 1, 2, 4 and 8 vectors per lane (a partial last one included), and the
  // block-per-row path (not a multiple of 4; above 1024).
  for (int64_t cols : {8, 200, 384, 768, 1000, 6, 1030}) {
    for (bool with_bias : {true, false}) {
      const int64_t rows = 37;
      auto x = ramp(rows * cols, 0.37f), scale = ramp(cols, 0.01f), bias = ramp(cols, -0.02f);
      DeviceBuffer<float> dx(x), ds(scale), db(bias), dy(std::vector<float>(static_cast<size_t>(rows * cols)));
      cuda::layer_norm(dx.data, ds.data, with_bias ? db.data : nullptr, dy.data, rows, cols, 1e-5f, nullptr);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      auto got = dy.read(static_cast<size_t>(rows * cols));
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; ++c) mean += x[static_cast<size_t>(r * cols + c)];
        mean /= static_cast<double>(cols);
        for (int64_t c = 0; c < cols; ++c) {
          const double d = x[static_cast<size_t>(r * cols + c)] - mean;
          var += d * d;
        }
        const double inv = 1.0 / std::sqrt(var / static_cast<double>(cols) + 1e-5);
        for (int64_t c = 0; c < cols; ++c) {
          const auto i = static_cast<size_t>(r * cols + c);
          const double want =
              (x[i] - mean) * inv * scale[static_cast<size_t>(c)] + (with_bias ? bias[static_cast<size_t>(c)] : 0.0);
          ASSERT_NEAR(got[i], want, 1e-4 * (1 + std::fabs(want))) << "cols " << cols << " row " << r << " col " << c;
        }
      }
    }
  }
}

// Copies that move the innermost dim run as tiled transposes (layout.h: transpose_of): every element lands where
// the element walk puts it, for tile edges that do not divide the sides, batches, a base offset and every element
// size; the thin and the kept-innermost copies beside them still walk.
TEST(GpuKernels, TiledTransposesAgreeWithTheHost) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int> perm;
  };
  const std::vector<Case> cases{
      {{2, 24, 6, 7}, {0, 2, 3, 1}},  {{3, 20, 4, 8}, {0, 2, 3, 1}}, {{40, 50}, {1, 0}},       {{1, 70, 33}, {0, 2, 1}},
      {{2, 3, 16, 16}, {0, 2, 3, 1}}, {{2, 20, 4, 8}, {0, 2, 1, 3}}, {{5, 100, 17}, {0, 2, 1}}};
  for (const auto& c : cases) {
    const int64_t n = elements(c.dims), base = 5;
    auto dense = cuda::dense_layout(c.dims);
    cuda::Layout l;
    l.rank = static_cast<int>(c.perm.size());
    for (size_t d = 0; d < c.perm.size(); ++d) {
      l.dims[d] = c.dims[static_cast<size_t>(c.perm[d])];
      l.strides[d] = dense.strides[c.perm[d]];
    }
    auto out_layout = cuda::dense_layout(std::vector<int64_t>(l.dims, l.dims + l.rank));
    auto expect_copy = [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> host(static_cast<size_t>(n + base));
      for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<T>(i * 13 + 3);
      DeviceBuffer<T> din(host), dout(std::vector<T>(static_cast<size_t>(n)));
      cuda::strided_copy(din.data, l, base, dout.data, n, static_cast<int>(sizeof(T)), nullptr);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      auto got = dout.read(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(got[static_cast<size_t>(i)], host[static_cast<size_t>(base + offset_in(i, out_layout, l))])
            << "dims " << c.dims.size() << " element " << i << " size " << sizeof(T);
    };
    expect_copy(uint8_t{});
    expect_copy(uint16_t{});
    expect_copy(uint32_t{});
    expect_copy(uint64_t{});
  }
}

// A layer's epilogue: each activation as ONNX defines it (GELU in both forms, a clip's bounds), with and without the
// bias and the residual, per column of a product (inner 1) and per channel of an NCHW output (inner H x W), on
// sizes that are multiples of nothing the kernel could assume.
TEST(GpuKernels, EpiloguesAgreeWithTheHost) {
  using Op = cuda::EpilogueOp;
  auto host = [](Op op, double x) {
    switch (op) {
      case Op::kRelu:
        return std::max(x, 0.0);
      case Op::kGeluErf:
        return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      case Op::kGeluTanh:
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      case Op::kSilu:
        return x / (1 + std::exp(-x));
      case Op::kHardSwish:
        return x * std::clamp(x / 6 + 0.5, 0.0, 1.0);
      case Op::kClip:
        return std::clamp(x, -1.0, 2.5);
      default:
        return x;
    }
  };
  const int64_t n = 3 * 7 * 45;
  for (auto op : {Op::kNone, Op::kRelu, Op::kGeluErf, Op::kGeluTanh, Op::kSilu, Op::kHardSwish, Op::kClip}) {
    for (int64_t inner : {1, 45}) {  // 45 columns of 21 rows; 3 images of 7 channels of 45 pixels
      for (bool with_bias : {true, false}) {
        for (bool with_residual : {false, true}) {
          const int64_t channels = inner == 1 ? 45 : 7;
          auto y = ramp(n, 0.071f), bias = ramp(channels, -0.05f), residual = ramp(n, 0.013f);
          DeviceBuffer<float> dy(y), db(bias), dr(residual);
          cuda::Epilogue e;
          e.bias = with_bias ? db.data : nullptr;
          e.residual = with_residual ? dr.data : nullptr;
          e.channels = channels;
          e.inner = inner;
          e.op = op;
          e.lo = -1.f;
          e.hi = 2.5f;
          cuda::epilogue(dy.data, n, e, nullptr);
          ASSERT_EQ(cudaGetLastError(), cudaSuccess);
          auto got = dy.read(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) {
            double x = y[static_cast<size_t>(i)];
            if (with_bias) x += bias[static_cast<size_t>(i / inner % channels)];
            if (with_residual) x += residual[static_cast<size_t>(i)];
            double want = host(op, x);
            ASSERT_NEAR(got[static_cast<size_t>(i)], want, 1e-5 * (1 + std::fabs(want)))
                << "op " << static_cast<int>(op) << " inner " << inner << " bias " << with_bias << " residual "
                << with_residual << " element " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// Training Dropout draws a new mask on every run, eager and as replays of one captured CUDA graph (its run count
// lives on the device), and keeps about 1 - ratio of the elements, scaled by 1 / (1 - ratio).
TEST(GpuKernels, DropoutDrawsANewMaskEveryRunAndEveryReplay) {
  const int64_t n = 4096;
  std::vector<float> ones(n, 1.f);
  DeviceBuffer<float> x(ones), y{std::vector<float>(n)};
  DeviceBuffer<uint8_t> keep{std::vector<uint8_t>(n)};
  DeviceBuffer<uint64_t> run(std::vector<uint64_t>{0});
  auto* mask = reinterpret_cast<bool*>(keep.data);
  auto draw = [&](cudaStream_t stream) { cuda::dropout_forward(x.data, y.data, mask, n, 0.25f, 7, run.data, stream); };
  draw(nullptr);
  auto first = keep.read(n);
  auto scaled = y.read(n);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += first[i];
    EXPECT_FLOAT_EQ(scaled[i], first[i] ? 1.f / 0.75f : 0.f);
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.75, 0.05);
  draw(nullptr);
  EXPECT_NE(keep.read(n), first);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
  draw(stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  auto replay1 = keep.read(n);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_NE(keep.read(n), replay1);
  EXPECT_EQ(run.read(1)[0], 4u);  // two eager runs, two replays
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// NonZero's and Compress's selection (CUB's DeviceSelect) over a million flags: every flagged position, in order, and
// the count; floats compared as numbers (-0 is zero, NaN is not).
TEST(GpuKernels, SelectionFindsEveryFlaggedPositionInOrder) {
  const int64_t n = 1 << 20;
  std::vector<float> x(static_cast<size_t>(n), 0.f);
  std::vector<int64_t> want;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 3 || i % 1000 == 999) {
      x[static_cast<size_t>(i)] = i % 2 ? NAN : 1.f;
      want.push_back(i);
    } else if (i % 11 == 0) {
      x[static_cast<size_t>(i)] = -0.f;
    }
  }
  DeviceBuffer<float> dx(x);
  DeviceBuffer<uint8_t> flags{std::vector<uint8_t>(static_cast<size_t>(n))};
  cuda::nonzero_flags(dx.data, cuda::ElementType::kFloat32, true, 4, n, flags.data, nullptr);
  const size_t bytes = cuda::select_temp_bytes(n);
  DeviceBuffer<uint8_t> temp{std::vector<uint8_t>(bytes + 1)};
  DeviceBuffer<int64_t> indices{std::vector<int64_t>(static_cast<size_t>(n))}, count{std::vector<int64_t>(1)};
  cuda::select_flagged(flags.data, n, indices.data, count.data, temp.data, bytes, nullptr);
  ASSERT_EQ(count.read(1)[0], static_cast<int64_t>(want.size()));
  EXPECT_EQ(indices.read(want.size()), want);
}

// RandomNormal's, RandomUniform's and Bernoulli's kernels (generator_kernels.h): each element the host's draw of the
// run's stream, and the next run another stream (the run count advanced on the device, as Dropout's).
TEST(GpuKernels, RandomDrawsAreTheHostsAndEveryRunDrawsAnew) {
  const int64_t n = 1 << 20;
  DeviceBuffer<float> y{std::vector<float>(n)}, p{std::vector<float>(n, 0.25f)};
  DeviceBuffer<uint64_t> run(std::vector<uint64_t>{0});
  cuda::random_fill(y.data, n, true, 2.f, 3.f, 11, run.data, nullptr);
  auto first = y.read(n);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(first[static_cast<size_t>(i)], 2.f + 3.f * cuda::counter_normal(11, i), 1e-5f) << i;
    sum += first[static_cast<size_t>(i)];
  }
  EXPECT_NEAR(sum / n, 2.0, 0.02);
  cuda::random_fill(y.data, n, false, -1.f, 1.f, 11, run.data, nullptr);  // run 1: seed ^ (1 << 32)
  auto second = y.read(n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(second[static_cast<size_t>(i)], -1.f + 2.f * cuda::counter_uniform(11 ^ (uint64_t{1} << 32), i)) << i;
  cuda::bernoulli(p.data, y.data, n, 11, run.data, nullptr);
  auto drawn = y.read(n);
  double ones = 0;
  for (auto v : drawn) {
    ASSERT_TRUE(v == 0.f || v == 1.f);
    ones += v;
  }
  EXPECT_NEAR(ones / n, 0.25, 0.005);
  EXPECT_EQ(run.read(1)[0], 3u);
}

// The 16-bit kernels a run that keeps activations in fp16 or bf16 uses (exec/cuda/storage_plan.h): each element read
// into fp32, computed as the fp32 kernel computes it, and rounded once. The inputs are rounded to the 16-bit type and
// back by the cast kernel, so the host computes from the same values; the result may differ from the host's by the
// output's rounding (half an ulp: 2^-11 of fp16, 2^-8 of bf16) and fp32's own error.
TEST(GpuKernels, SixteenBitKernelsComputeInFp32AndRoundOnce) {
  using ET = cuda::ElementType;
  for (auto type : {ET::kFloat16, ET::kBFloat16}) {
    const double ulp = type == ET::kFloat16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    const char* label = type == ET::kFloat16 ? "fp16" : "bf16";
    // A device buffer of 16-bit elements made from `values`, and `values` as the 16-bit type holds them.
    struct Half {
      std::unique_ptr<DeviceBuffer<uint16_t>> buffer;
      std::vector<float> held;
      uint16_t* data() const { return buffer->data; }
    };
    auto to_16 = [&](const std::vector<float>& values) {
      const auto count = static_cast<int64_t>(values.size());
      DeviceBuffer<float> wide(values);
      Half h{std::make_unique<DeviceBuffer<uint16_t>>(std::vector<uint16_t>(values.size())), {}};
      EXPECT_TRUE(cuda::cast(ET::kFloat32, wide.data, type, h.data(), count, nullptr));
      EXPECT_TRUE(cuda::cast(type, h.data(), ET::kFloat32, wide.data, count, nullptr));
      h.held = wide.read(values.size());
      return h;
    };
    auto from_16 = [&](const uint16_t* d, size_t n) {
      DeviceBuffer<float> wide{std::vector<float>(n)};
      EXPECT_TRUE(cuda::cast(type, d, ET::kFloat32, wide.data, static_cast<int64_t>(n), nullptr));
      return wide.read(n);
    };
    auto expect_close = [&](const std::vector<float>& got, const std::vector<double>& want, const char* what) {
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], ulp * std::fabs(want[i]) + 1e-6) << label << " " << what << " element " << i;
    };
    const int64_t n = 3 * 7 * 45;
    auto x = to_16(ramp(n, 0.071f));
    // Unary ops, computed by the same per-element function as the fp32 kernel.
    for (auto op : {cuda::UnaryOp::kRelu, cuda::UnaryOp::kSigmoid, cuda::UnaryOp::kErf, cuda::UnaryOp::kGeluErf,
                    cuda::UnaryOp::kClip}) {
      DeviceBuffer<uint16_t> y{std::vector<uint16_t>(static_cast<size_t>(n))};
      cuda::unary(op, x.data(), y.data, n, -1.f, 2.5f, nullptr, type);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      std::vector<double> want;
      for (float v : x.held) want.push_back(cuda::apply_unary(op, v, -1.f, 2.5f));
      expect_close(from_16(y.data, static_cast<size_t>(n)), want, "unary");
    }
    // Binary ops: the same shape (flat), a scalar and a broadcast row (the element walk).
    auto b = to_16(ramp(n, 0.013f)), scalar = to_16({1.75f}), row = to_16(ramp(45, -0.05f));
    const std::vector<int64_t> dims{3, 7, 45};
    auto ol = cuda::dense_layout(dims);
    for (const auto* other : {&b, &scalar, &row}) {
      std::vector<int64_t> other_dims =
          other == &b ? dims : (other == &scalar ? std::vector<int64_t>{1} : std::vector<int64_t>{45});
      auto bl = cuda::broadcast_layout(other_dims, dims);
      for (auto op : {cuda::BinaryOp::kSub, cuda::BinaryOp::kMul, cuda::BinaryOp::kDiv}) {
        DeviceBuffer<uint16_t> out{std::vector<uint16_t>(static_cast<size_t>(n))};
        cuda::binary(op, false, x.data(), ol, other->data(), bl, out.data, ol, nullptr, type);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        std::vector<double> want;
        for (int64_t i = 0; i < n; ++i)
          want.push_back(cuda::apply_binary(op, x.held[static_cast<size_t>(i)],
                                            other->held[static_cast<size_t>(offset_in(i, ol, bl))]));
        expect_close(from_16(out.data, static_cast<size_t>(n)), want, "binary");
      }
    }
    // A convolution's epilogue over a 16-bit output: fp32 bias per channel, 16-bit residual, exact GELU.
    {
      auto y = to_16(ramp(n, 0.071f));
      auto bias = ramp(7, -0.05f);
      DeviceBuffer<float> db(bias);
      cuda::Epilogue e;
      e.bias = db.data;
      e.residual = b.data();
      e.type = type;
      e.channels = 7;
      e.inner = 45;
      e.op = cuda::EpilogueOp::kGeluErf;
      cuda::epilogue(y.data(), n, e, nullptr);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      std::vector<double> want;
      for (int64_t i = 0; i < n; ++i) {
        double v =
            y.held[static_cast<size_t>(i)] + bias[static_cast<size_t>(i / 45 % 7)] + b.held[static_cast<size_t>(i)];
        want.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
      }
      expect_close(from_16(y.data(), static_cast<size_t>(n)), want, "epilogue");
    }
    // LayerNormalization over rows of 768 (BERT's), statistics in fp32.
    {
      const int64_t rows = 5, cols = 768;
      auto in = to_16(ramp(rows * cols, 0.031f));
      auto scale = ramp(cols, 0.002f), shift = ramp(cols, 0.001f);
      DeviceBuffer<float> ds(scale), dt(shift);
      DeviceBuffer<uint16_t> out{std::vector<uint16_t>(static_cast<size_t>(rows * cols))};
      cuda::layer_norm(in.data(), ds.data, dt.data, out.data, rows, cols, 1e-5f, nullptr, type);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      std::vector<double> want;
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; ++c) mean += in.held[static_cast<size_t>(r * cols + c)];
        mean /= cols;
        for (int64_t c = 0; c < cols; ++c) var += std::pow(in.held[static_cast<size_t>(r * cols + c)] - mean, 2);
        var /= cols;
        for (int64_t c = 0; c < cols; ++c)
          want.push_back((in.held[static_cast<size_t>(r * cols + c)] - mean) / std::sqrt(var + 1e-5) *
                             scale[static_cast<size_t>(c)] +
                         shift[static_cast<size_t>(c)]);
      }
      auto got = from_16(out.data, static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < got.size(); ++i)  // the statistics' fp32 sums: an absolute 1e-4 beside the rounding
        ASSERT_NEAR(got[i], want[i], ulp * std::fabs(want[i]) + 1e-4) << label << " layer norm element " << i;
    }
    // A -inf padded copy (MaxPool's ceil_mode): 16-bit elements in, the pad value out of bounds.
    {
      auto in = to_16(ramp(2 * 3 * 4, 0.25f));
      const std::vector<int64_t> in_dims{2, 3, 4}, out_dims{2, 4, 6}, begin{0, 1, 1};
      DeviceBuffer<uint16_t> out{std::vector<uint16_t>(static_cast<size_t>(elements(out_dims)))};
      cuda::pad_constant(in.data(), cuda::dense_layout(in_dims), begin.data(), out.data, cuda::dense_layout(out_dims),
                         -INFINITY, nullptr, type);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      auto got = from_16(out.data, static_cast<size_t>(elements(out_dims)));
      for (int64_t i = 0; i < elements(out_dims); ++i) {
        int64_t w = i % 6, h = i / 6 % 4, n0 = i / 24;
        bool inside = h >= 1 && h < 4 && w >= 1 && w < 5;
        double want = inside ? in.held[static_cast<size_t>((n0 * 3 + h - 1) * 4 + w - 1)] : -INFINITY;
        ASSERT_EQ(got[static_cast<size_t>(i)], want) << label << " pad element " << i;
      }
    }
  }
}

// MeanVarianceNormalization and LpNormalization through both block sizes (groups of more and of at most 64 elements),
// a scatter whose 4096 updates land on 16 elements (the atomics: add on fp32, max on int64), gathers and CumSum over
// many lines, against the host's serial functions (index_cell.h, reduce_cell.h).
TEST(GpuKernels, IndexKernelsAndGroupNormalizationsAgreeWithTheHost) {
  const std::vector<int64_t> dims{4, 8, 16, 16};
  auto x = ramp(elements(dims), 0.05f);
  DeviceBuffer<float> dx(x);
  struct Norm {
    cuda::WalkNorm op;
    std::vector<int64_t> axes;
  };
  for (const auto& norm : {Norm{cuda::WalkNorm::kMeanVariance, {0, 2, 3}}, Norm{cuda::WalkNorm::kL2, {1}},
                           Norm{cuda::WalkNorm::kL1, {3}}}) {
    auto plan = cuda::reduce_plan(dims, norm.axes);
    DeviceBuffer<float> dy(std::vector<float>(x.size()));
    cuda::walk_normalize(plan, norm.op, dx.data, dy.data, nullptr);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<float> want(x.size());
    for (int64_t o = 0; o < plan.outputs; ++o) cuda::walk_norm_serial(plan, norm.op, x.data(), want.data(), o);
    auto got = dy.read(x.size());
    for (size_t i = 0; i < x.size(); ++i)  // the block sums in another order than the host
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "group count " << plan.count << " element " << i;
  }

  // 4096 updates into [2, 16] along dim 1, element i of row r landing on column i % 16.
  const std::vector<int64_t> data_dims{2, 16}, index_dims{2, 2048};
  std::vector<int64_t> indices(4096);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<int64_t>(i % 16) - (i % 3 == 0 ? 16 : 0);
  auto plan = cuda::elements_plan(data_dims, index_dims, 1);
  DeviceBuffer<int64_t> di(indices);
  {
    DeviceBuffer<float> out(std::vector<float>(32, 1.f)), updates(std::vector<float>(4096, 0.5f));
    cuda::scatter_elements(plan, di.data, updates.data, out.data, 4, cuda::ScatterReduce::kAdd,
                           cuda::ElementType::kFloat32, nullptr, nullptr);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    for (float v : out.read(32)) EXPECT_EQ(v, 1.f + 128 * 0.5f);  // 2048 / 16 updates per element
  }
  {
    std::vector<int64_t> values(4096);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>((i * 7919) % 100003) - 50000;
    DeviceBuffer<int64_t> out(std::vector<int64_t>(32, -1'000'000)), updates(values);
    cuda::scatter_elements(plan, di.data, updates.data, out.data, 8, cuda::ScatterReduce::kMax,
                           cuda::ElementType::kInt64, nullptr, nullptr);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<int64_t> want(32, -1'000'000);
    for (int64_t i = 0; i < 4096; ++i) {
      auto at = cuda::elements_offset(plan, i, indices[static_cast<size_t>(i)]);
      want[static_cast<size_t>(at)] = std::max(want[static_cast<size_t>(at)], values[static_cast<size_t>(i)]);
    }
    EXPECT_EQ(out.read(32), want);
  }
  {  // gathers: the same indices read back (GatherElements), and out-of-range ones counted
    DeviceBuffer<float> data(ramp(32, 1.f)), out(std::vector<float>(4096));
    auto host_data = ramp(32, 1.f);
    DeviceBuffer<int> bad(std::vector<int>{0});
    cuda::gather_elements(plan, data.data, di.data, out.data, 4, bad.data, nullptr);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    auto got = out.read(4096);
    for (int64_t i = 0; i < 4096; ++i)
      ASSERT_EQ(got[static_cast<size_t>(i)],
                host_data[static_cast<size_t>(cuda::elements_offset(plan, i, indices[static_cast<size_t>(i)]))]);
    EXPECT_EQ(bad.read(1)[0], 0);
    std::vector<int64_t> outside(indices);
    outside[5] = 16, outside[77] = -17;
    DeviceBuffer<int64_t> dout(outside);
    cuda::gather_elements(plan, data.data, dout.data, out.data, 4, bad.data, nullptr);
    EXPECT_EQ(bad.read(1)[0], 2);
    // GatherND: rows of [2, 16] by 1-tuples, 300 of them
    std::vector<int64_t> rows(300);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i % 2) - (i % 5 == 0 ? 2 : 0);
    auto nd = cuda::nd_plan(data_dims, {300, 1}, 0);
    DeviceBuffer<int64_t> drows(rows);
    DeviceBuffer<float> nd_out(std::vector<float>(300 * 16));
    cuda::gather_nd(nd, data.data, drows.data, nd_out.data, 4, nullptr, nullptr);
    auto g = nd_out.read(300 * 16);
    for (int64_t i = 0; i < 300 * 16; ++i)
      ASSERT_EQ(g[static_cast<size_t>(i)],
                host_data[static_cast<size_t>(cuda::nd_offset(nd, i / 16, rows.data() + i / 16) + i % 16)]);
  }
  {  // CumSum along dim 2 of [4, 8, 16, 16]: 512 lines of 16, reversed
    graph::Node node;
    node.op_type = "CumSum";
    graph::Attribute reverse;
    reverse.name = "reverse";
    reverse.kind = graph::Attribute::Kind::kInt;
    reverse.i = 1;
    node.attributes.push_back(reverse);
    auto cplan = cuda::cumsum_plan(node, dims, 2);
    DeviceBuffer<float> dy(std::vector<float>(x.size()));
    ASSERT_TRUE(cuda::cumsum(cplan, dx.data, dy.data, cuda::ElementType::kFloat32, nullptr));
    std::vector<float> want(x.size());
    for (int64_t line = 0; line < cplan.outer * cplan.inner; ++line)
      cuda::cumsum_line(cplan, x.data(), want.data(), line);
    EXPECT_EQ(dy.read(x.size()), want);  // each line summed in the same order as on the host
  }
  {  // TopK: the 10 largest of each of 64 lines of 1000 values with many ties (1000 values of 97 levels)
    graph::Node node;
    node.op_type = "TopK";
    auto tplan = cuda::topk_plan(node, {64, 1000}, 10);
    auto scores = ramp(64 * 1000, 1.f);
    DeviceBuffer<float> ds(scores), values(std::vector<float>(640));
    DeviceBuffer<int64_t> where(std::vector<int64_t>(640, -1));
    ASSERT_TRUE(cuda::topk(tplan, ds.data, values.data, where.data, cuda::ElementType::kFloat32, nullptr));
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<float> want_values(640);
    std::vector<int64_t> want_where(640);
    for (int64_t line = 0; line < 64; ++line)
      for (int64_t j = 0; j < 1000; ++j) {
        auto rank = cuda::topk_rank(tplan, scores.data(), line, j);
        if (rank >= 10) continue;
        want_values[static_cast<size_t>(line * 10 + rank)] = scores[static_cast<size_t>(line * 1000 + j)];
        want_where[static_cast<size_t>(line * 10 + rank)] = j;
      }
    EXPECT_EQ(values.read(640), want_values);
    EXPECT_EQ(where.read(640), want_where);
  }
}

// Quantization per channel and OneHot over a million elements (many blocks, grid-stride loops), element by element
// against the host's cell functions; DynamicQuantizeLinear's range by the reduction kernel.
TEST(GpuKernels, QuantizationAndOneHotAgreeWithTheHostAtSize) {
  const int64_t outer = 64, channels = 48, inner = 333, n = outer * channels * inner;
  std::vector<float> x(static_cast<size_t>(n)), scale(channels);
  std::vector<int32_t> zero(channels);
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 40.f * std::sin(0.013f * static_cast<float>(i));
  for (int64_t c = 0; c < channels; ++c) {
    scale[static_cast<size_t>(c)] = 0.05f + 0.01f * static_cast<float>(c);
    zero[static_cast<size_t>(c)] = static_cast<int32_t>(c) - 20;
  }
  cuda::QuantizePlan plan;
  plan.count = n, plan.channels = channels, plan.inner = inner, plan.type = cuda::QuantType::kInt8;
  DeviceBuffer<float> dx(x), dscale(scale);
  DeviceBuffer<int32_t> dzero(zero);
  DeviceBuffer<int8_t> dq(std::vector<int8_t>(static_cast<size_t>(n)));
  ASSERT_TRUE(cuda::quantize(plan, dx.data, cuda::ElementType::kFloat32, dscale.data, dzero.data, dq.data, nullptr));
  DeviceBuffer<float> dy(std::vector<float>(static_cast<size_t>(n)));
  ASSERT_TRUE(cuda::dequantize(plan, dq.data, dscale.data, dzero.data, dy.data, cuda::ElementType::kFloat32, nullptr));
  auto q = dq.read(static_cast<size_t>(n));
  auto y = dy.read(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto c = static_cast<size_t>(cuda::quant_channel(plan, i));
    auto want = cuda::quantize_value(x[static_cast<size_t>(i)], scale[c], zero[c], plan.type);
    ASSERT_EQ(q[static_cast<size_t>(i)], want) << i;
    ASSERT_EQ(y[static_cast<size_t>(i)], cuda::dequantize_value(want, zero[c], scale[c])) << i;
  }
  // DynamicQuantizeLinear: the range of x, then every element.
  std::vector<int64_t> all{0};
  auto walk = cuda::reduce_plan({n}, all);
  DeviceBuffer<float> range(std::vector<float>(2));
  cuda::reduce(walk, cuda::ReduceOp::kMin, dx.data, range.data, nullptr, nullptr);
  cuda::reduce(walk, cuda::ReduceOp::kMax, dx.data, range.data + 1, nullptr, nullptr);
  DeviceBuffer<uint8_t> du(std::vector<uint8_t>(static_cast<size_t>(n)));
  DeviceBuffer<float> dscale_out(std::vector<float>(1));
  DeviceBuffer<uint8_t> dzero_out(std::vector<uint8_t>(1));
  cuda::dynamic_quantize(dx.data, n, range.data, du.data, dscale_out.data, dzero_out.data, nullptr);
  auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  auto d = cuda::dynamic_quant(*lo, *hi);
  EXPECT_EQ(dscale_out.read(1)[0], d.scale);
  EXPECT_EQ(dzero_out.read(1)[0], d.zero_point);
  auto u = du.read(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(u[static_cast<size_t>(i)],
              cuda::quantize_value(x[static_cast<size_t>(i)], d.scale, d.zero_point, cuda::QuantType::kUInt8))
        << i;
  // OneHot of 64 x 333 indices into 48 classes along axis 1, some negative and some out of range; int64 values.
  cuda::OneHotPlan hot;
  hot.outer = outer, hot.depth = channels, hot.inner = inner;
  std::vector<int64_t> indices(static_cast<size_t>(outer * inner));
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<int64_t>(i * 7 % 110) - 55;
  DeviceBuffer<int64_t> dindices(indices), dvalues(std::vector<int64_t>{-3, 9});
  cuda::normalize_one_hot(dindices.data, static_cast<int64_t>(indices.size()), channels, nullptr);
  DeviceBuffer<int64_t> dhot(std::vector<int64_t>(static_cast<size_t>(n)));
  cuda::one_hot(hot, dindices.data, dvalues.data, dhot.data, 8, nullptr);
  auto selected = dindices.read(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) ASSERT_EQ(selected[i], cuda::one_hot_index(indices[i], channels)) << i;
  auto h = dhot.read(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e)
    ASSERT_EQ(h[static_cast<size_t>(e)], cuda::one_hot_on(hot, e, selected.data()) ? 9 : -3) << e;
}

}  // namespace
}  // namespace ridge::test
