#pragma once
// Small models with ONNX's sequence ops, saved to temporary files: what the shape, cost, CPU and rewrite tests of
// sequences run (tests/shape/test_sequence_shapes.cpp, tests/exec/test_sequences.cpp).
#include <string>

namespace ridge::test {

// a [2, 3] (input), b [4, 3] (input):
//   s2 = [b, a]              SequenceEmpty, SequenceInsert(a), SequenceInsert(b, position 0)
//   at = s2[-1] = a          SequenceAt                                   [2, 3]
//   len = 2                  SequenceLength                               scalar
//   cat = concat(b, a)       ConcatFromSequence(axis 0)                   [6, 3]
//   st = stack([b], -1)      SequenceErase (the last), ConcatFromSequence(axis -1, new_axis)   [4, 3, 1]
//   p1 = cat[4:6] = a        SplitToSequence(cat, 4) (pieces of 4 and 2 rows), SequenceAt(1)  [2, 3]
//   stacked = a^T            SplitToSequence(a, axis 1, keepdims 0) (three [2]), ConcatFromSequence(new_axis)  [3, 2]
// -> outputs at, len, cat, st, p1, stacked. With `at_out_of_range`, the SequenceAt reads position 5 instead.
std::string sequence_ops_model(bool at_out_of_range = false);

// x [2, 3] -> s = []; h = x; for i in 0..2 (a constant trip count of 3): h = tanh(h); s.append(h)
// -> y = stack(s) [3, 2, 3] (ConcatFromSequence new_axis), and h_final. With `stops_early` the body's condition is
// computed (i < 1): the loop stops after two iterations, which only the run knows.
std::string sequence_loop(bool stops_early = false);

}  // namespace ridge::test
