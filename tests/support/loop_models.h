#pragma once
// Small models with a Loop and a Scan, saved to temporary files: what the loop unrolling's tests
// (tests/exec/test_loop_unrolling.cpp) and the GPU's (tests/gpu/test_cuda_gpu.cpp) run.
#include <cstdint>
#include <string>

namespace ridge::test {

// The Loop's condition input and its body's condition output: kNone, no condition input and a body passing its
// condition input through an Identity; kTrue, a constant true passed through so; kComputed, a constant true and a body
// computing i < 2; kComputedWithoutInput, no condition input and the same body. A computed condition stops the loop
// after 3 iterations (as the executors and ONNX Runtime read it).
enum class LoopCondition { kNone, kTrue, kComputed, kComputedWithoutInput };

// x [2, 3] -> h = x; for i in 0..trips-1: h = tanh(h W + table[i:i+1]) (W 3 x 3, table one value per iteration, both
// weights of the graph), -h collected each iteration -> outputs h_final [2, 3] and negated [trips, 2, 3]. `trips` is a
// constant of the graph (or, with `trips_as_input`, an input known only during the run). The node is named "loop".
std::string recurrent_loop(int64_t trips, LoopCondition condition = LoopCondition::kNone, bool trips_as_input = false);

// Control flow nested in a loop: x [2, 3] -> h = x; for i in 0..2 ("outer", no condition input):
//   b = i == 0 ? 2h : tanh(h)                          (If "first", its condition computed from i; with `flag_input`,
//                                                       the graph's bool input "flag" instead, known only during the
//                                                       run)
//   for j in 0..inner_trips-1 ("inner", its trip count a graph constant): g = (g W) * (i + 1) + bias, -g collected
//                                                       (from g = b)
//   h = g, the inner loop's collected values collected
// -> outputs h_final [2, 3] and collected [3, inner_trips, 2, 3]. W (3 x 3) and bias [3] are weights of the graph; the
// inner body reads the outer body's (i + 1) and the graph's W and bias.
std::string nested_control_loop(bool flag_input = false, int64_t inner_trips = 2);

// Scan "scan" over xs [4, 2] (axis 0, forward) and ys [2, 4] (axis 1, from its end) with state s0 [2]:
// s += x_t * y_t; outputs s, the states stacked along axis 0 (sums [4, 2]) and each y_t stacked along axis 1 in
// reverse (ys_back [2, 4], which is ys).
std::string reversed_scan();

}  // namespace ridge::test
