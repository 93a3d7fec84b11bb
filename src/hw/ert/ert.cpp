#include "hw/ert/ert.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <thread>

#include "hw/ert/gemm.h"
#include "hw/ert/kernels.h"
#include "util/error.h"

namespace ridge::hw::ert {
namespace {

using Clock = std::chrono::steady_clock;

// Values passed through volatile so the compiler cannot see a = -1, b = 0 and fold the FMAs.
volatile float g_a32 = -1.0f, g_b32 = 0.0f;
volatile double g_a64 = -1.0, g_b64 = 0.0;

Stats stats_of(std::vector<double> rates) {
  std::sort(rates.begin(), rates.end());
  Stats s;
  s.samples = static_cast<int>(rates.size());
  s.min = rates.front();
  s.max = rates.back();
  s.median = rates[rates.size() / 2];
  return s;
}

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort: may fail in restricted containers
}

// Runs `work(thread_index)` on `threads` pinned threads released together by a barrier; returns
// the seconds from the first thread's start to the last thread's end. The workers read the
// clock themselves: the main thread may not be scheduled when every core is busy.
double run_parallel(int threads, const std::function<void(int)>& work, std::vector<double>* per_thread = nullptr) {
  std::barrier sync(threads);
  std::vector<Clock::time_point> starts(static_cast<size_t>(threads)), ends(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      pin_to_cpu(t);
      sync.arrive_and_wait();
      starts[static_cast<size_t>(t)] = Clock::now();
      work(t);
      ends[static_cast<size_t>(t)] = Clock::now();
    });
  for (auto& th : pool) th.join();
  if (per_thread) {
    per_thread->clear();
    for (int t = 0; t < threads; ++t)
      per_thread->push_back(
          std::chrono::duration<double>(ends[static_cast<size_t>(t)] - starts[static_cast<size_t>(t)]).count());
  }
  auto start = *std::min_element(starts.begin(), starts.end());
  auto end = *std::max_element(ends.begin(), ends.end());
  return std::chrono::duration<double>(end - start).count();
}

// The clock the cores actually run at with `threads` busy (turbo included): a chain of dependent
// integer adds retires one per cycle, so cycles = adds. Falls back to the detected clock where the
// chain cannot be written (non-x86).
double measure_clock_mhz(int threads, double fallback_mhz) {
#if defined(__x86_64__)
  constexpr uint64_t kIterations = 4'000'000;  // x 32 adds: about 40 ms at 3 GHz
  std::vector<double> seconds;
  run_parallel(
      threads,
      [](int) {
        uint64_t x = 0, n = kIterations;
        asm volatile(
            ".p2align 4\n1:\n"
            "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
            "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
            "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
            "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
            "dec %1\n jnz 1b\n"
            : "+r"(x), "+r"(n)
            :
            : "cc");
        if (x != 32 * kIterations) throw Error("ert: clock measurement chain miscounted");
      },
      &seconds);
  double mhz = 0;
  for (double s : seconds) mhz += 32.0 * kIterations / s / 1e6;
  return mhz / static_cast<double>(seconds.size());
#else
  (void)threads;
  return fallback_mhz;
#endif
  (void)fallback_mhz;
}

void check(bool ok, const std::string& what) {
  if (!ok) throw Error("ert: kernel check failed: " + what);
}

// Arrays of one kernel are offset from each other by `skew` cache lines, so their elements do
// not map to the same 4 KiB offset (which makes loads wait on unrelated stores).
struct Array {
  std::unique_ptr<double, decltype(&std::free)> storage{nullptr, &std::free};
  double* data = nullptr;
};

Array allocate(size_t n, int skew) {
  Array a;
  size_t offset = static_cast<size_t>(skew) * 8;  // doubles per 64-byte line
  a.storage.reset(
      static_cast<double*>(std::aligned_alloc(4096, (((n + offset) * sizeof(double) + 4095) / 4096) * 4096)));
  if (!a.storage) throw Error("ert: out of memory for a working set");
  a.data = a.storage.get() + offset;
  return a;
}

}  // namespace

ErtResult run_ert(const ErtOptions& o) {
  auto t0 = Clock::now();
  ErtResult r;
  r.cpu = detect_host_cpu();
  Isa isa = best_isa();
  r.isa = isa_name(isa);
  int max_threads = o.max_threads > 0 ? std::min(o.max_threads, r.cpu.cores) : r.cpu.cores;
  r.threads = max_threads;
  int reps = o.repetitions > 0 ? o.repetitions : (o.quick ? 3 : 7);
  double min_seconds = o.quick ? 0.02 : 0.1;  // per timed repetition
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };

  // FMA peaks, 1..N threads; the theoretical peak uses the clock measured under the same load.
  double flops_per_cycle32 = r.cpu.simd_bits / 32.0 * r.cpu.fma_units * 2;
  for (int threads = 1; threads <= max_threads; ++threads) {
    PeakPoint p;
    p.threads = threads;
    // Best of the repetitions, like the FMA rates: an interrupted run only ever reads lower.
    for (int rep = 0; rep < reps; ++rep) p.clock_mhz = std::max(p.clock_mhz, measure_clock_mhz(threads, r.cpu.max_mhz));
    p.theoretical_fp32 = threads * flops_per_cycle32 * p.clock_mhz * 1e6;
    p.theoretical_fp64 = p.theoretical_fp32 / 2;
    for (int precision = 0; precision < 2; ++precision) {
      // Size the run: double the iterations until one repetition takes min_seconds.
      int64_t iterations = 1 << 14;
      while (true) {
        double s = run_parallel(threads, [&](int) {
          precision == 0 ? fma_fp32(isa, iterations, g_a32, g_b32) : fma_fp64(isa, iterations, g_a64, g_b64);
        });
        if (s >= min_seconds / 2 || iterations > (int64_t{1} << 40)) break;
        iterations *= 2;
      }
      std::vector<double> rates;
      for (int rep = 0; rep < reps; ++rep) {
        std::vector<FmaRun> runs(static_cast<size_t>(threads));
        double s = run_parallel(threads, [&](int t) {
          runs[static_cast<size_t>(t)] =
              precision == 0 ? fma_fp32(isa, iterations, g_a32, g_b32) : fma_fp64(isa, iterations, g_a64, g_b64);
        });
        double flops = 0;
        for (const auto& run : runs) {
          check(run.checksum == run.expected,
                fmt::format("FMA {} checksum {} != {}", precision ? "fp64" : "fp32", run.checksum, run.expected));
          flops += run.flops;
        }
        rates.push_back(flops / s);
      }
      (precision == 0 ? p.fp32 : p.fp64) = stats_of(rates);
    }
    say(fmt::format("fma {} thread(s) at {:.0f} MHz: fp32 {:.1f} GFLOP/s ({:.0f}% of {:.1f}), fp64 {:.1f} GFLOP/s",
                    threads, p.clock_mhz, p.fp32.max / 1e9, 100 * p.fp32.max / p.theoretical_fp32,
                    p.theoretical_fp32 / 1e9, p.fp64.max / 1e9));
    r.peaks.push_back(p);
  }

  // Bandwidth: working-set sweep per kernel, at 1 thread and at max threads.
  double l1 = 32768, l2 = 1 << 20, l3 = 32 << 20;
  for (const auto& [level, bytes] : r.cpu.caches) {
    if (level == "l1") l1 = bytes;
    if (level == "l2") l2 = bytes;
    if (level == "l3") l3 = bytes;
  }
  double max_total = std::max(4 * l3, 64.0 * (1 << 20)) * (o.quick ? 1 : 4);
  std::vector<int> thread_counts{1};
  if (max_threads > 1) thread_counts.push_back(max_threads);
  for (int threads : thread_counts) {
    for (const char* kernel : {"read", "write", "copy", "triad"}) {
      int arrays = std::string(kernel) == "copy" ? 2 : std::string(kernel) == "triad" ? 3 : 1;
      std::vector<double> sizes;
      for (double ws = 8192; ws * threads < max_total; ws *= 2) sizes.push_back(ws);
      sizes.push_back(max_total / threads);  // the DRAM point: 4x the last-level cache or more in all
      for (double ws : sizes) {
        size_t n = static_cast<size_t>(ws / arrays / sizeof(double)) / 32 * 32;
        if (n < 32) continue;
        std::vector<Array> a(static_cast<size_t>(threads)), b(static_cast<size_t>(threads)),
            c(static_cast<size_t>(threads));
        run_parallel(threads, [&](int t) {  // first touch on the thread that uses the memory
          auto i = static_cast<size_t>(t);
          a[i] = allocate(n, 0);
          std::fill(a[i].data, a[i].data + n, 1.0);
          if (arrays >= 2) b[i] = allocate(n, 5), std::fill(b[i].data, b[i].data + n, 2.0);
          if (arrays >= 3) c[i] = allocate(n, 11), std::fill(c[i].data, c[i].data + n, 3.0);
        });
        double bytes_per_thread = static_cast<double>(arrays) * static_cast<double>(n) * sizeof(double);
        bool streaming = bytes_per_thread * threads >= 3 * l3;  // DRAM-sized: non-temporal stores
        std::string k = kernel;
        int passes = 1;
        auto run = [&](int t) {
          auto i = static_cast<size_t>(t);
          if (k == "read") {
            double sum = read_kernel(a[i].data, n, passes);
            check(sum == static_cast<double>(n) * passes, fmt::format("read sum {} != {}", sum, n * passes));
          } else if (k == "write") {
            write_kernel(a[i].data, n, 4.0, passes, streaming);
          } else if (k == "copy") {
            copy_kernel(b[i].data, a[i].data, n, passes, streaming);
          } else {
            triad_kernel(a[i].data, b[i].data, c[i].data, n, 0.5, passes, streaming);
          }
        };
        while (run_parallel(threads, run) < min_seconds / 4 && passes < (1 << 24)) passes *= 2;
        std::vector<double> rates;
        for (int rep = 0; rep < reps; ++rep) {
          double s = run_parallel(threads, run);
          rates.push_back(static_cast<double>(arrays) * static_cast<double>(n) * sizeof(double) * passes * threads / s);
        }
        // The kernels touched what they claim: spot-check results.
        for (int t = 0; t < threads; ++t) {
          auto i = static_cast<size_t>(t);
          if (k == "write") check(a[i].data[n - 1] == 4.0, "write");
          if (k == "copy") check(b[i].data[n / 2] == 1.0 && b[i].data[n - 1] == 1.0, "copy");
          if (k == "triad") check(a[i].data[n - 1] == 2.0 + 0.5 * 3.0, "triad");
        }
        double total = bytes_per_thread * threads;
        std::string level = bytes_per_thread <= l1 / 2                            ? "l1"
                            : bytes_per_thread > l1 && bytes_per_thread <= l2 / 2 ? "l2"
                            : bytes_per_thread > l2 && total <= l3 / 2            ? "l3"
                            : total >= 3 * l3                                     ? "dram"
                                                                                  : "";
        r.bandwidth.push_back({k, threads, bytes_per_thread, stats_of(rates), level});
      }
    }
    say(fmt::format("bandwidth sweep at {} thread(s) done", threads));
  }
  for (const auto& p : r.bandwidth) {
    if (p.threads != max_threads || p.level.empty()) continue;
    auto& best = r.level_kernel_bandwidth[p.level][p.kernel];
    best = std::max(best, p.rate.max);
  }
  for (const auto& [level, kernels] : r.level_kernel_bandwidth)
    if (kernels.count("triad")) r.level_bandwidth[level] = kernels.at("triad");

  // ERT sweep: FLOPs per byte from 0.25 to 32, with the array in L2 and in DRAM.
  for (const auto& [level, total_bytes] :
       std::vector<std::pair<std::string, double>>{{"l2", l2 / 2 * max_threads}, {"dram", 4 * l3}}) {
    size_t n = static_cast<size_t>(total_bytes / max_threads / sizeof(float)) / 64 * 64;
    std::vector<std::unique_ptr<float, decltype(&std::free)>> arrays;
    for (int t = 0; t < max_threads; ++t) {
      arrays.emplace_back(static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))), &std::free);
      if (!arrays.back()) throw Error("ert: out of memory");
    }
    run_parallel(max_threads, [&](int t) {
      std::fill(arrays[static_cast<size_t>(t)].get(), arrays[static_cast<size_t>(t)].get() + n, 1.0f);
    });
    for (int fmas = 1; fmas <= 128; fmas *= 2) {
      int passes = 1;
      auto run = [&](int t) {
        for (int p = 0; p < passes; ++p) {
          double sum = intensity_kernel(arrays[static_cast<size_t>(t)].get(), n, fmas, g_a32, g_b32);
          (void)sum;
        }
      };
      while (run_parallel(max_threads, run) < min_seconds / 4 && passes < (1 << 24)) passes *= 2;
      std::vector<double> rates;
      for (int rep = 0; rep < reps; ++rep) {
        double s = run_parallel(max_threads, run);
        rates.push_back(2.0 * fmas * static_cast<double>(n) * passes * max_threads / s);
      }
      // With a = -1, b = 0 the values alternate sign per FMA: after an even total count they are 1.
      for (int t = 0; t < max_threads; ++t) {
        float v = arrays[static_cast<size_t>(t)].get()[n - 1];
        check(v == 1.0f || v == -1.0f, fmt::format("intensity kernel value {}", v));
      }
      r.intensity.push_back({level, fmas, 2.0 * fmas / 8.0, stats_of(rates)});
    }
  }
  say("ERT intensity sweep done");

  // Dense GEMM through ATen.
  r.gemm_n = o.quick ? 1024 : 2048;
  r.gemm_fp32 = stats_of(gemm_fp32_rates(r.gemm_n, max_threads, reps));
  say(fmt::format("GEMM fp32 n={}: {:.1f} GFLOP/s", r.gemm_n, r.gemm_fp32.max / 1e9));
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::string ert_device_yaml(const ErtResult& r) {
  const auto& top = r.peaks.back();
  std::string when = fmt::format("ridge ert ({}, {} thread(s), isa {}, best of {} repetitions)", r.cpu.model, r.threads,
                                 r.isa, top.fp32.samples);
  std::string text = fmt::format(
      "# The measured roofline of this machine, written by `ridge ert`. Every figure is measured;\n"
      "# use it anywhere a device is accepted: --device this-file.yaml\n"
      "id: host-measured\nname: \"{} (measured)\"\nkind: cpu\nclocks:\n"
      "  cpu: {{max_mhz: {}, cores: {}, source: \"{}\"}}\n"
      "units:\n  - name: cpu-simd\n    type: vector\n    clock: cpu\n    label: measured\n"
      "    peak_flops: {{fp32: {:.6g}, fp64: {:.6g}}}\n    source: \"{}: FMA kernels\"\n"
      "  - name: gemm\n    type: matrix\n    clock: cpu\n    label: measured\n    peak_flops: {{fp32: {:.6g}}}\n"
      "    source: \"{}: ATen at::mm, n = {}\"\nmemory:\n",
      r.cpu.model, top.clock_mhz, r.threads, "measured by ridge ert: dependent add chain under load", top.fp32.max,
      top.fp64.max, when, r.gemm_fp32.max, when, r.gemm_n);
  for (const auto& [level, bw] : r.level_bandwidth)
    text += fmt::format(
        "  - {{level: {}, bandwidth: {:.6g}, label: measured, source: \"{}: triad kernel, working-set sweep\"}}\n",
        level, bw, when);
  text += "overhead: {seconds: 1.0e-6, source: \"ridge default for a CPU op dispatch (1 us), until calibrated\"}\n";
  text += "modes:\n  - {name: measured, source: \"the configuration ridge ert ran in\"}\n";
  return text;
}

}  // namespace ridge::hw::ert
