// The GPU executor's recurrent layers without a GPU: the order of products, steps and copies the GPU runs
// (src/exec/cuda/recurrent_run.h) and its per-element step (recurrent_cell.h), run here with plain loops, against the
// ONNX project's node tests (both layouts, initial biases, peepholes, sequence lengths) and against the CPU executor
// on layers the node tests lack (bidirectional, reverse with sequence lengths, clip, other activations, GRU both ways,
// initial states); and their backward for a training step (recurrent_backward_run.h) against the CPU executor's
// gradients (libtorch's autograd) of the same loss. What only a GPU checks: the cuBLAS calls and the kernel launches
// (tests/gpu/test_cuda_gpu.cpp, test_training_gpu.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "exec/cuda/backward.h"
#include "exec/cuda/recurrent_backward_run.h"
#include "exec/cuda/recurrent_cell.h"
#include "exec/cuda/recurrent_run.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

// recurrent_run.h's operations on host memory.
struct HostOps {
  void product(const void* a, const void* b, float* c, int64_t rows, int64_t n, int64_t k) {
    const auto* A = static_cast<const float*>(a);
    const auto* B = static_cast<const float*>(b);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += double(A[i * k + p]) * B[j * k + p];
        c[i * n + j] = static_cast<float>(sum);
      }
  }
  const void* operand(const float* state, int64_t) { return state; }
  void step(const cuda::RecurrentStep& s) {
    for (int64_t i = 0; i < s.batch * s.hidden; ++i) cuda::recurrent_element(s, i);
    ++steps;
  }
  void copy_rows(float* to, int64_t to_pitch, const float* from, int64_t from_pitch, int64_t rows, int64_t width) {
    for (int64_t r = 0; r < rows; ++r) std::memcpy(to + r * to_pitch, from + r * from_pitch, width * sizeof(float));
  }
  void fill(float* p, int64_t n, float value) { std::fill(p, p + n, value); }
  // recurrent_backward_run.h's: C[rows, n] (+)= A[rows, k] B[k, n]; C[m, n] = A[k, m]^T B[k, n].
  void product_nn(const float* a, const float* b, float* c, int64_t rows, int64_t n, int64_t k, bool accumulate) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = accumulate ? c[i * n + j] : 0.0;
        for (int64_t p = 0; p < k; ++p) sum += double(a[i * k + p]) * b[p * n + j];
        c[i * n + j] = static_cast<float>(sum);
      }
  }
  void product_tn(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += double(a[p * m + i]) * b[p * n + j];
        c[i * n + j] = static_cast<float>(sum);
      }
  }
  void backward_step(const cuda::RecurrentBackStep& s) {
    for (int64_t i = 0; i < s.batch * s.hidden; ++i) cuda::recurrent_backward_element(s, i);
    ++backward_steps;
  }
  int steps = 0, backward_steps = 0;
};

cuda::RecurrentCell cell_of(const std::string& op) {
  if (op == "LSTM") return cuda::RecurrentCell::kLstm;
  if (op == "GRU") return cuda::RecurrentCell::kGru;
  return cuda::RecurrentCell::kRnn;
}

// The node's outputs as the GPU's order computes them, from the node's inputs (bound by name).
std::vector<exec::HostTensor> run_on_host(const graph::Model& model, const std::vector<exec::HostTensor>& inputs,
                                          int* steps = nullptr) {
  const auto& g = model.graph;
  EXPECT_EQ(g.nodes.size(), 1u);
  const auto& node = g.nodes.front();
  std::map<std::string, const exec::HostTensor*> by_name;
  for (const auto& t : inputs) by_name[t.name] = &t;
  std::vector<const exec::HostTensor*> in;
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const exec::HostTensor* t = nullptr;
    if (node.inputs[i] != graph::kNoValue) {
      auto it = by_name.find(g.value(node.inputs[i]).name);
      if (it != by_name.end()) t = it->second;
    }
    in.push_back(t);
    dims.push_back(t ? t->dims : std::vector<int64_t>{});
  }
  auto cell = cell_of(node.op_type);
  auto l = cuda::describe_recurrent(node, cell, dims);
  auto data = [&](size_t i) -> const float* {
    return i < in.size() && in[i] ? reinterpret_cast<const float*>(in[i]->bytes.data()) : nullptr;
  };
  cuda::RecurrentBuffers b;
  b.x = data(0);
  b.w = data(1);
  b.r = data(2);
  b.bias = data(3);
  b.lens = in.size() > 4 && in[4] ? reinterpret_cast<const int32_t*>(in[4]->bytes.data()) : nullptr;
  b.h0 = data(5);
  b.c0 = data(6);
  b.peephole = data(7);
  const int64_t state = l.state();
  std::vector<float> y(static_cast<size_t>(l.seq * l.directions * state), -7.f), y_h(l.directions * state, -7.f),
      y_c(l.directions * state, -7.f), xw(l.seq * l.batch * l.gates * l.hidden), hr(l.batch * l.gates * l.hidden),
      h0(state), h1(state), c0(state), c1(state), gate(state), reset(state);
  b.y = y.data();
  b.y_h = y_h.data();
  b.y_c = cell == cuda::RecurrentCell::kLstm ? y_c.data() : nullptr;
  b.xw = xw.data();
  b.hr = hr.data();
  b.h[0] = h0.data(), b.h[1] = h1.data(), b.c[0] = c0.data(), b.c[1] = c1.data();
  b.gate = gate.data(), b.reset_hidden = reset.data();
  HostOps ops;
  cuda::run_recurrent(l, b, ops);
  if (steps) *steps = ops.steps;
  std::vector<int64_t> y_dims = l.batch_first ? std::vector<int64_t>{l.batch, l.seq, l.directions, l.hidden}
                                              : std::vector<int64_t>{l.seq, l.directions, l.batch, l.hidden};
  std::vector<int64_t> state_dims = l.batch_first ? std::vector<int64_t>{l.batch, l.directions, l.hidden}
                                                  : std::vector<int64_t>{l.directions, l.batch, l.hidden};
  std::vector<exec::HostTensor> out{float_tensor("Y", y_dims, y), float_tensor("Y_h", state_dims, y_h)};
  if (cell == cuda::RecurrentCell::kLstm) out.push_back(float_tensor("Y_c", state_dims, y_c));
  return out;
}

// The node's outputs by its output position, in the model's output order.
std::vector<exec::HostTensor> model_outputs(const graph::Model& model, const std::vector<exec::HostTensor>& all) {
  const auto& node = model.graph.nodes.front();
  std::vector<exec::HostTensor> out;
  for (auto v : model.graph.outputs)
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] == v) out.push_back(all.at(i));
  return out;
}

TEST(CudaRecurrent, TheGpusStepOrderReproducesOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    if (name.find("lstm") == std::string::npos && name.find("gru") == std::string::npos &&
        name.find("rnn") == std::string::npos)
      continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    auto p = exec::prepare(request, data.string());
    auto outputs = model_outputs(p.analysis.model, run_on_host(p.analysis.model, p.inputs));
    ASSERT_EQ(outputs.size(), p.analysis.model.graph.outputs.size()) << name;
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto want = read_expected((data / ("output_" + std::to_string(i) + ".pb")).string());
      ASSERT_TRUE(want) << name;
      EXPECT_EQ(compare_tensor(outputs[i], *want, 1e-3, 1e-5), "") << name << " output " << i;
    }
    ++checked;
  }
  EXPECT_GE(checked, 12);  // LSTM 4, GRU 4, RNN 4 in libonnx-testdata 1.x
}

struct Layer {
  std::string op;
  int64_t seq = 5, batch = 3, input = 4, hidden = 6;
  std::string direction = "forward";
  int64_t layout = 0;
  bool lens = false, initial = false, peephole = false;
  int64_t linear_before_reset = -1;
  float clip = 0;
  std::vector<std::string> activations;
  std::vector<float> alphas, betas;
};

float value(int64_t i, float scale) { return scale * static_cast<float>(((i * 7919) % 97) - 48) / 48.f; }

std::vector<float> values(int64_t n, float scale, int64_t salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = value(i + salt * 131, scale);
  return v;
}

// The layer as a model of one node, with its tensors' values: every tensor an input, or with `as_weights` the float
// ones weights (initializers, which a training step trains: X too) and the sequence lengths the one input.
struct LayerModel {
  std::string path;
  std::vector<exec::HostTensor> inputs;
  std::map<std::string, exec::HostTensor> weights;  // by name (as_weights): X, W, R, B, H0, C0
};

LayerModel layer_model(const Layer& c, bool as_weights = false) {
  int64_t gates = c.op == "LSTM" ? 4 : (c.op == "GRU" ? 3 : 1);
  int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  ModelBuilder b;
  LayerModel out;
  auto& in = out.inputs;
  auto add = [&](const std::string& name, std::vector<int64_t> dims, float scale, int64_t salt) {
    int64_t n = 1;
    for (auto d : dims) n *= d;
    auto v = values(n, scale, salt);
    if (as_weights) {
      b.weight_values(name, dims, v);
      out.weights.emplace(name, float_tensor(name, dims, v));
      return;
    }
    std::vector<DimSpec> spec(dims.begin(), dims.end());
    b.input(name, spec);
    in.push_back(float_tensor(name, dims, v));
  };
  std::vector<int64_t> x =
      c.layout ? std::vector<int64_t>{c.batch, c.seq, c.input} : std::vector<int64_t>{c.seq, c.batch, c.input};
  add("X", x, 1.f, 1);
  add("W", {dirs, gates * c.hidden, c.input}, 0.5f, 2);
  add("R", {dirs, gates * c.hidden, c.hidden}, 0.5f, 3);
  add("B", {dirs, 2 * gates * c.hidden}, 0.3f, 4);
  std::vector<std::string> inputs{"X", "W", "R", "B"};
  if (c.lens) {
    b.input("L", {c.batch}, ::onnx::TensorProto::INT32);
    exec::HostTensor t{"L", graph::DType::kInt32, {c.batch}, {}};
    std::vector<int32_t> lens;
    for (int64_t i = 0; i < c.batch; ++i) lens.push_back(static_cast<int32_t>(std::max<int64_t>(1, c.seq - 2 * i)));
    t.bytes.resize(lens.size() * 4);
    std::memcpy(t.bytes.data(), lens.data(), t.bytes.size());
    in.push_back(t);
    inputs.push_back("L");
  } else {
    inputs.push_back("");
  }
  std::vector<int64_t> state =
      c.layout ? std::vector<int64_t>{c.batch, dirs, c.hidden} : std::vector<int64_t>{dirs, c.batch, c.hidden};
  if (c.initial) {
    add("H0", state, 0.4f, 5);
    inputs.push_back("H0");
    if (c.op == "LSTM") add("C0", state, 0.4f, 6), inputs.push_back("C0");
  }
  if (c.peephole) {
    if (!c.initial) inputs.push_back(""), inputs.push_back("");
    add("P", {dirs, 3 * c.hidden}, 0.3f, 7);
    inputs.push_back("P");
  }
  std::vector<std::string> outputs{"Y", "Y_h"};
  if (c.op == "LSTM") outputs.push_back("Y_c");
  for (const auto& o : outputs) b.output(o);
  auto& node = b.node(c.op, inputs, outputs, "rec");
  set_int(node, "hidden_size", c.hidden);
  set_string(node, "direction", c.direction);
  if (c.layout) set_int(node, "layout", c.layout);
  if (c.linear_before_reset >= 0) set_int(node, "linear_before_reset", c.linear_before_reset);
  if (c.clip > 0) set_float(node, "clip", c.clip);
  if (!c.activations.empty()) set_strings(node, "activations", c.activations);
  if (!c.alphas.empty()) set_floats(node, "activation_alpha", c.alphas);
  if (!c.betas.empty()) set_floats(node, "activation_beta", c.betas);
  out.path = b.save(std::string(as_weights ? "recurrent_train_" : "recurrent_") + c.op);
  return out;
}

// Layers the ONNX node tests lack: bidirectional, reverse with sequence lengths, both layouts, clip, other activations,
// GRU both ways, initial states, peepholes.
std::vector<Layer> layers_beyond_the_node_tests() {
  return {
      {"LSTM", 5, 3, 4, 6, "bidirectional"},
      {"LSTM", 5, 3, 4, 6, "reverse", 0, true, true, true},
      {"LSTM", 4, 2, 3, 5, "bidirectional", 1, true, true, false, -1, 0.5f},
      {"GRU", 5, 3, 4, 6, "bidirectional", 0, false, true, false, 0},
      {"GRU", 5, 3, 4, 6, "reverse", 0, true, false, false, 1},
      {"GRU", 6, 2, 3, 4, "forward", 1, true, true, false, 0, 0.3f},
      {"RNN", 5, 3, 4, 6, "bidirectional", 0, true, true},
      {"RNN", 5, 3, 4, 6, "forward", 0, false, false, false, -1, 0.f, {"Relu"}},
      {"GRU", 4, 2, 3, 4, "forward", 0, false, false, false, 0, 0.f, {"HardSigmoid", "Softsign"}, {0.3f}, {0.4f}},
      {"LSTM",
       4,
       2,
       3,
       4,
       "forward",
       0,
       false,
       false,
       false,
       -1,
       0.f,
       {"Sigmoid", "LeakyRelu", "ScaledTanh"},
       {1.f, 0.2f, 0.7f},
       {0.f, 0.f, 1.5f}},
  };
}

TEST(CudaRecurrent, TheGpusStepOrderAgreesWithTheCpuExecutor) {
  const auto layers = layers_beyond_the_node_tests();
  auto& cpu = exec::load_engine();
  for (size_t i = 0; i < layers.size(); ++i) {
    auto model = layer_model(layers[i]);
    const auto& path = model.path;
    const auto& inputs = model.inputs;
    analysis::Request request;
    request.model_path = path;
    auto p = exec::prepare_again(exec::prepare(request, "").analysis.model, request, inputs);
    auto want = cpu.run(p.analysis.model, p.inputs, {}).outputs;
    int steps = 0;
    auto got = model_outputs(p.analysis.model, run_on_host(p.analysis.model, p.inputs, &steps));
    ASSERT_EQ(got.size(), want.size()) << "layer " << i;
    for (size_t o = 0; o < got.size(); ++o) {
      Expected e;
      e.dtype = 1;
      e.dims = want[o].dims;
      for (float v : floats(want[o])) e.values.push_back(v);
      EXPECT_EQ(compare_tensor(got[o], e, 1e-4, 1e-5), "") << "layer " << i << " " << layers[i].op << " output " << o;
    }
    // A step per time step and direction; GRU without linear_before_reset finishes each in a second launch.
    int dirs = layers[i].direction == "bidirectional" ? 2 : 1;
    int per_step = layers[i].op == "GRU" && layers[i].linear_before_reset == 0 ? 2 : 1;
    EXPECT_EQ(steps, dirs * layers[i].seq * per_step) << "layer " << i;
  }
}

TEST(CudaRecurrent, LayersThatDoNotFitTogetherAreRefusedInOneLine) {
  auto model = layer_model({"LSTM"});
  const auto& path = model.path;
  analysis::Request request;
  request.model_path = path;
  auto prepared = exec::prepare(request, "");
  const auto& node = prepared.analysis.model.graph.nodes.front();
  auto expect_error = [&](std::vector<std::vector<int64_t>> dims, const std::string& words) {
    try {
      cuda::describe_recurrent(node, cuda::RecurrentCell::kLstm, dims);
      ADD_FAILURE() << "no error for " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  expect_error({{5, 3, 4}, {1, 24, 4}, {1, 24, 5}}, "not 4 gates of 5 units");
  expect_error({{5, 3, 4}, {2, 24, 4}, {2, 24, 6}}, "direction forward with 2 directions");
  expect_error({{5, 3, 4}, {1, 24, 4}, {1, 24, 6}, {1, 47}}, "B is not");
  expect_error({{5, 3}, {1, 24, 4}, {1, 24, 6}}, "3-D");
  // The layer as the GPU runs it: gates, dims and the default activations.
  auto l = cuda::describe_recurrent(node, cuda::RecurrentCell::kLstm, {{5, 3, 4}, {1, 24, 4}, {1, 24, 6}});
  EXPECT_EQ(l.gates, 4);
  EXPECT_EQ(l.seq, 5);
  EXPECT_EQ(l.batch, 3);
  EXPECT_EQ(l.hidden, 6);
  ASSERT_EQ(l.activations.size(), 3u);
  EXPECT_EQ(l.activations[0].op, cuda::RecurrentActivationOp::kSigmoid);
  EXPECT_EQ(l.activations[2].op, cuda::RecurrentActivationOp::kTanh);
}

// The gradients of the CPU executor's training loss (the mean of each output's squares, summed) for the node's
// tensors, by name, as the GPU's backward order computes them here: the forward recorded, dY = 2 Y / n per output,
// then run_recurrent_backward.
std::map<std::string, std::vector<float>> gradients_on_host(const graph::Model& model, const LayerModel& layer,
                                                            int* backward_steps) {
  const auto& g = model.graph;
  const auto& node = g.nodes.front();
  auto name_of = [&](size_t i) {
    return i < node.inputs.size() && node.inputs[i] != graph::kNoValue ? g.value(node.inputs[i]).name : "";
  };
  std::map<std::string, std::vector<float>> weights;
  for (const auto& [name, t] : layer.weights) weights[name] = floats(t);
  const exec::HostTensor* lens = nullptr;
  for (const auto& t : layer.inputs)
    if (t.name == name_of(4)) lens = &t;
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    auto it = layer.weights.find(name_of(i));
    dims.push_back(it != layer.weights.end() ? it->second.dims
                                             : (i == 4 && lens ? lens->dims : std::vector<int64_t>{}));
  }
  auto cell = cell_of(node.op_type);
  auto l = cuda::describe_recurrent(node, cell, dims);
  EXPECT_EQ(cuda::recurrent_backward_refusal(l, false), "");
  auto weight = [&](size_t i) -> const float* {
    auto it = weights.find(name_of(i));
    return it == weights.end() ? nullptr : it->second.data();
  };
  const bool lstm = cell == cuda::RecurrentCell::kLstm, gru = cell == cuda::RecurrentCell::kGru;
  const int64_t state = l.state(), rows = l.seq * l.batch, gh = l.gates * l.hidden;
  cuda::RecurrentBuffers b;
  b.x = weight(0), b.w = weight(1), b.r = weight(2), b.bias = weight(3), b.h0 = weight(5), b.c0 = weight(6);
  b.lens = lens ? reinterpret_cast<const int32_t*>(lens->bytes.data()) : nullptr;
  std::vector<float> y(static_cast<size_t>(l.seq * l.directions * state)), y_h(l.directions * state),
      y_c(l.directions * state), xw(rows * gh), hr(l.batch * gh), h0(state), h1(state), c0(state), c1(state),
      pre(l.directions * rows * gh, std::nanf("")), hidden_n(l.directions * rows * l.hidden, std::nanf("")),
      h_from(l.directions * rows * l.hidden, 0.f), c_from(l.directions * rows * l.hidden, std::nanf(""));
  b.y = y.data(), b.y_h = y_h.data(), b.y_c = lstm ? y_c.data() : nullptr;
  b.xw = xw.data(), b.hr = hr.data();
  b.h[0] = h0.data(), b.h[1] = h1.data(), b.c[0] = c0.data(), b.c[1] = c1.data();
  b.pre = pre.data(), b.h_from = h_from.data();
  b.hidden_n = gru ? hidden_n.data() : nullptr;
  b.c_from = lstm ? c_from.data() : nullptr;
  HostOps ops;
  cuda::run_recurrent(l, b, ops);
  // The loss's gradient: d mean(v^2) / dv = 2 v / n for each output.
  auto loss_grad = [](const std::vector<float>& v) {
    std::vector<float> d(v.size());
    for (size_t i = 0; i < v.size(); ++i) d[i] = 2.f * v[i] / static_cast<float>(v.size());
    return d;
  };
  auto dy = loss_grad(y), dy_h = loss_grad(y_h), dy_c = loss_grad(y_c);
  std::map<std::string, std::vector<float>> grads;
  auto& dx = grads["X"];
  auto& dw = grads["W"];
  auto& dr = grads["R"];
  auto& db = grads["B"];
  dx.assign(weights.at("X").size(), std::nanf(""));
  dw.assign(weights.at("W").size(), std::nanf(""));
  dr.assign(weights.at("R").size(), std::nanf(""));
  db.assign(weights.at("B").size(), std::nanf(""));
  cuda::RecurrentGradBuffers gb;
  gb.x = weight(0), gb.w = weight(1), gb.r = weight(2);
  gb.pre = b.pre, gb.hidden_n = b.hidden_n, gb.h_from = b.h_from, gb.c_from = b.c_from, gb.lens = b.lens;
  gb.dy = dy.data(), gb.dy_h = dy_h.data(), gb.dy_c = lstm ? dy_c.data() : nullptr;
  gb.dx = dx.data(), gb.dw = dw.data(), gb.dr = dr.data(), gb.db = db.data();
  if (weights.count("H0")) {
    grads["H0"].assign(weights.at("H0").size(), std::nanf(""));
    gb.dh0 = grads["H0"].data();
  }
  if (weights.count("C0")) {
    grads["C0"].assign(weights.at("C0").size(), std::nanf(""));
    gb.dc0 = grads["C0"].data();
  }
  std::vector<float> dgx(rows * gh), dgh(rows * gh), dgh_step(l.batch * gh), dh0(state), dh1(state), dc0(state),
      dc1(state), ones(rows, 1.f);
  gb.dgx_rows = dgx.data();
  gb.dgh_rows = gru ? dgh.data() : dgx.data();
  gb.dgh_step = dgh_step.data();
  gb.dh[0] = dh0.data(), gb.dh[1] = dh1.data(), gb.dc[0] = dc0.data(), gb.dc[1] = dc1.data();
  gb.ones = ones.data();
  cuda::run_recurrent_backward(l, gb, ops);
  if (backward_steps) *backward_steps = ops.backward_steps;
  return grads;
}

TEST(CudaRecurrent, TheGpusBackwardOrderGivesTheCpuExecutorsGradients) {
  // The forward test's layers, less what the backward refuses: LSTM peepholes go, GRU takes linear_before_reset 1.
  std::vector<Layer> layers;
  for (auto l : layers_beyond_the_node_tests()) {
    l.peephole = false;
    if (l.op == "GRU") l.linear_before_reset = 1;
    layers.push_back(l);
  }
  auto& cpu = exec::load_engine();
  exec::TrainingOptions training;
  training.enabled = true;
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE("layer " + std::to_string(i) + " " + layers[i].op + " " + layers[i].direction);
    auto layer = layer_model(layers[i], true);
    analysis::Request request;
    request.model_path = layer.path;
    request.max_typed_elements = int64_t{1} << 40;  // the executor needs every weight
    auto p = exec::prepare_again(exec::prepare(request, "").analysis.model, request, layer.inputs);
    auto step = cpu.train_step(p.analysis.model, p.inputs, {}, training);
    int backward_steps = 0;
    auto got = gradients_on_host(p.analysis.model, layer, &backward_steps);
    EXPECT_EQ(backward_steps, (layers[i].direction == "bidirectional" ? 2 : 1) * layers[i].seq);
    size_t compared = 0;
    for (const auto& want : step.gradients) {
      auto it = got.find(want.name);
      ASSERT_NE(it, got.end()) << "no host gradient for " << want.name;
      auto reference = floats(want);
      ASSERT_EQ(it->second.size(), reference.size()) << want.name;
      double scale = 1e-12;
      for (float v : reference) scale = std::max(scale, static_cast<double>(std::fabs(v)));
      for (size_t k = 0; k < reference.size(); ++k)
        ASSERT_NEAR(it->second[k], reference[k], 1e-3 * scale) << want.name << "[" << k << "]";
      ++compared;
    }
    // X, W, R and B, and the initial states where the layer has them.
    EXPECT_EQ(compared, got.size());
    EXPECT_EQ(compared, layers[i].initial ? (layers[i].op == "LSTM" ? 6u : 5u) : 4u);
  }
}

TEST(CudaRecurrent, WhatTheBackwardCannotDifferentiateIsNamed) {
  auto describe = [](const Layer& c) {
    auto model = layer_model(c);
    analysis::Request request;
    request.model_path = model.path;
    auto p = exec::prepare(request, "");
    const auto& g = p.analysis.model.graph;
    const auto& node = g.nodes.front();
    std::vector<std::vector<int64_t>> dims;
    for (auto v : node.inputs) {
      dims.emplace_back();
      for (const auto& t : model.inputs)
        if (v != graph::kNoValue && t.name == g.value(v).name) dims.back() = t.dims;
    }
    return cuda::describe_recurrent(node, cell_of(c.op), dims);
  };
  EXPECT_EQ(
      cuda::recurrent_backward_refusal(describe({"GRU", 5, 3, 4, 6, "forward", 0, false, false, false, 0}), false),
      "the GPU training step differentiates GRU with linear_before_reset = 1 only (as PyTorch's GRU exports)");
  EXPECT_EQ(cuda::recurrent_backward_refusal(describe({"LSTM"}), true),
            "the GPU training step does not differentiate an LSTM's peepholes (input P)");
  EXPECT_EQ(cuda::recurrent_backward_refusal(describe({"LSTM"}), false), "");
  // The training step asks each planned node's row before the first step, from the graph's attributes and dims.
  auto row_refusal = [](const Layer& c) {
    analysis::Request request;
    request.model_path = layer_model(c).path;
    auto p = exec::prepare(request, "");
    const auto& g = p.analysis.model.graph;
    const auto* row = cuda::BackwardRegistry::instance().find(c.op);
    EXPECT_NE(row, nullptr);
    return row && row->refusal ? row->refusal(g, g.nodes.front()) : std::string("no refusal");
  };
  EXPECT_EQ(row_refusal({"GRU", 5, 3, 4, 6, "forward", 0, false, false, false, 0}),
            "the GPU training step differentiates GRU with linear_before_reset = 1 only (as PyTorch's GRU exports)");
  EXPECT_EQ(row_refusal({"LSTM", 5, 3, 4, 6, "forward", 0, false, false, true}),
            "the GPU training step does not differentiate an LSTM's peepholes (input P)");
  EXPECT_EQ(row_refusal({"RNN", 5, 3, 4, 6, "bidirectional", 1, true, true}), "");
}

}  // namespace
}  // namespace ridge::test
