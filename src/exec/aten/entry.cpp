// The module's entry point: ridge loads this library with dlopen and asks for the engine.
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <fmt/format.h>
#include <malloc.h>
#include <torch/version.h>

#include <limits>
#include <thread>

#include "exec/aten/benchmarking/bench.h"
#include "exec/aten/block_cache.h"
#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/passes/optimize.h"
#include "exec/aten/tensors.h"
#include "exec/aten/training.h"
#include "exec/engine.h"
#include "sys/host_cpu.h"
#include "util/build_info.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

// The inputs given, or (none given) generated from the model's input shapes; checked against the model.
std::vector<at::Tensor> input_tensors(Interpreter& interp, const std::vector<HostTensor>& inputs) {
  std::vector<at::Tensor> tensors;
  for (const auto& host : inputs) tensors.push_back(from_host(host));
  if (tensors.empty()) tensors = interp.generate_inputs();
  interp.check_inputs(tensors);
  return tensors;
}

class AtenEngine : public Engine {
 public:
  std::vector<std::string> op_types() const override {
    auto types = KernelRegistry::instance().op_types();
    return {types.begin(), types.end()};
  }

  Environment environment(const ExecOptions& options) const override {
    Environment env;
    auto cpu = sys::detect_host_cpu();
    env.cpu_model = cpu.model;
    env.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
    if (options.threads > 0) at::set_num_threads(options.threads);
    env.threads = at::get_num_threads();
    env.device = "cpu";
    env.torch_version = TORCH_VERSION;
    // One line: the parallel backend and the libraries ATen was built with.
    std::string backend = at::get_parallel_info();
    auto first = backend.find("ATen parallel backend:");
    const char* bind = std::getenv("OMP_PROC_BIND");
    const char* blas = std::getenv("OPENBLAS_NUM_THREADS");
    env.backend_info =
        fmt::format("oneDNN {}, {}, OMP_PROC_BIND={}, OPENBLAS_NUM_THREADS={}", at::hasMKLDNN() ? "yes" : "no",
                    first == std::string::npos ? "" : backend.substr(first, backend.find('\n', first) - first),
                    bind ? bind : "unset", blas ? blas : "unset");
    env.ridge_version = kVersion;
    env.ridge_revision = kRevision;
    return env;
  }

  RunOutput run(const graph::Model& model, const std::vector<HostTensor>& inputs, const ExecOptions& options) override {
    ExecutionScope scope(options);
    Interpreter interp(model, options);
    RunOutput out;
    if (options.mode == Mode::kOptimized) out.notes.push_back(optimize(interp).summary());
    auto tensors = input_tensors(interp, inputs);
    apply_memory_format(interp, tensors);
    at::NoGradGuard no_grad;
    auto results = interp.run(tensors);
    const auto& g = interp.graph();
    for (size_t i = 0; i < results.size(); ++i)
      out.outputs.push_back(
          to_host(results[i].to(results[i].scalar_type() == at::kBFloat16 ? at::kFloat : results[i].scalar_type()),
                  g.value(g.outputs[i]).name));
    out.random_weights = interp.random_weights();
    for (const auto& note : interp.notes()) out.notes.push_back(note);
    return out;
  }

  TrainingStepCheck train_step(const graph::Model& model, const std::vector<HostTensor>& inputs,
                               const ExecOptions& options, const TrainingOptions& training) override {
    if (options.mode != Mode::kEager) throw Error("a training step runs eager");
    ExecutionScope scope(options);
    Interpreter interp(model, options);
    auto tensors = input_tensors(interp, inputs);
    TrainingStep step(interp, training);
    TrainingStep::Trace trace;
    TrainingStepCheck out;
    out.loss = step.run(tensors, &trace);
    const auto& g = interp.graph();
    auto host = [&](const auto& tensors, std::vector<HostTensor>& into) {
      for (const auto& [id, t] : tensors) into.push_back(to_host(t, g.value(id).name));
    };
    host(trace.gradients, out.gradients);
    host(trace.before, out.before);
    host(trace.after, out.after);
    return out;
  }

 private:
  // The buffers kept for the next run of a point (below) go back to the OS once the point is done.
  static void release_kept_memory() {
    LargeBlockCache::install().release_free_blocks();
    malloc_trim(0);
  }

  BenchResult bench(const graph::Model& model, const std::vector<HostTensor>& inputs,
                    const BenchOptions& options) override {
    std::vector<at::Tensor> tensors;
    for (const auto& host : inputs) tensors.push_back(from_host(host));
    auto result = bench_model(model, tensors, options);
    result.environment = environment(options.exec);
    release_kept_memory();
    return result;
  }
};

}  // namespace

}  // namespace ridge::exec::aten

extern "C" ridge::exec::Engine* ridge_exec_engine() {
  // Every run frees its activations and allocates them again. With glibc's defaults the large
  // ones are mmap'ed and returned to the OS (munmap, heap trimming) each time, and the next run
  // page-faults them back in: MobileNetV2 at batch 8 measured 225 ms that way and 79 ms with
  // them kept in the heap, as an arena allocator (ONNX Runtime's) keeps them. Blocks above the
  // largest mmap threshold glibc accepts are kept by LargeBlockCache.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  ridge::exec::aten::LargeBlockCache::install();
  static ridge::exec::aten::AtenEngine engine;
  return &engine;
}
