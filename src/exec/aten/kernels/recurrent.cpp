// Recurrent layers (RNN, GRU, LSTM), one time step at a time with ATen matrix products, forward,
// reverse or bidirectional, with sequence lengths, clipping and LSTM peepholes.
#include <fmt/format.h>

#include <functional>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/onednn/onednn.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;
using Activation = std::function<at::Tensor(const at::Tensor&)>;

Activation activation(const C& c, const std::string& name, double alpha, double beta) {
  if (name == "Sigmoid") return [](const at::Tensor& x) { return at::sigmoid(x); };
  if (name == "Tanh") return [](const at::Tensor& x) { return at::tanh(x); };
  if (name == "Relu") return [](const at::Tensor& x) { return at::relu(x); };
  if (name == "LeakyRelu") return [alpha](const at::Tensor& x) { return at::leaky_relu(x, alpha); };
  if (name == "HardSigmoid") return [alpha, beta](const at::Tensor& x) { return at::clamp(x * alpha + beta, 0, 1); };
  if (name == "Softsign") return [](const at::Tensor& x) { return x / (x.abs() + 1); };
  if (name == "Softplus") return [](const at::Tensor& x) { return at::log1p(at::exp(x)); };
  if (name == "ScaledTanh") return [alpha, beta](const at::Tensor& x) { return at::tanh(x * beta) * alpha; };
  if (name == "Affine") return [alpha, beta](const at::Tensor& x) { return x * alpha + beta; };
  c.fail("unsupported activation " + name);
}

// Activations per direction (defaults per op), honouring activation_alpha / activation_beta.
std::vector<Activation> activations(const C& c, std::vector<std::string> defaults, int64_t dirs) {
  const auto* names = c.node.attribute("activations");
  const auto* alphas = c.node.attribute("activation_alpha");
  const auto* betas = c.node.attribute("activation_beta");
  std::vector<std::string> list = names ? names->strings : std::vector<std::string>{};
  if (list.empty())
    for (int64_t d = 0; d < dirs; ++d) list.insert(list.end(), defaults.begin(), defaults.end());
  std::vector<Activation> fns;
  for (size_t i = 0; i < list.size(); ++i) {
    double alpha = alphas && i < alphas->floats.size() ? alphas->floats[i] : (list[i] == "LeakyRelu" ? 0.01 : 1.0);
    double beta = betas && i < betas->floats.size() ? betas->floats[i] : 0.0;
    if (list[i] == "HardSigmoid" && !alphas) alpha = 0.2;
    if (list[i] == "HardSigmoid" && !betas) beta = 0.5;
    fns.push_back(activation(c, list[i], alpha, beta));
  }
  return fns;
}

// The hidden state's product with a direction's R, H_t-1 R^T, once per step. With R a constant fp32 tensor it runs
// on oneDNN's inner product with R reordered once, as fully connected layers do (matmul.cpp): ATen's GEMM packs R
// on every call, which made a step at a batch of 2 (256 hidden) take 4-8x the batch-1 step, where ATen takes
// its matrix-vector path (docs/benchmarks.md, "Recurrent layers").
using HiddenProduct = std::function<at::Tensor(int64_t direction, const at::Tensor& h)>;

HiddenProduct hidden_product(C& c, const at::Tensor& r) {
  using Layers = std::vector<std::shared_ptr<OnednnLinear>>;
  if (!c.is_constant(2) || r.dim() != 3 || !onednn_usable(r, r))
    return [r](int64_t d, const at::Tensor& h) { return at::matmul(h, r[d].t()); };
  auto& layers = c.interpreter.kernel_state<Layers>(&c.node, [&] {
    auto made = std::make_shared<Layers>();
    for (int64_t d = 0; d < r.size(0); ++d)
      made->push_back(std::make_shared<OnednnLinear>(r[d].contiguous(), true, at::Tensor(), Epilogue{}));
    return made;
  });
  return [&layers](int64_t d, const at::Tensor& h) { return layers[static_cast<size_t>(d)]->run(h); };
}

// Runs the op. `cell(dir, x_proj_t, h, c_state, r, rb, hr) -> (h, c)` computes one step for one direction,
// where x_proj_t already holds X_t W^T + Wb and hr(h) is h R^T.
using Cell = std::function<std::pair<at::Tensor, at::Tensor>(
    int64_t, const std::vector<Activation>&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, const std::function<at::Tensor(const at::Tensor&)>&)>;

void run_recurrent(C& c, int64_t gates, std::vector<std::string> default_acts, const Cell& cell, bool has_cell_state) {
  bool batch_first = c.node.get_int("layout", 0) == 1;
  auto x = batch_first ? c.in(0).transpose(0, 1) : c.in(0);  // [seq, batch, input]
  auto w = c.in(1), r = c.in(2);
  auto product = hidden_product(c, r);
  int64_t dirs = w.size(0), hidden = r.size(2), seq = x.size(0), batch = x.size(1);
  auto direction = c.node.get_string("direction", "forward");
  auto acts = activations(c, default_acts, dirs);
  size_t per_dir = default_acts.size();
  auto b = c.has(3) ? c.in(3) : at::zeros({dirs, 2 * gates * hidden}, x.options());
  // Batch first, the initial states are [batch, directions, hidden] too.
  auto state_input = [&](size_t i) { return batch_first ? c.in(i).transpose(0, 1) : c.in(i); };
  auto h0 = c.has(5) ? state_input(5) : at::zeros({dirs, batch, hidden}, x.options());
  auto c0 = has_cell_state && c.has(6) ? state_input(6) : at::zeros({dirs, batch, hidden}, x.options());
  at::Tensor lens = c.has(4) ? c.in(4).to(at::kLong) : at::full({batch}, seq, at::kLong);
  // Without sequence lengths (what exporters write) or with every sequence full, no step is masked: the three
  // selects per step would double the small operations a step of a small layer runs.
  bool masked = c.has(4) && (lens != seq).any().item<bool>();
  std::vector<at::Tensor> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || (direction == "bidirectional" && d == 1);
    std::vector<Activation> f(acts.begin() + static_cast<int64_t>(d * per_dir),
                              acts.begin() + static_cast<int64_t>((d + 1) * per_dir));
    auto wb = b[d].slice(0, 0, gates * hidden), rb = b[d].slice(0, gates * hidden);
    auto x_proj = at::matmul(x, w[d].t()) + wb;  // all steps at once: [seq, batch, gates*H]
    auto hr = [&product, d](const at::Tensor& state) { return product(d, state); };
    auto h = h0[d], cs_state = c0[d];
    std::vector<at::Tensor> outputs(static_cast<size_t>(seq));
    for (int64_t s = 0; s < seq; ++s) {
      // Reverse: step s reads position len-1-s of each sequence (its own length).
      at::Tensor xt;
      if (reverse && masked) {
        auto pos = (lens - 1 - s).clamp_min(0);
        xt = x_proj.index_select(0, pos).diagonal(0, 0, 1).t();
      } else {
        xt = x_proj[reverse ? seq - 1 - s : s];
      }
      auto [h_new, c_new] = cell(d, f, xt, h, cs_state, r[d], rb, hr);
      if (!masked) {
        h = h_new;
        if (c_new.defined()) cs_state = c_new;
        outputs[static_cast<size_t>(s)] = h_new;
        continue;
      }
      at::Tensor active = (s < lens).view({batch, 1});
      h = at::where(active, h_new, h);
      if (c_new.defined()) cs_state = at::where(active, c_new, cs_state);
      outputs[static_cast<size_t>(s)] = at::where(active, h_new, at::zeros_like(h_new));
    }
    at::Tensor y = at::stack(outputs);  // [seq, batch, H] in step order
    if (reverse && !masked) {
      y = y.flip(0);  // step s produced time seq - 1 - s
    } else if (reverse) {
      // Step s of sequence b belongs at time len_b - 1 - s.
      auto t_index = at::arange(seq, at::kLong).view({seq, 1});
      auto src = (lens.view({1, batch}) - 1 - t_index);  // for time t: the step that produced it
      auto valid = src >= 0;
      auto gathered = y.gather(0, src.clamp_min(0).unsqueeze(-1).expand({seq, batch, hidden}));
      y = at::where(valid.unsqueeze(-1), gathered, at::zeros_like(gathered));
    }
    ys.push_back(y);
    hs.push_back(h);
    cs.push_back(cs_state);
  }
  auto y = at::stack(ys, 1);  // [seq, dirs, batch, H]
  if (batch_first) y = y.permute({2, 0, 1, 3});
  c.set(0, y.contiguous());
  auto yh = at::stack(hs), yc = at::stack(cs);
  c.set(1, batch_first ? yh.transpose(0, 1).contiguous() : yh);
  if (has_cell_state) c.set(2, batch_first ? yc.transpose(0, 1).contiguous() : yc);
}

at::Tensor clipped(const C& c, const at::Tensor& t) {
  double clip = c.node.get_float("clip", 0);
  return clip > 0 ? t.clamp(-clip, clip) : t;
}

void rnn(C& c) {
  run_recurrent(
      c, 1, {"Tanh"},
      [&c](int64_t, const std::vector<Activation>& f, const at::Tensor& xt, const at::Tensor& h, const at::Tensor&,
           const at::Tensor&, const at::Tensor& rb, const auto& hr) {
        return std::pair{f[0](clipped(c, xt + hr(h) + rb)), at::Tensor()};
      },
      false);
}

void gru(C& c) {
  bool linear_before_reset = c.node.get_int("linear_before_reset", 0) != 0;
  run_recurrent(
      c, 3, {"Sigmoid", "Tanh"},
      [&c, linear_before_reset](int64_t, const std::vector<Activation>& f, const at::Tensor& xt, const at::Tensor& h,
                                const at::Tensor&, const at::Tensor& r, const at::Tensor& rb, const auto& hr) {
        int64_t hs = h.size(-1);
        auto xz = xt.slice(-1, 0, hs), xr = xt.slice(-1, hs, 2 * hs), xh = xt.slice(-1, 2 * hs);
        auto rh = r.slice(0, 2 * hs);
        auto bz = rb.slice(0, 0, hs), br = rb.slice(0, hs, 2 * hs), bh = rb.slice(0, 2 * hs);
        // h R^T for all three gates in one product; without linear_before_reset the third gate multiplies
        // (r . h) instead, so its third of the product is unused.
        auto all = hr(h);
        auto z = f[0](clipped(c, xz + all.slice(-1, 0, hs) + bz));
        auto rg = f[0](clipped(c, xr + all.slice(-1, hs, 2 * hs) + br));
        auto hh = linear_before_reset ? f[1](clipped(c, xh + rg * (all.slice(-1, 2 * hs) + bh)))
                                      : f[1](clipped(c, xh + at::matmul(rg * h, rh.t()) + bh));
        return std::pair{(1 - z) * hh + z * h, at::Tensor()};
      },
      false);
}

void lstm(C& c) {
  at::Tensor peephole = c.has(7) ? c.in(7) : at::Tensor();
  bool input_forget = c.node.get_int("input_forget", 0) != 0;
  run_recurrent(
      c, 4, {"Sigmoid", "Tanh", "Tanh"},
      [&c, peephole, input_forget](int64_t d, const std::vector<Activation>& f, const at::Tensor& xt,
                                   const at::Tensor& h, const at::Tensor& cell, const at::Tensor&, const at::Tensor& rb,
                                   const auto& hr) {
        int64_t hs = h.size(-1);
        auto g = xt + hr(h) + rb;  // gates i, o, f, c
        auto gi = g.slice(-1, 0, hs), go = g.slice(-1, hs, 2 * hs), gf = g.slice(-1, 2 * hs, 3 * hs),
             gc = g.slice(-1, 3 * hs);
        if (peephole.defined()) {
          auto p = peephole[d];
          gi = gi + p.slice(0, 0, hs) * cell;
          gf = gf + p.slice(0, 2 * hs, 3 * hs) * cell;
        }
        auto i = f[0](clipped(c, gi));
        auto fg = input_forget ? 1 - i : f[0](clipped(c, gf));
        auto ct = fg * cell + i * f[1](clipped(c, gc));
        if (peephole.defined()) go = go + peephole[d].slice(0, hs, 2 * hs) * ct;
        auto o = f[0](clipped(c, go));
        return std::pair{o * f[2](ct), ct};
      },
      true);
}

}  // namespace

void register_recurrent_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("recurrent", {{"RNN", rnn}, {"GRU", gru}, {"LSTM", lstm}});
  // clang-format on
}

}  // namespace ridge::exec::aten
