// A `ridge ert` measurement as the command keeps it (report/ert_run): the points' CSV, the document, the typed result
// and the stored parameters, on hand-built results.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "report/ert_run.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

hw::ert::ErtResult cpu_result() {
  hw::ert::ErtResult r;
  r.cpu.model = "Test CPU";
  r.cpu.cores = 2;
  r.isa = "avx2";
  r.fma = hw::ert::derive_fma_width(1.97, 0);
  r.threads = 2;
  hw::ert::PeakPoint p;
  p.threads = 2;
  p.clock_mhz = 3000;
  p.fp32 = sys::summarize({1e11, 1.2e11});
  p.fp64 = sys::summarize({6e10});
  p.theoretical_fp32 = 1.5e11;
  p.theoretical_fp64 = 7.5e10;
  r.peaks.push_back(p);
  r.level_bandwidth = {{"l1", 1e12}, {"dram", 5e10}};
  r.gemm_fp32 = sys::summarize({1e11});
  r.gemm_n = 1024;
  return r;
}

TEST(ErtRun, ACpuRunWritesItsPointsAndIsKeptAsTheHost) {
  auto csv_path = temp_dir() + "/ert-run.csv";
  auto run = report::ert_run(cpu_result(), csv_path);
  auto csv = slurp(csv_path);
  // The header, then fp32 and fp64 of the one peak point.
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "kind,kernel,threads,bytes_per_thread,level,intensity,min,median,max");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_NE(csv.find("\nfma,fp32,2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nfma,fp64,2,"), std::string::npos) << csv;
  EXPECT_EQ(run.document.command, "ert");
  EXPECT_EQ(run.value.kind, "ert");
  ASSERT_TRUE(run.value.ert);
  EXPECT_EQ(std::get<hw::ert::ErtResult>(*run.value.ert).cpu.model, "Test CPU");
  EXPECT_EQ(run.params.device, "host");
  EXPECT_EQ(run.params.threads, 2);
  auto bad = temp_dir() + "/no/such/dir/p.csv";
  EXPECT_EQ(error_text([&] { report::ert_run(cpu_result(), bad); }),
            "cannot write '" + bad + "': No such file or directory");
}

TEST(ErtRun, AGpuRunIsKeptByTheGpusName) {
  hw::ert::GpuErtResult result;
  result.gpu.name = "NVIDIA Test GPU";
  auto run = report::ert_run(result, "");
  EXPECT_EQ(run.document.command, "ert");
  EXPECT_EQ(run.params.device, "cuda:NVIDIA Test GPU");
  EXPECT_FALSE(run.params.threads);
  EXPECT_EQ(run.value.kind, "ert");
  ASSERT_TRUE(run.value.ert);
  EXPECT_TRUE(std::holds_alternative<hw::ert::GpuErtResult>(*run.value.ert));
}

}  // namespace
}  // namespace ridge::test
