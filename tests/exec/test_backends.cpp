// The backends as rows (exec/backends.h): every --device name has one, and the options each row says it cannot
// honour are refused in one line by exec_options, naming the device that can; what it can honour lands in the
// row's own fields (a cuDNN algorithm in cudnn_conv_algo, the CPU's in conv_algo).
#include <gtest/gtest.h>

#include <set>

#include "exec/backends.h"
#include "exec/exec_request.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

TEST(Backends, EveryDeviceNameHasOneRowAndParsesBack) {
  std::set<std::string> names;
  for (const auto& row : exec::backends()) {
    auto device = std::string(exec::name(row.backend));
    EXPECT_TRUE(names.insert(device).second) << device;
    EXPECT_EQ(exec::parse_backend(device), row.backend);
    EXPECT_EQ(&exec::backend_row(row.backend), &row);
    EXPECT_FALSE(row.modes.empty()) << device;
    EXPECT_EQ(row.modes.front(), exec::Mode::kEager) << device;  // the default mode runs everywhere
    EXPECT_FALSE(row.conv_algorithms().empty()) << device;
    EXPECT_NE(row.load, nullptr) << device;
  }
  EXPECT_EQ(names, (std::set<std::string>{"cpu", "cuda"}));
}

TEST(Backends, WhatARowCannotHonourIsRefusedNamingTheDeviceThatCan) {
  auto refused = [](exec::ExecRequest r) { return error_text([&] { (void)exec::exec_options(r); }); };
  exec::ExecRequest cpu;
  EXPECT_EQ(refused(cpu), "accepted");
  auto cpu_nhwc = cpu;  // the CPU runs channels-last (ATen propagates it)
  cpu_nhwc.memory_format = "channels-last";
  EXPECT_EQ(refused(cpu_nhwc), "accepted");
  auto cpu_threads = cpu;
  cpu_threads.threads = 2;
  EXPECT_EQ(refused(cpu_threads), "accepted");
  auto tf32 = cpu;
  tf32.precision = "tf32";
  EXPECT_EQ(refused(tf32), "--precision tf32: the CPU executor runs fp32 and bf16; tf32 is for --device cuda");
  auto gpu_index = cpu;
  gpu_index.gpu = 1;
  EXPECT_EQ(refused(gpu_index), "--gpu picks a GPU: it needs --device cuda");
  auto graph = cpu;
  graph.mode = "cuda-graph";
  EXPECT_EQ(refused(graph), "--mode cuda-graph is not a mode of --device cpu (eager, optimized)");
  EXPECT_EQ(exec::both_mode_names(exec::Backend::kCpu), (std::vector<std::string>{"eager", "optimized"}));

  exec::ExecRequest cuda;
  cuda.device = "cuda";
  EXPECT_EQ(refused(cuda), "accepted");
  auto threads = cuda;
  threads.threads = 2;
  EXPECT_EQ(refused(threads), "--threads sets the CPU executor's threads: it has no meaning with --device cuda");
  auto nhwc = cuda;  // channels-last inference (exec/cuda/storage_plan.h) and training (exec/cuda/backward_layout.h)
  nhwc.memory_format = "channels-last";
  EXPECT_EQ(refused(nhwc), "accepted");
  auto optimized = cuda;
  optimized.mode = "optimized";
  EXPECT_EQ(refused(optimized), "accepted");  // the GPU's optimized mode (exec/optimized_graph.h)
  auto winograd_tiled = cpu;
  winograd_tiled.conv_algo = "fft-tiling";
  EXPECT_NE(refused(winograd_tiled).find("--conv-algo fft-tiling is not an algorithm of --device cpu"),
            std::string::npos);
}

TEST(Backends, AnAlgorithmLandsInItsRowsField) {
  exec::ExecRequest cpu;
  cpu.conv_algo = "winograd";
  auto on_cpu = exec::exec_options(cpu);
  EXPECT_EQ(on_cpu.conv_algo, exec::ConvAlgo::kWinograd);
  EXPECT_EQ(on_cpu.cudnn_conv_algo, exec::CudnnConvAlgo::kHeuristic);  // untouched
  exec::ExecRequest cuda;
  cuda.device = "cuda";
  cuda.conv_algo = "winograd";
  auto on_gpu = exec::exec_options(cuda);
  EXPECT_EQ(on_gpu.cudnn_conv_algo, exec::CudnnConvAlgo::kWinograd);
  EXPECT_EQ(on_gpu.conv_algo, exec::ConvAlgo::kAuto);  // untouched
  cuda.conv_algo = "auto";                             // cuDNN's auto is its heuristic
  EXPECT_EQ(exec::exec_options(cuda).cudnn_conv_algo, exec::CudnnConvAlgo::kHeuristic);
}

}  // namespace
}  // namespace ridge::test
