// The GPU module's entry point: ridge loads this library with dlopen and asks for the engine.
#include <fmt/format.h>

#include <memory>

#include "exec/cuda/bench.h"
#include "exec/cuda/interpreter.h"
#include "exec/cuda/training.h"
#include "exec/engine.h"
#include "sys/cuda/check.h"
#include "sys/host_cpu.h"
#include "util/build_info.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

HostTensor to_host(const GpuTensor& t, std::string name, cudaStream_t stream) {
  HostTensor h{std::move(name), t.dtype, t.dims, std::vector<uint8_t>(t.bytes())};
  if (!h.bytes.empty())
    check(cudaMemcpyAsync(h.bytes.data(), t.data(), h.bytes.size(), cudaMemcpyDeviceToHost, stream),
          "copying '" + h.name + "' from the GPU");
  return h;
}

class CudaEngine : public Engine {
 public:
  std::vector<std::string> op_types() const override {
    auto types = KernelRegistry::instance().op_types();
    return {types.begin(), types.end()};
  }

  Environment environment(const ExecOptions& options) const override {
    Environment env;
    env.cpu_model = sys::detect_host_cpu().model;
    env.ridge_version = kVersion;
    env.ridge_revision = kRevision;
    auto& gpu = device(options.gpu);
    env.device = fmt::format("cuda:{} {}", gpu.index(), gpu.description());
    env.backend_info = gpu.libraries();
    return env;
  }

  RunOutput run(const graph::Model& model, const std::vector<HostTensor>& inputs, const ExecOptions& options) override {
    check_options(options, false);
    auto& gpu = device(options.gpu);
    Interpreter interp(model, gpu, options);
    interp.set_inputs(inputs);
    RunOutput out;
    out.outputs = interp.download(interp.run());
    out.random_weights = interp.random_weights();
    if (out.random_weights)
      out.notes.push_back("random weights: the model file holds no weight values (outputs are not meaningful)");
    out.notes.push_back(fmt::format("ran on {}", gpu.description()));
    if (!interp.optimization().empty()) out.notes.push_back(interp.optimization());
    if (!interp.inlining().empty()) out.notes.push_back(interp.inlining());
    if (auto line = interp.storage().summary(); !line.empty()) out.notes.push_back(line);
    if (auto line = interp.storage().layout_summary(); !line.empty()) out.notes.push_back(line);
    for (size_t n = 0; n < interp.algorithms().size(); ++n)
      if (!interp.algorithms()[n].note.empty())
        out.notes.push_back(fmt::format("{}: {}", interp.graph().nodes[n].name, interp.algorithms()[n].note));
    return out;
  }

  TrainingStepCheck train_step(const graph::Model& model, const std::vector<HostTensor>& inputs,
                               const ExecOptions& options, const TrainingOptions& training) override {
    check_options(options, true);
    auto& gpu = device(options.gpu);
    Interpreter interp(model, gpu, options);
    interp.set_inputs(inputs);
    TrainingStep step(interp, gpu, training);
    TrainingStep::Trace trace;
    TrainingStepCheck out;
    out.loss = step.run(&trace);
    const auto& g = interp.graph();
    auto stream = gpu.stream();
    for (const auto& [id, t] : trace.gradients) out.gradients.push_back(to_host(t, g.value(id).name, stream));
    for (const auto& [id, t] : trace.before) out.before.push_back(to_host(t, g.value(id).name, stream));
    for (const auto& [id, t] : trace.after) out.after.push_back(to_host(t, g.value(id).name, stream));
    check(cudaStreamSynchronize(stream), "copying the training step's tensors from the GPU");
    return out;
  }

  BenchResult bench(const graph::Model& model, const std::vector<HostTensor>& inputs,
                    const BenchOptions& options) override {
    auto& gpu = device(options.exec.gpu);
    // Released however the point ends: a sweep's next point on the same device reads its memory figures afresh.
    struct Release {
      Gpu& gpu;
      ~Release() {
        try {
          gpu.release_workspace();
          gpu.allocator().release_cached();
        } catch (...) {  // a failing device: the point's own error is the one to report
        }
      }
    } release{gpu};
    auto result = bench_model(gpu, model, inputs, options);
    result.environment = environment(options.exec);
    return result;
  }

 private:
  // One context per process: creating cuDNN and cuBLAS handles costs a second or more.
  Gpu& device(int index) const {
    if (!gpu_ || gpu_->index() != index) {
      gpu_.reset();
      gpu_ = std::make_unique<Gpu>(index);
    }
    check(cudaSetDevice(index), "cudaSetDevice");  // another module (the GPU roofline) may have moved it
    return *gpu_;
  }
  mutable std::unique_ptr<Gpu> gpu_;
};

}  // namespace

}  // namespace ridge::exec::cuda

extern "C" ridge::exec::Engine* ridge_cuda_engine() {
  // Never destroyed: at exit the CUDA runtime may already be torn down, and freeing its handles then
  // crashes; the driver reclaims everything with the process.
  static auto* engine = new ridge::exec::cuda::CudaEngine;
  return engine;
}
