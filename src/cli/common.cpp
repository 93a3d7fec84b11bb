#include "cli/common.h"

#include <fmt/format.h>

#include <charconv>

namespace ridge::cli {

CLI::Validator integer_in(int64_t min, int64_t max) {
  std::string description = fmt::format("INT in [{}, {}]", min, max);
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || ptr != text.data() + text.size())
          return fmt::format("'{}' is not a whole number", text);
        if (v < min || v > max)
          return max >= (int64_t{1} << 40) ? fmt::format("{} must be at least {}", v, min)
                                           : fmt::format("{} is not between {} and {}", v, min, max);
        return {};
      },
      description);
}

void add_model_options(CLI::App& command, ModelOptions& o, bool with_training, bool for_execution) {
  command.add_option("model", o.model, "ONNX model file")->required();
  command
      .add_option("-b,--batch", o.batch, "bind the first dim of every input whose first dim is symbolic (default 1)")
      ->check(integer_in(1, int64_t{1} << 40));
  command.add_option("--dim", o.dims, "bind a named dim: NAME=V (repeatable), e.g. --dim seq=128");
  command.add_option("--input", o.inputs, "set an input's whole shape: NAME=1x3x512x512 (repeatable)");
  if (for_execution) return;
  command.add_option("--dtype", o.dtype, "cost floating activations in this dtype: fp32, fp16, bf16, int8");
  command.add_option("--weight-dtype", o.weight_dtype, "cost floating weights in this dtype: fp32, fp16, bf16, int8");
  if (with_training) {
    auto* training =
        command.add_flag("--training", o.training, "also cost a training step: forward, backward, optimizer update");
    command.add_option("--optimizer", o.optimizer, "optimizer of the training step: sgd (default), momentum, adam")
        ->check(CLI::IsMember({"sgd", "momentum", "adam"}))
        ->needs(training);
  }
  command.add_flag("--strict", o.strict, "fail when an op has no cost rule or a shape stays unresolved");
}

}  // namespace ridge::cli
