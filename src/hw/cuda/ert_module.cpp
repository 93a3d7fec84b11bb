// `ridge ert --device cuda`, the module side: the device's properties, the FMA peaks, the bandwidth
// of each level, the launch overhead and (ert_gemm.cpp) the tensor-core peaks, each timed with CUDA
// events, repeated and summarized; every kernel's result checked. The one entry point,
// ridge_cuda_ert, returns errors as text: no exception crosses dlsym.
#include <cublasLt.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "hw/cuda/ert_device.h"
#include "hw/cuda/ert_kernels.h"
#include "sys/cuda/gpus.h"
#include "util/error.h"

namespace ridge::hw::cuda {

using sys::cuda::check;

DeviceMemory::DeviceMemory(size_t bytes, const std::string& what) : bytes_(bytes) {
  auto status = cudaMalloc(&data_, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    data_ = nullptr;
    throw Error(fmt::format("ert: cannot allocate {:.1f} MiB of GPU memory for {}: {}", bytes / 1048576.0, what,
                            cudaGetErrorString(status)));
  }
}

DeviceMemory::~DeviceMemory() {
  if (data_) cudaFree(data_);
}

double EventTimer::seconds(const std::function<void()>& enqueue) {
  start_.record(stream_);
  enqueue();
  stop_.record(stream_);
  stop_.wait();
  return stop_.since(start_) / 1e3;
}

long long size_for(const Run& run, long long start, long long limit, const std::function<double(long long)>& time) {
  long long size = start;
  while (size < limit && time(size) < run.min_seconds / 2) size *= 2;
  return std::min(size, limit);
}

std::vector<double> rates(const Run& run, long long size, const std::function<double(long long)>& time,
                          const std::function<double(long long)>& amount) {
  std::vector<double> out;
  for (int rep = 0; rep < run.repetitions; ++rep) out.push_back(ert::per_second(amount(size), time(size)));
  return out;
}

std::string rate_text(double rate, double theoretical, const char* unit) {
  auto si = [](double v) {
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    while (v >= 1000 && i < 5) v /= 1000, ++i;
    return fmt::format("{:.3g} {}", v, prefixes[i]);
  };
  if (theoretical <= 0) return si(rate) + unit;
  return fmt::format("{}{} ({:.1f}% of {}{}{})", si(rate), unit, 100 * rate / theoretical, si(theoretical), unit,
                     ert::above_theoretical(rate, theoretical) ? std::string(": ") + ert::kAboveTheoreticalFlag : "");
}

namespace {

using Clock = std::chrono::steady_clock;

// Enough blocks for several waves on every SM, so no SM idles while another finishes.
constexpr int kFmaWaves = 4;

std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

int attribute(cudaDeviceAttr attr, int device, const char* name) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, device), std::string("cudaDeviceGetAttribute(") + name + ")");
  return value;
}

// An attribute some devices do not report (the memory clock of integrated GPUs): 0 then.
int optional_attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value;
}

ert::GpuProperties read_properties(int index) {
  int count = sys::cuda::require_gpus();  // one line naming why when there is none
  if (index < 0 || index >= count)
    throw Error(fmt::format("--gpu {}: this machine has {} GPU(s), numbered 0 to {}", index, count, count - 1));
  check(cudaSetDevice(index), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  ert::GpuProperties g;
  g.index = index;
  g.name = prop.name;
  g.cc_major = prop.major;
  g.cc_minor = prop.minor;
  g.sms = prop.multiProcessorCount;
  g.clock_mhz = attribute(cudaDevAttrClockRate, index, "cudaDevAttrClockRate") / 1e3;
  g.memory_clock_mhz = optional_attribute(cudaDevAttrMemoryClockRate, index) / 1e3;
  g.memory_bus_bits = optional_attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  g.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  g.l2_bytes = prop.l2CacheSize;
  g.shared_per_sm_bytes = static_cast<double>(prop.sharedMemPerMultiprocessor);
  g.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  g.integrated = prop.integrated != 0;
  size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  g.free_bytes = static_cast<double>(free);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  auto lt = cublasLtGetVersion();
  g.versions = fmt::format("CUDA runtime {}, driver {}, cuBLASLt {}.{}.{}", cuda_version(runtime), cuda_version(driver),
                           lt / 10000, lt % 10000 / 100, lt % 100);
  return g;
}

int resident_blocks(Kernel kernel, size_t shared_bytes, const char* what) {
  int per_sm = 0;
  check(blocks_per_sm(kernel, shared_bytes, &per_sm), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw Error(fmt::format("ert: the {} kernel cannot be resident on an SM", what));
  return per_sm;
}

// Step 1: FMA peaks. acc = acc x (-1) + 0 on independent chains in every thread of several waves of
// blocks; FLOPs = threads x iterations x chains x 2 (x 2 for half2); the clock is block 0's cycles
// over its nanoseconds.
ert::GpuPeak measure_fma(const Run& run, FmaPrecision p, const std::string& name) {
  const int blocks = run.gpu.sms * resident_blocks(fma_kernel_of(p), 0, "FMA") * kFmaWaves;
  DeviceMemory probe_memory(sizeof(FmaProbe), "the FMA kernel's checksum");
  auto* probe = probe_memory.as<FmaProbe>();
  check(cudaMemsetAsync(probe, 0, sizeof(FmaProbe), run.stream), "cudaMemsetAsync");
  EventTimer timer(run.stream);
  auto time = [&](long long iterations) {
    return timer.seconds(
        [&] { check(launch_fma(p, blocks, iterations, -1.0, 0.0, probe, run.stream), "the FMA kernel's launch"); });
  };
  const double threads = static_cast<double>(blocks) * kThreadsPerBlock;
  auto flops = [&](long long iterations) {
    return threads * static_cast<double>(iterations) * fma_flops_per_iteration(p);
  };
  time(kFmaUnroll * 16);  // warm-up: the module's code loaded, the clocks up
  long long iterations = size_for(run, kFmaUnroll * 64, 1LL << 36, time);
  std::vector<double> samples;
  double best = 0, clock_mhz = 0;
  for (int rep = 0; rep < run.repetitions; ++rep) {
    double rate = ert::per_second(flops(iterations), time(iterations));
    FmaProbe host{};
    check(cudaMemcpy(&host, probe, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (host.bad_threads != 0)
      throw Error(fmt::format("ert: kernel check failed: FMA {}: {} thread(s) ended with a wrong checksum", name,
                              host.bad_threads));
    samples.push_back(rate);
    if (rate > best && host.nanoseconds > 0) {
      best = rate;
      clock_mhz = static_cast<double>(host.cycles) / static_cast<double>(host.nanoseconds) * 1e3;
    }
  }
  ert::GpuPeak peak;
  peak.precision = name;
  peak.rate = sys::summarize(samples);
  peak.clock_mhz = clock_mhz;
  peak.theoretical = ert::theoretical_fma_flops(run.gpu.sms, run.gpu.clock_mhz, ert::fma_per_clock(run.rates, name));
  static const char* kOps[] = {"fma (double)", "fmaf (float)", "__hfma2 (half2)"};
  peak.method = fmt::format("{} chains of {} per thread, {} blocks of {} threads ({} waves), {} iterations",
                            fma_chains(p), kOps[static_cast<int>(p)], blocks, kThreadsPerBlock, kFmaWaves, iterations);
  run.say(fmt::format("fma {}: {} at {:.0f} MHz measured", name, rate_text(peak.rate.max, peak.theoretical, "FLOP/s"),
                      clock_mhz));
  return peak;
}

// The sum the read kernels' blocks left, over every block.
unsigned long long total_of(const DeviceMemory& sums, int blocks) {
  std::vector<unsigned long long> host(static_cast<size_t>(blocks));
  check(cudaMemcpy(host.data(), sums.as<unsigned long long>(), host.size() * sizeof(unsigned long long),
                   cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  unsigned long long total = 0;
  for (auto v : host) total += v;
  return total;
}

uint32_t word_at(const uint32_t* data, size_t index) {
  uint32_t v = 0;
  check(cudaMemcpy(&v, data + index, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return v;
}

// Bytes/s of each repetition of `enqueue(passes)`, which moves `bytes_per_pass`; `verify(passes)`
// after each repetition throws if the kernel's result is wrong.
sys::Summary bandwidth_rates(const Run& run, double bytes_per_pass, const std::function<void(long long)>& enqueue,
                             const std::function<void(long long)>& before,
                             const std::function<void(long long)>& verify) {
  EventTimer timer(run.stream);
  auto time = [&](long long passes) {
    if (before) before(passes);
    return timer.seconds([&] { enqueue(passes); });
  };
  time(1);  // warm-up
  verify(1);
  long long passes = size_for(run, 1, 1LL << 30, time);
  std::vector<double> samples;
  for (int rep = 0; rep < run.repetitions; ++rep) {
    samples.push_back(ert::per_second(bytes_per_pass * static_cast<double>(passes), time(passes)));
    verify(passes);
  }
  return sys::summarize(samples);
}

struct Buffers {
  uint32_t* data = nullptr;  // all ones
  size_t words = 0;
  DeviceMemory* sums = nullptr;
};

ert::GpuBandwidthPoint read_point(const Run& run, const std::string& level, const Buffers& b, double bytes,
                                  double theoretical) {
  const int blocks = run.gpu.sms * resident_blocks(Kernel::kRead, 0, "read");
  const size_t words = std::min(b.words, static_cast<size_t>(bytes / 16) * 4);
  auto rate = bandwidth_rates(
      run, static_cast<double>(words) * 4,
      [&](long long passes) {
        check(
            launch_read(b.data, words, static_cast<int>(passes), blocks, b.sums->as<unsigned long long>(), run.stream),
            "the read kernel's launch");
      },
      nullptr,
      [&](long long passes) {
        auto total = total_of(*b.sums, blocks);
        auto expected = static_cast<unsigned long long>(words) * static_cast<unsigned long long>(passes);
        if (total != expected)
          throw Error(fmt::format("ert: kernel check failed: read over {} bytes summed {} words, not {}", words * 4,
                                  total, expected));
      });
  return {level, "read", static_cast<double>(words) * 4, rate, theoretical};
}

// a -> b, b -> a, ... over two halves of `bytes`; b is zeroed before each repetition, so after it
// b's first, middle and last words must be ones. Bytes: read and written, as STREAM counts a copy.
ert::GpuBandwidthPoint copy_point(const Run& run, const std::string& level, const Buffers& b, double bytes,
                                  double theoretical) {
  const int blocks = run.gpu.sms * resident_blocks(Kernel::kCopy, 0, "copy");
  const size_t half = std::min(b.words / 2, static_cast<size_t>(bytes / 2 / 16) * 4);
  uint32_t* a = b.data;
  uint32_t* dst = b.data + half;
  auto rate = bandwidth_rates(
      run, 2.0 * static_cast<double>(half) * 4,
      [&](long long passes) {
        check(launch_copy(a, dst, half, static_cast<int>(passes), blocks, run.stream), "the copy kernel's launch");
      },
      [&](long long) { check(launch_fill_u32(dst, half, 0, run.stream), "the fill kernel's launch"); },
      [&](long long) {
        for (size_t i : {size_t{0}, half / 2, half - 1})
          if (word_at(dst, i) != 1 || word_at(a, i) != 1)
            throw Error(fmt::format("ert: kernel check failed: copy over {} bytes left word {} wrong", half * 8, i));
      });
  check(launch_fill_u32(dst, half, 1, run.stream), "the fill kernel's launch");  // ones again for later reads
  return {level, "copy", 2.0 * static_cast<double>(half) * 4, rate, theoretical};
}

// Every block re-reads `bytes` through L1 (kernel "l1-read") or from shared memory ("shared-read").
ert::GpuBandwidthPoint rotating_point(const Run& run, bool shared, const uint32_t* data, double bytes,
                                      double theoretical) {
  const auto shared_bytes = static_cast<size_t>(bytes);
  const int blocks = run.gpu.sms * resident_blocks(shared ? Kernel::kSharedRead : Kernel::kL1Read,
                                                   shared ? shared_bytes : 0, shared ? "shared-read" : "l1-read");
  DeviceMemory sums(static_cast<size_t>(blocks) * sizeof(unsigned long long), "the block sums");
  const double per_pass = static_cast<double>(blocks) * kThreadsPerBlock * kRotatingWordsPerThread;
  auto rate = bandwidth_rates(
      run, per_pass * 4,
      [&](long long passes) {
        auto* out = sums.as<unsigned long long>();
        check(shared ? launch_shared_read(shared_bytes, static_cast<int>(passes), blocks, out, run.stream)
                     : launch_l1_read(data, shared_bytes / 4, static_cast<int>(passes), blocks, out, run.stream),
              shared ? "the shared-read kernel's launch" : "the l1-read kernel's launch");
      },
      nullptr,
      [&](long long passes) {
        auto total = total_of(sums, blocks);
        auto expected = static_cast<unsigned long long>(per_pass) * static_cast<unsigned long long>(passes);
        if (total != expected)
          throw Error(fmt::format("ert: kernel check failed: {} summed {} words, not {}",
                                  shared ? "shared-read" : "l1-read", total, expected));
      });
  return {"l1", shared ? "shared-read" : "l1-read", bytes, rate, theoretical};
}

// Step 2: bandwidth of L1/shared memory, L2 and DRAM.
std::vector<ert::GpuBandwidthPoint> measure_bandwidth(const Run& run) {
  auto sets = ert::plan_working_sets(run.gpu.l2_bytes, run.gpu.free_bytes);
  if (!sets.dram_limited_by.empty())
    run.say(fmt::format("DRAM working set {:.0f} MiB: {}", sets.dram / 1048576, sets.dram_limited_by));
  const double l1_theoretical = ert::theoretical_shared_bandwidth(run.gpu.sms, run.gpu.clock_mhz);
  const double dram_theoretical = ert::theoretical_dram_bandwidth(run.gpu.memory_clock_mhz, run.gpu.memory_bus_bits);
  std::vector<ert::GpuBandwidthPoint> points;
  auto report = [&](const ert::GpuBandwidthPoint& p) {
    run.say(fmt::format("bandwidth {} {} over {:.3g} KiB: {}", p.level, p.kernel, p.bytes / 1024,
                        rate_text(p.rate.max, p.theoretical, "B/s")));
    points.push_back(p);
  };
  {
    DeviceMemory l1(static_cast<size_t>(sets.l1), "the L1 working set");
    check(launch_fill_u32(l1.as<uint32_t>(), l1.bytes() / 4, 1, run.stream), "the fill kernel's launch");
    report(rotating_point(run, false, l1.as<uint32_t>(), sets.l1, l1_theoretical));
    report(rotating_point(run, true, nullptr, sets.shared, l1_theoretical));
  }
  double largest = sets.dram;
  for (double l2 : sets.l2) largest = std::max(largest, l2);
  DeviceMemory memory(static_cast<size_t>(largest / 16) * 16, "the bandwidth working sets");
  const int read_blocks = run.gpu.sms * resident_blocks(Kernel::kRead, 0, "read");
  DeviceMemory sums(static_cast<size_t>(read_blocks) * sizeof(unsigned long long), "the block sums");
  Buffers b{memory.as<uint32_t>(), memory.bytes() / 4, &sums};
  check(launch_fill_u32(b.data, b.words, 1, run.stream), "the fill kernel's launch");
  for (double bytes : sets.l2) report(read_point(run, "l2", b, bytes, 0));
  for (double bytes : sets.l2) report(copy_point(run, "l2", b, bytes, 0));
  report(read_point(run, "dram", b, sets.dram, dram_theoretical));
  report(copy_point(run, "dram", b, sets.dram, dram_theoretical));
  return points;
}

// Step 3: seconds per empty kernel, 1000 launched back to back on one stream.
sys::Summary measure_launch_overhead(const Run& run) {
  constexpr int kLaunches = 1000;
  EventTimer timer(run.stream);
  auto launches = [&] {
    for (int i = 0; i < kLaunches; ++i) check(launch_empty(run.stream), "the empty kernel's launch");
  };
  timer.seconds(launches);  // warm-up
  std::vector<double> samples;
  for (int rep = 0; rep < run.repetitions; ++rep) samples.push_back(timer.seconds(launches) / kLaunches);
  auto s = sys::summarize(samples);
  run.say(fmt::format("launch overhead: {:.2f} us per empty kernel (best of {})", s.min * 1e6, s.samples));
  return s;
}

class Stream {
 public:
  // A blocking stream: the cudaMemcpy calls that read results back run on the legacy default stream,
  // which waits for a blocking stream's work (not for a non-blocking one's).
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault), "cudaStreamCreate"); }
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

ert::GpuErtResult run_ert(const ert::GpuErtOptions& options) {
  auto t0 = Clock::now();
  Run run{options, read_properties(options.device)};
  run.rates = ert::sm_rates(run.gpu.cc_major, run.gpu.cc_minor);
  run.repetitions = options.repetitions > 0 ? options.repetitions : (options.quick ? 3 : 7);
  run.min_seconds = options.quick ? 0.02 : 0.05;
  Stream stream;
  run.stream = stream.get();
  const auto& g = run.gpu;
  run.say(fmt::format("{}: sm_{}{}, {} SMs at up to {:.0f} MHz, {:.1f} GiB, {:.0f} MiB L2; {}", g.name, g.cc_major,
                      g.cc_minor, g.sms, g.clock_mhz, g.memory_bytes / ert::kGiB, g.l2_bytes / 1048576, g.versions));
  if (!run.rates)
    run.say(fmt::format("compute capability {}.{} is not in ridge's table of per-SM rates: no theoretical peaks",
                        g.cc_major, g.cc_minor));
  ert::GpuErtResult r;
  r.gpu = run.gpu;
  r.quick = options.quick;
  r.repetitions = run.repetitions;
  r.fma.push_back(measure_fma(run, FmaPrecision::kFp64, "fp64"));
  r.fma.push_back(measure_fma(run, FmaPrecision::kFp32, "fp32"));
  r.fma.push_back(measure_fma(run, FmaPrecision::kFp16, "fp16"));
  r.bandwidth = measure_bandwidth(run);
  r.launch_overhead_s = measure_launch_overhead(run);
  r.tensor = measure_tensor_peaks(run);
  check(cudaStreamSynchronize(run.stream), "cudaStreamSynchronize");
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace
}  // namespace ridge::hw::cuda

// The module's one entry point (hw/ert/gpu_ert.cpp looks it up). Every exception is caught here and
// returned as its message.
extern "C" void ridge_cuda_ert(const ridge::hw::ert::GpuErtOptions* options, ridge::hw::ert::GpuErtResult* result,
                               std::string* error) {
  try {
    *result = ridge::hw::cuda::run_ert(*options);
  } catch (const std::exception& e) {
    *error = e.what();
  } catch (...) {
    *error = "ert: unknown error in the CUDA module";
  }
}
