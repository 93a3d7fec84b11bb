#pragma once
// `ridge ert --device cuda` results as a document: the GPU, FMA peaks per precision, tensor-core
// peaks (cuBLASLt), bandwidth per level and kernel, launch overhead; each measured figure beside its
// theoretical one (flagged above 102% of it). `-f csv` is every measured point.
#include "hw/ert/gpu_ert.h"
#include "report/document.h"

namespace ridge::report {

Document gpu_ert_document(const hw::ert::GpuErtResult& r);
// Every measured point: kind (fma, tensor, bandwidth), name, level, bytes, n, unit, min, median,
// max, theoretical, flag.
Table gpu_ert_points_table(const hw::ert::GpuErtResult& r);

}  // namespace ridge::report
