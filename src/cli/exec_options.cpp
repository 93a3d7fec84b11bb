#include "cli/exec_options.h"

#include "cli/common.h"

namespace ridge::cli {

void add_exec_options(CLI::App& command, exec::ExecRequest& o, const std::vector<std::string>& modes,
                      const std::vector<std::string>& algorithms) {
  command.add_option("--inputs", o.inputs_dir,
                     "run on these inputs: a directory of input_0.pb, input_1.pb, ... (ONNX test-data layout); "
                     "their shapes bind the model's open dims. Default: generated from the bound shapes");
  command
      .add_option(
          "--device", o.device,
          "cpu (default: ATen kernels) or cuda (the GPU module: cuDNN convolutions, cuBLAS products, CUDA-event "
          "timing; built where the CUDA toolkit is found, see `ridge doctor --for bench-cuda`)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  command
      .add_option("--gpu", o.gpu,
                  "with --device cuda: the GPU's index (default 0, in the CUDA runtime's order; "
                  "CUDA_DEVICE_ORDER=PCI_BUS_ID matches nvidia-smi's)")
      ->check(integer_in(0, 1023));
  command
      .add_option("--threads", o.threads,
                  "intra-op threads (default: ATen's: one per logical CPU the process may use, or OMP_NUM_THREADS)")
      ->check(integer_in(1, 1024));
  command
      .add_option("--precision", o.precision,
                  "fp32 (default) or bf16 (autocast: convolutions and matmuls in bf16); with --device cuda also tf32 "
                  "(tensor cores on fp32 tensors) and fp16 (autocast)")
      ->check(CLI::IsMember(exec::precision_names()));
  command.add_option("--memory-format", o.memory_format, "nchw (default) or channels-last for 4-D activations")
      ->check(CLI::IsMember(exec::memory_format_names()));
  command
      .add_option("--mode", o.mode,
                  "eager (default): node by node as exported; optimized: constants and shape subgraphs folded, "
                  "BatchNorm folded into convolutions, bias and residual Adds and activations (ReLU, clip, SiLU, "
                  "HardSwish, GELU) fused into the convolution or fully connected layer before them, no-ops removed, "
                  "weights packed once; cuda-graph (--device cuda): the eager run captured into a CUDA graph and "
                  "replayed" +
                      std::string(modes.size() > 3 ? "; both: measure the device's two" : ""))
      ->check(CLI::IsMember(modes));
  std::string algos;
  for (const auto& a : algorithms) algos += (algos.empty() ? "" : "|") + a;
  command
      .add_option("--conv-algo", o.conv_algo,
                  "convolution algorithm: " + algos +
                      ". On the CPU: auto, direct (oneDNN), gemm (im2col + GEMM), fft, winograd (F(2x2,3x3) where "
                      "the kernel is 3x3, stride 1); layers an algorithm cannot run use auto. With --device cuda, "
                      "cuDNN's: implicit-gemm, implicit-precomp-gemm, gemm, direct, fft, fft-tiling, winograd, "
                      "winograd-nonfused, heuristic (= auto: cuDNN's graph API, each layer's plan built once), "
                      "legacy-heuristic (cudnnConvolutionForward) or benchmark; a layer an algorithm does not "
                      "support is named and run with the legacy heuristic's choice. `ridge bench --list-algorithms` "
                      "describes each")
      ->check(CLI::IsMember(algorithms));
  command.add_option("--seed", o.seed, "seed of random weights and generated inputs (default 0)");
}

}  // namespace ridge::cli
