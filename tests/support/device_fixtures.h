#pragma once
// A CPU device file with round ceilings (100 GFLOP/s, 10 GB/s, 1 us per op), for tests whose expectations are
// computed from those figures by hand.
#include <fstream>
#include <string>

namespace ridge::test {

// Writes DIR/cpu.yaml and returns its path.
inline std::string round_cpu_device(const std::string& dir) {
  auto path = dir + "/cpu.yaml";
  std::ofstream(path) << R"(id: round-cpu
name: Round CPU
kind: cpu
clocks: {cpu: {max_mhz: 3000, cores: 2, source: test}}
units: [{name: simd, type: vector, clock: cpu, peak_flops: {fp32: 1.0e11}, source: test}]
memory: [{level: dram, bandwidth: 1.0e10, source: test}]
overhead: {seconds: 1.0e-6, source: test}
modes: [{name: default, source: test}]
)";
  return path;
}

}  // namespace ridge::test
