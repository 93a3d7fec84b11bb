#include "exec/exec_request.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "exec/backends.h"
#include "util/error.h"

namespace ridge::exec {

ExecOptions exec_options(const ExecRequest& o) {
  ExecOptions e;
  e.device = parse_backend(o.device);
  e.threads = o.threads;
  e.gpu = o.gpu;
  e.precision = parse_precision(o.precision);
  e.memory_format = parse_memory_format(o.memory_format);
  e.mode = parse_mode(o.mode);
  check_device_options(e.device, e.precision, o.conv_algo, e.mode);
  const auto& row = backend_row(e.device);
  if (o.threads > 0 && !row.threads)
    throw Error(
        fmt::format("--threads sets the CPU executor's threads: it has no meaning with --device {}", name(e.device)));
  if (e.memory_format != MemoryFormat::kNchw && !row.channels_last)
    throw Error(fmt::format("--memory-format {}: {} runs NCHW only", name(e.memory_format), row.executor));
  if (o.gpu != 0 && !row.picks_gpu) {
    std::vector<std::string> gpus;  // the devices where --gpu means something, named in the refusal
    for (const auto& r : backends())
      if (r.picks_gpu) gpus.emplace_back(name(r.backend));
    throw Error(fmt::format("--gpu picks a GPU: it needs --device {}", fmt::join(gpus, " or ")));
  }
  row.set_conv_algo(e, o.conv_algo);
  e.seed = o.seed;
  return e;
}

}  // namespace ridge::exec
