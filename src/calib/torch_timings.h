#pragma once
// PyTorch's own whole-model timings as calibration evidence, so a calibration can predict the framework a user
// deploys rather than ridge's executor. The file is JSON Lines, one timed configuration per line, as
// bench/torch_gpu_peer.py writes it (the PyTorch side of bench/gpu_speed.sh):
//   {"model": "resnet50", "batch": 32, "config": "fp32-cuda-graph", "median_ms": 11.29, "torch": "2.11.0+cu130",
//    "input_size": "32x3x224x224"}
// model: an ONNX file of the same network (a path, or a name found as NAME.onnx or models/NAME.onnx beside the
// file, above it or in the working directory); config: PRECISION[-cudnn-benchmark][-cuda-graph] with PRECISION
// fp32, tf32, fp16 or bf16; median_ms the median latency; input_size (optional) the first input's shape or the
// swept size, as `ridge bench` records it. Lines with an "error" field (a configuration that failed) are named
// in notes. There is no per-node profile: each run is evidence as a whole (calib/gpu_model.h).
#include <istream>
#include <string>
#include <vector>

#include "exec/bench_csv.h"

namespace ridge::calib {

// The runs of one file, each with framework "pytorch", environment.device "cuda", environment.torch_version the
// line's "torch", threads 0, conv_algo "heuristic" or "benchmark"; `notes` receives the lines not read as runs
// and why. Throws ridge::Error naming the file and line on a line that is not a JSON object of the fields above.
std::vector<exec::LoadedRun> read_torch_timings(const std::string& path, std::vector<std::string>& notes);
// The same from a stream; `path` names it in messages and locates its models.
std::vector<exec::LoadedRun> read_torch_timings(std::istream& in, const std::string& path,
                                                std::vector<std::string>& notes);

// Whether `path` names such a file (by its .jsonl extension).
bool is_torch_timings(const std::string& path);

}  // namespace ridge::calib
