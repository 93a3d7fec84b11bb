#include "cli/exec_options.h"

#include "cli/common.h"

namespace ridge::cli {

void add_exec_options(CLI::App& command, ExecCliOptions& o, const std::vector<std::string>& modes,
                      const std::vector<std::string>& algorithms) {
  command.add_option("--inputs", o.inputs_dir,
                     "run on these inputs: a directory of input_0.pb, input_1.pb, ... (ONNX test-data layout); "
                     "their shapes bind the model's open dims. Default: generated from the bound shapes");
  command.add_option("--device", o.device, "cpu (default) or cuda (needs a libtorch with CUDA; Debian's has none)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  command
      .add_option("--threads", o.threads,
                  "intra-op threads (default: ATen's: one per logical CPU the process may use, or OMP_NUM_THREADS)")
      ->check(integer_in(1, 1024));
  command.add_option("--precision", o.precision, "fp32 (default) or bf16 (autocast: convolutions and matmuls in bf16)")
      ->check(CLI::IsMember(exec::precision_names()));
  command.add_option("--memory-format", o.memory_format, "nchw (default) or channels-last for 4-D activations")
      ->check(CLI::IsMember(exec::memory_format_names()));
  command
      .add_option("--mode", o.mode,
                  "eager (default): node by node as exported; optimized: constants and shape subgraphs folded, "
                  "BatchNorm folded into convolutions, bias and residual Adds and activations (ReLU, clip, SiLU, "
                  "HardSwish, GELU) fused into the convolution or fully connected layer before them, no-ops removed, "
                  "weights packed once" +
                      std::string(modes.size() > 2 ? "; both: measure the two" : ""))
      ->check(CLI::IsMember(modes));
  std::string algos;
  for (const auto& a : algorithms) algos += (algos.empty() ? "" : "|") + a;
  command
      .add_option("--conv-algo", o.conv_algo,
                  "convolution algorithm on the CPU: " + algos +
                      " (direct: oneDNN; gemm: im2col + GEMM; fft; winograd: F(2x2,3x3) where the kernel is 3x3, "
                      "stride 1; layers an algorithm cannot run use auto)")
      ->check(CLI::IsMember(algorithms));
  command.add_option("--seed", o.seed, "seed of random weights and generated inputs (default 0)");
}

exec::ExecOptions to_exec_options(const ExecCliOptions& o) {
  exec::ExecOptions e;
  e.device = exec::parse_device(o.device);
  e.threads = o.threads;
  e.precision = exec::parse_precision(o.precision);
  e.memory_format = exec::parse_memory_format(o.memory_format);
  e.mode = exec::parse_mode(o.mode);
  e.conv_algo = exec::parse_conv_algo(o.conv_algo);
  e.seed = o.seed;
  return e;
}

}  // namespace ridge::cli
