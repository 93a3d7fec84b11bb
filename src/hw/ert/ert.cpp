#include "hw/ert/ert.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include "hw/device.h"
#include "hw/ert/gemm.h"
#include "hw/ert/kernels.h"
#include "sys/host_cpu.h"
#include "util/error.h"

namespace ridge::hw::ert {
namespace {

using Clock = std::chrono::steady_clock;

// Values passed through volatile so the compiler cannot see a = -1, b = 0 and fold the FMAs.
volatile float g_a32 = -1.0f, g_b32 = 0.0f;
volatile double g_a64 = -1.0, g_b64 = 0.0;

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

#if defined(__x86_64__)
constexpr uint64_t kClockIterations = 4'000'000;  // x 32 adds: about 40 ms at 3 GHz

// A chain of 32 x `iterations` dependent integer adds: one retires per cycle, so cycles = adds.
void add_chain(uint64_t iterations) {
  // Register operands, not immediates: Golden Cove (Sapphire Rapids, Alder Lake) folds chains of
  // adds of small immediates at rename, several per cycle, which read as a clock of 20 GHz.
  uint64_t x = 0, n = iterations, one = 1;
  asm volatile(
      ".p2align 4\n1:\n"
      "add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n"
      "add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n"
      "add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n"
      "add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n add %2, %0\n"
      "dec %1\n jnz 1b\n"
      : "+r"(x), "+r"(n)
      : "r"(one)
      : "cc");
  if (x != 32 * iterations) throw Error("ert: clock measurement chain miscounted");
}
#endif

double thread_cpu_seconds();

// The clock the cores actually run at with `threads` busy (turbo included), from the add chain
// timed in each thread's CPU time (so a thread preempted by another process does not read as a
// slow clock). Falls back to the detected clock where the chain cannot be written (non-x86).
double measure_clock_mhz(int threads, double fallback_mhz) {
#if defined(__x86_64__)
  std::vector<double> seconds(static_cast<size_t>(threads));
  run_parallel(threads, [&](int t) {
    double t0 = thread_cpu_seconds();
    add_chain(kClockIterations);
    seconds[static_cast<size_t>(t)] = thread_cpu_seconds() - t0;
  });
  double mhz = 0;
  for (double s : seconds) mhz += 32.0 * kClockIterations / s / 1e6;
  return mhz / static_cast<double>(seconds.size());
#else
  (void)threads;
  return fallback_mhz;
#endif
  (void)fallback_mhz;
}

// CPU time of the calling thread: time the thread was preempted (other processes on a busy
// machine) does not count, so a ratio of two kernels timed this way is the ratio of their cycles.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
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

// What every step shares: the ISA, how long and how often to time, where to report progress.
struct Plan {
  Isa isa = Isa::kScalar;
  int max_threads = 1;
  int reps = 7;
  double min_seconds = 0.1;  // per timed repetition
  std::function<void(const std::string&)> say;
};

FmaRun run_fma(Isa isa, bool fp64, int64_t iterations) {
  return fp64 ? fma_fp64(isa, iterations, g_a64, g_b64) : fma_fp32(isa, iterations, g_a32, g_b32);
}

// Doubles the iterations until one run on `threads` threads takes about `seconds`.
int64_t size_fma_run(Isa isa, bool fp64, int threads, double seconds) {
  int64_t iterations = 1 << 14;
  while (true) {
    double s = run_parallel(threads, [&](int) { run_fma(isa, fp64, iterations); });
    if (s >= seconds / 2 || iterations > (int64_t{1} << 40)) return iterations;
    iterations *= 2;
  }
}

// FLOP/s of each repetition of the FMA kernel on `threads` threads; checks every result.
std::vector<double> fma_rates(Isa isa, bool fp64, int threads, int64_t iterations, int reps) {
  std::vector<double> rates;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<FmaRun> runs(static_cast<size_t>(threads));
    double s = run_parallel(threads, [&](int t) { runs[static_cast<size_t>(t)] = run_fma(isa, fp64, iterations); });
    double flops = 0;
    for (const auto& run : runs) {
      check(run.checksum == run.expected, fmt::format("FMA {} {} checksum {} != {}", isa_name(isa),
                                                      fp64 ? "fp64" : "fp32", run.checksum, run.expected));
      flops += run.flops;
    }
    rates.push_back(flops / s);
  }
  return rates;
}

double best_clock_mhz(int threads, int reps, double fallback_mhz) {
  double mhz = 0;  // best of the repetitions, like the FMA rates: an interrupted run only ever reads lower
  for (int rep = 0; rep < reps; ++rep) mhz = std::max(mhz, measure_clock_mhz(threads, fallback_mhz));
  return mhz;
}

// FMA instructions per cycle of one core for each ISA in `isas`, on one pinned thread: the add
// chain and the FMA kernel alternate, each timed in the thread's CPU time; the best of the
// repetitions of each is kept. 0 where the clock chain cannot run (non-x86).
std::vector<double> fma_per_cycle(const std::vector<Isa>& isas, int reps, double seconds) {
  std::vector<double> result(isas.size(), 0);
#if defined(__x86_64__)
  std::thread worker([&] {
    pin_to_cpu(0);
    constexpr uint64_t kIterations = kClockIterations / 8;  // about 5 ms
    double best_mhz = 0;
    for (size_t i = 0; i < isas.size(); ++i) {
      int64_t iterations = 1 << 12;
      while (true) {
        double t0 = thread_cpu_seconds();
        run_fma(isas[i], false, iterations);
        if (thread_cpu_seconds() - t0 >= seconds || iterations > (int64_t{1} << 40)) break;
        iterations *= 2;
      }
      double best_flops = 0;
      for (int rep = 0; rep < reps; ++rep) {
        double t0 = thread_cpu_seconds();
        add_chain(kIterations);
        double t1 = thread_cpu_seconds();
        auto run = run_fma(isas[i], false, iterations);
        double t2 = thread_cpu_seconds();
        if (run.checksum != run.expected) return;  // reported below as a failed check
        best_mhz = std::max(best_mhz, 32.0 * kIterations / (t1 - t0) / 1e6);
        best_flops = std::max(best_flops, run.flops / (t2 - t1));
      }
      result[i] = best_flops;
    }
    for (size_t i = 0; i < isas.size(); ++i) result[i] = result[i] / 2 / (isa_bits(isas[i]) / 32.0) / (best_mhz * 1e6);
  });
  worker.join();
  for (double r : result) check(r > 0, "FMA width kernels");
#else
  (void)reps, (void)seconds;
#endif
  return result;
}

// Step 1: the FMA width of one core from measured 256-bit and (with AVX-512) 512-bit FMA
// throughput per cycle; it replaces the family-number table's guess in `cpu`.
FmaWidth measure_fma_width(const Plan& plan, sys::HostCpu& cpu) {
  FmaWidth width;
  if (plan.isa == Isa::kAvx2 || plan.isa == Isa::kAvx512) {
    std::vector<Isa> isas{Isa::kAvx2};
    if (plan.isa == Isa::kAvx512) isas.push_back(Isa::kAvx512);
    auto per_cycle = fma_per_cycle(isas, std::max(plan.reps, 7), plan.min_seconds / 4);
    width = derive_fma_width(per_cycle[0], per_cycle.size() > 1 ? per_cycle[1] : 0);
    cpu.simd_bits = width.bits;
    cpu.fma_units = width.fmas_per_cycle;
    cpu.simd_note = width.description;
  } else {  // no x86 vector kernels: the table's figure stays, and says so
    width.bits = cpu.simd_bits;
    width.fmas_per_cycle = cpu.fma_units;
    width.flops_per_cycle_fp32 = cpu.simd_bits / 32.0 * cpu.fma_units * 2;
    width.description = cpu.simd_note + " (from the CPU table: no vector FMA kernel for this ISA)";
  }
  plan.say("fma width of one core: " + width.description);
  return width;
}

// Step 2: FMA peaks for 1..N threads; the theoretical peak uses the measured width and the clock
// measured under the same load.
std::vector<PeakPoint> measure_peaks(const Plan& plan, const FmaWidth& width, double fallback_mhz) {
  std::vector<PeakPoint> peaks;
  for (int threads = 1; threads <= plan.max_threads; ++threads) {
    PeakPoint p;
    p.threads = threads;
    p.clock_mhz = best_clock_mhz(threads, plan.reps, fallback_mhz);
    p.theoretical_fp32 = threads * width.flops_per_cycle_fp32 * p.clock_mhz * 1e6;
    p.theoretical_fp64 = p.theoretical_fp32 / 2;
    for (bool fp64 : {false, true}) {
      int64_t iterations = size_fma_run(plan.isa, fp64, threads, plan.min_seconds);
      (fp64 ? p.fp64 : p.fp32) = sys::summarize(fma_rates(plan.isa, fp64, threads, iterations, plan.reps));
    }
    plan.say(fmt::format(
        "fma {} thread(s) at {:.0f} MHz: fp32 {:.1f} GFLOP/s ({:.0f}% of {:.1f}{}), fp64 {:.1f} GFLOP/s", threads,
        p.clock_mhz, p.fp32.max / 1e9, 100 * p.fp32.max / p.theoretical_fp32, p.theoretical_fp32 / 1e9,
        above_theoretical(p.fp32.max, p.theoretical_fp32) ? std::string(": ") + kAboveTheoreticalFlag : "",
        p.fp64.max / 1e9));
    peaks.push_back(p);
  }
  return peaks;
}

struct CacheSizes {
  double l1 = 32768, l2 = 1 << 20, l3 = 32 << 20;
};

CacheSizes cache_sizes(const sys::HostCpu& cpu) {
  CacheSizes c;
  for (const auto& [level, bytes] : cpu.caches) {
    if (level == "l1") c.l1 = bytes;
    if (level == "l2") c.l2 = bytes;
    if (level == "l3") c.l3 = bytes;
  }
  return c;
}

// One point of the bandwidth sweep: `kernel` over `ws` bytes per thread on `threads` threads.
std::optional<BandwidthPoint> bandwidth_point(const Plan& plan, const CacheSizes& caches, const std::string& k,
                                              int threads, double ws) {
  int arrays = k == "copy" ? 2 : k == "triad" ? 3 : 1;
  size_t n = static_cast<size_t>(ws / arrays / sizeof(double)) / 32 * 32;
  if (n < 32) return std::nullopt;
  std::vector<Array> a(static_cast<size_t>(threads)), b(static_cast<size_t>(threads)), c(static_cast<size_t>(threads));
  run_parallel(threads, [&](int t) {  // first touch on the thread that uses the memory
    auto i = static_cast<size_t>(t);
    a[i] = allocate(n, 0);
    std::fill(a[i].data, a[i].data + n, 1.0);
    if (arrays >= 2) b[i] = allocate(n, 5), std::fill(b[i].data, b[i].data + n, 2.0);
    if (arrays >= 3) c[i] = allocate(n, 11), std::fill(c[i].data, c[i].data + n, 3.0);
  });
  double bytes_per_thread = static_cast<double>(arrays) * static_cast<double>(n) * sizeof(double);
  bool streaming = bytes_per_thread * threads >= 3 * caches.l3;  // DRAM-sized: non-temporal stores
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
  while (run_parallel(threads, run) < plan.min_seconds / 4 && passes < (1 << 24)) passes *= 2;
  std::vector<double> rates;
  for (int rep = 0; rep < plan.reps; ++rep) {
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
  std::string level = bytes_per_thread <= caches.l1 / 2                                   ? "l1"
                      : bytes_per_thread > caches.l1 && bytes_per_thread <= caches.l2 / 2 ? "l2"
                      : bytes_per_thread > caches.l2 && total <= caches.l3 / 2            ? "l3"
                      : total >= 3 * caches.l3                                            ? "dram"
                                                                                          : "";
  return BandwidthPoint{k, threads, bytes_per_thread, sys::summarize(rates), level};
}

// Step 3: working-set sweep per kernel, at 1 thread and at max threads.
std::vector<BandwidthPoint> measure_bandwidth(const Plan& plan, const CacheSizes& caches, bool quick) {
  double max_total = std::max(4 * caches.l3, 64.0 * (1 << 20)) * (quick ? 1 : 4);
  std::vector<int> thread_counts{1};
  if (plan.max_threads > 1) thread_counts.push_back(plan.max_threads);
  std::vector<BandwidthPoint> points;
  for (int threads : thread_counts) {
    for (const char* kernel : {"read", "write", "copy", "triad"}) {
      std::vector<double> sizes;
      for (double ws = 8192; ws * threads < max_total; ws *= 2) sizes.push_back(ws);
      sizes.push_back(max_total / threads);  // the DRAM point: 4x the last-level cache or more in all
      for (double ws : sizes)
        if (auto p = bandwidth_point(plan, caches, kernel, threads, ws)) points.push_back(*p);
    }
    plan.say(fmt::format("bandwidth sweep at {} thread(s) done", threads));
  }
  return points;
}

// The best point of each level and kernel at max threads; a level's bandwidth is its triad's.
void summarize_levels(ErtResult& r) {
  for (const auto& p : r.bandwidth) {
    if (p.threads != r.threads || p.level.empty()) continue;
    auto& best = r.level_kernel_bandwidth[p.level][p.kernel];
    best = std::max(best, p.rate.max);
  }
  for (const auto& [level, kernels] : r.level_kernel_bandwidth)
    if (kernels.count("triad")) r.level_bandwidth[level] = kernels.at("triad");
}

// Step 4: the ERT sweep: FLOPs per byte from 0.25 to 32, with the array in L2 and in DRAM.
std::vector<IntensityPoint> measure_intensity(const Plan& plan, const CacheSizes& caches) {
  std::vector<IntensityPoint> points;
  const int threads = plan.max_threads;
  for (const auto& [level, total_bytes] :
       std::vector<std::pair<std::string, double>>{{"l2", caches.l2 / 2 * threads}, {"dram", 4 * caches.l3}}) {
    size_t n = static_cast<size_t>(total_bytes / threads / sizeof(float)) / 64 * 64;
    std::vector<std::unique_ptr<float, decltype(&std::free)>> arrays;
    for (int t = 0; t < threads; ++t) {
      arrays.emplace_back(static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))), &std::free);
      if (!arrays.back()) throw Error("ert: out of memory");
    }
    run_parallel(threads, [&](int t) {
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
      while (run_parallel(threads, run) < plan.min_seconds / 4 && passes < (1 << 24)) passes *= 2;
      std::vector<double> rates;
      for (int rep = 0; rep < plan.reps; ++rep) {
        double s = run_parallel(threads, run);
        rates.push_back(2.0 * fmas * static_cast<double>(n) * passes * threads / s);
      }
      // With a = -1, b = 0 the values alternate sign per FMA: after an even total count they are 1.
      for (int t = 0; t < threads; ++t) {
        float v = arrays[static_cast<size_t>(t)].get()[n - 1];
        check(v == 1.0f || v == -1.0f, fmt::format("intensity kernel value {}", v));
      }
      points.push_back({level, fmas, 2.0 * fmas / 8.0, sys::summarize(rates)});
    }
  }
  plan.say("ERT intensity sweep done");
  return points;
}

// Nearest of 0.5, 1, 2, 4 FMAs per cycle, in ratio (a rate of 0 stays 0).
double nearest_pipe_count(double per_cycle) {
  if (!(per_cycle > 0)) return 0;
  double best = 0.5;
  for (double c : {1.0, 2.0, 4.0})
    if (std::fabs(std::log(per_cycle / c)) < std::fabs(std::log(per_cycle / best))) best = c;
  return best;
}

}  // namespace

FmaWidth derive_fma_width(double fma256_per_cycle, double fma512_per_cycle) {
  FmaWidth w;
  w.fma256_per_cycle = fma256_per_cycle;
  w.fma512_per_cycle = fma512_per_cycle;
  double n256 = nearest_pipe_count(fma256_per_cycle), n512 = nearest_pipe_count(fma512_per_cycle);
  double flops256 = n256 * 256 / 32 * 2, flops512 = n512 * 512 / 32 * 2;
  bool use512 = flops512 > flops256;
  double n = use512 ? n512 : n256;
  w.bits = use512 ? 512 : 256;
  w.fmas_per_cycle = std::max(1, static_cast<int>(n));  // half an FMA per cycle is stated as 1 at half width
  w.flops_per_cycle_fp32 = use512 ? flops512 : flops256;
  if (n < 1) w.bits /= 2;  // one FMA every other cycle = one of half the width per cycle
  auto count = [](double c) { return c < 1 ? std::string("1/2") : fmt::format("{:g}", c); };
  if (n512 == 0)
    w.description = fmt::format("{} x 256-bit FMA per cycle (measured: {:.2f})", count(n256), fma256_per_cycle);
  else if (!use512)
    w.description = fmt::format(
        "{} x 256-bit FMA per cycle; 512-bit FMAs at {} per cycle give no more (measured: "
        "{:.2f} and {:.2f})",
        count(n256), count(n512), fma256_per_cycle, fma512_per_cycle);
  else if (n512 >= 2)
    w.description = fmt::format("{} x 512-bit FMA per cycle: full-width AVX-512 (measured: {:.2f}; 256-bit: {:.2f})",
                                count(n512), fma512_per_cycle, fma256_per_cycle);
  else
    w.description = fmt::format("{} x 512-bit FMA per cycle (measured: {:.2f}; 256-bit: {:.2f})", count(n512),
                                fma512_per_cycle, fma256_per_cycle);
  return w;
}

ErtResult run_ert(const ErtOptions& o) {
  auto t0 = Clock::now();
  ErtResult r;
  r.cpu = sys::detect_host_cpu();
  Plan plan;
  plan.isa = best_isa();
  plan.max_threads = o.max_threads > 0 ? std::min(o.max_threads, r.cpu.cores) : r.cpu.cores;
  plan.reps = o.repetitions > 0 ? o.repetitions : (o.quick ? 3 : 7);
  plan.min_seconds = o.quick ? 0.02 : 0.1;
  plan.say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  r.isa = isa_name(plan.isa);
  r.threads = plan.max_threads;
  r.fma = measure_fma_width(plan, r.cpu);
  r.peaks = measure_peaks(plan, r.fma, r.cpu.max_mhz);
  auto caches = cache_sizes(r.cpu);
  r.bandwidth = measure_bandwidth(plan, caches, o.quick);
  summarize_levels(r);
  r.intensity = measure_intensity(plan, caches);
  r.gemm_n = o.quick ? 1024 : 2048;
  // The executor's products run on both libraries (gemm_plugin.cpp): the ceiling is the faster, so that no product
  // the executor runs lands above it.
  for (auto kernel : {GemmKernel::kAten, GemmKernel::kOnednn}) {
    auto rates = sys::summarize(gemm_fp32_rates(r.gemm_n, plan.max_threads, plan.reps, kernel));
    plan.say(fmt::format("GEMM fp32 n={} ({}): {:.1f} GFLOP/s", r.gemm_n, name(kernel), rates.max / 1e9));
    if (r.gemm_by_kernel.empty() || rates.max > r.gemm_fp32.max) r.gemm_fp32 = rates, r.gemm_kernel = name(kernel);
    r.gemm_by_kernel[std::string(name(kernel))] = rates;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

namespace {
// The rates of both GEMM libraries, for the ceiling's source.
std::string gemm_comparison(const ErtResult& r) {
  std::vector<std::string> rates;
  for (const auto& [kernel, stats] : r.gemm_by_kernel)
    rates.push_back(fmt::format("{} {:.1f}", kernel, stats.max / 1e9));
  if (rates.size() < 2) return "";
  return fmt::format(" (the faster of the executor's product libraries: {} GFLOP/s)", fmt::join(rates, ", "));
}
}  // namespace

std::string ert_device_yaml(const ErtResult& r) {
  const auto& top = r.peaks.back();
  std::string when = fmt::format("ridge ert ({}, {} thread(s), isa {}, best of {} repetitions)", r.cpu.model, r.threads,
                                 r.isa, top.fp32.samples);
  auto number = [](double v) { return fmt::format("{:.6g}", v); };
  YAML::Emitter e;
  e << YAML::Comment(
           "The measured roofline of this machine, written by `ridge ert`. Every figure is measured;\n"
           "use it anywhere a device is accepted: --device this-file.yaml")
    << YAML::Newline;
  e << YAML::BeginMap;
  e << YAML::Key << "id" << YAML::Value << "host-measured";
  e << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << r.cpu.model + " (measured)";
  e << YAML::Key << "kind" << YAML::Value << "cpu";
  e << YAML::Key << "clocks" << YAML::Value << YAML::BeginMap << YAML::Key << "cpu" << YAML::Value << YAML::Flow
    << YAML::BeginMap << YAML::Key << "max_mhz" << YAML::Value << number(top.clock_mhz) << YAML::Key << "cores"
    << YAML::Value << r.threads << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << "measured by ridge ert: dependent add chain under load" << YAML::EndMap << YAML::EndMap;
  e << YAML::Key << "units" << YAML::Value << YAML::BeginSeq;
  e << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "cpu-simd" << YAML::Key << "type" << YAML::Value
    << "vector" << YAML::Key << "clock" << YAML::Value << "cpu" << YAML::Key << "label" << YAML::Value << kMeasured
    << YAML::Key << "peak_flops" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "fp32" << YAML::Value
    << number(top.fp32.max) << YAML::Key << "fp64" << YAML::Value << number(top.fp64.max) << YAML::EndMap << YAML::Key
    << "source" << YAML::Value << YAML::DoubleQuoted << when + ": FMA kernels; " + r.fma.description << YAML::EndMap;
  // The rate a real GEMM attains: the ceiling of Conv, Gemm and MatMul (a gemm unit).
  e << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "gemm" << YAML::Key << "type" << YAML::Value << "gemm"
    << YAML::Key << "clock" << YAML::Value << "cpu" << YAML::Key << "label" << YAML::Value << kMeasured << YAML::Key
    << "peak_flops" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "fp32" << YAML::Value
    << number(r.gemm_fp32.max) << YAML::EndMap << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << fmt::format("{}: {}, n = {}{}", when, r.gemm_kernel, r.gemm_n, gemm_comparison(r)) << YAML::EndMap;
  e << YAML::EndSeq;
  e << YAML::Key << "memory" << YAML::Value << YAML::BeginSeq;
  for (const auto& [level, bw] : r.level_bandwidth)
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "level" << YAML::Value << level << YAML::Key << "bandwidth"
      << YAML::Value << number(bw) << YAML::Key << "label" << YAML::Value << kMeasured << YAML::Key << "source"
      << YAML::Value << YAML::DoubleQuoted << when + ": triad kernel, working-set sweep" << YAML::EndMap;
  e << YAML::EndSeq;
  e << YAML::Key << "overhead" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "seconds" << YAML::Value
    << "1.0e-6" << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << "ridge default for a CPU op dispatch (1 us), until calibrated" << YAML::EndMap;
  e << YAML::Key << "modes" << YAML::Value << YAML::BeginSeq << YAML::Flow << YAML::BeginMap << YAML::Key << "name"
    << YAML::Value << "measured" << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << "the configuration ridge ert ran in" << YAML::EndMap << YAML::EndSeq;
  e << YAML::EndMap;
  if (!e.good()) throw Error("ert: cannot write the profile: " + e.GetLastError());
  return std::string(e.c_str()) + "\n";
}

}  // namespace ridge::hw::ert
