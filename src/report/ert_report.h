#pragma once
// `ridge ert` results as a document: FMA peaks per thread count, bandwidth per level, the ERT sweep,
// the GEMM rate; `-f csv` (and `ridge ert --csv FILE`) is every measured point.
#include "hw/ert/ert.h"
#include "report/document.h"

namespace ridge::report {

Document ert_document(const hw::ert::ErtResult& r);
// Every measured point: kind, kernel, threads, bytes_per_thread, level, intensity, min, median, max.
Table ert_points_table(const hw::ert::ErtResult& r);

}  // namespace ridge::report
