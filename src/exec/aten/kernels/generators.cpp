// Ops that create values: random tensors (from the run's seeded generator) and window functions.
#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

at::ScalarType dtype_attr(const C& c, const char* name, at::ScalarType fallback) {
  return c.node.has(name) ? scalar_type(static_cast<graph::DType>(c.node.get_int(name, 1))) : fallback;
}

std::vector<int64_t> like_shape(const C& c) { return c.in(0).sizes().vec(); }

void random_normal(C& c, bool like) {
  auto shape = like ? like_shape(c) : c.node.get_ints("shape");
  auto type = dtype_attr(c, "dtype", like ? c.in(0).scalar_type() : at::kFloat);
  auto t = at::randn(shape, c.interpreter.generator(), at::kFloat) * c.node.get_float("scale", 1.0) +
           c.node.get_float("mean", 0.0);
  c.set(0, t.to(type));
}

void random_uniform(C& c, bool like) {
  auto shape = like ? like_shape(c) : c.node.get_ints("shape");
  auto type = dtype_attr(c, "dtype", like ? c.in(0).scalar_type() : at::kFloat);
  auto t = at::empty(shape, at::kFloat)
               .uniform_(c.node.get_float("low", 0.0), c.node.get_float("high", 1.0), c.interpreter.generator());
  c.set(0, t.to(type));
}

void bernoulli(C& c) {
  const auto& p = c.in(0);
  auto type = dtype_attr(c, "dtype", p.scalar_type());
  c.set(0, at::bernoulli(p.to(at::kDouble), c.interpreter.generator()).to(type));
}

template <typename Window>
void window(C& c, Window make) {
  auto size = c.ints(0).at(0);
  bool periodic = c.node.get_int("periodic", 1) != 0;
  auto type = dtype_attr(c, "output_datatype", at::kFloat);
  c.set(0, make(size, periodic).to(type));
}

}  // namespace

void register_generator_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("generator", {
    {"RandomNormal", [](C& c) { random_normal(c, false); }},
    {"RandomNormalLike", [](C& c) { random_normal(c, true); }},
    {"RandomUniform", [](C& c) { random_uniform(c, false); }},
    {"RandomUniformLike", [](C& c) { random_uniform(c, true); }},
    {"Bernoulli", bernoulli},
    {"HannWindow", [](C& c) { window(c, [](int64_t n, bool p) { return at::hann_window(n, p, at::kDouble); }); }},
    // ONNX's Hamming window uses alpha = 25/46 and beta = 21/46 (not 0.54 / 0.46).
    {"HammingWindow", [](C& c) {
       window(c, [](int64_t n, bool p) { return at::hamming_window(n, p, 25.0 / 46.0, 21.0 / 46.0, at::kDouble); });
     }},
    {"BlackmanWindow", [](C& c) { window(c, [](int64_t n, bool p) { return at::blackman_window(n, p, at::kDouble); }); }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
