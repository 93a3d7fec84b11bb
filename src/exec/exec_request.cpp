#include "exec/exec_request.h"

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
  if (e.device == Backend::kCuda) {
    e.cudnn_conv_algo = parse_cudnn_conv_algo(o.conv_algo);
    if (o.threads > 0) throw Error("--threads sets the CPU executor's threads: it has no meaning with --device cuda");
    if (e.memory_format != MemoryFormat::kNchw)
      throw Error("--memory-format channels-last: the GPU executor runs NCHW only");
  } else {
    if (o.gpu != 0) throw Error("--gpu picks a GPU: it needs --device cuda");
    e.conv_algo = parse_conv_algo(o.conv_algo);
  }
  e.seed = o.seed;
  return e;
}

}  // namespace ridge::exec
