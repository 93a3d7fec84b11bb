#pragma once
// ONNX sequences an executor without sequence values (the GPU's) can still run: where every tensor a sequence holds is
// a value of the graph known before the run (its loops unrolled, its positions constants), the sequence is that list of
// values, and the ops that read it become tensor ops:
// - SequenceAt at a known position: an Identity of that element;
// - SequenceLength: a Constant;
// - ConcatFromSequence: a Concat of the elements (with new_axis, each unsqueezed first: a stack);
// - SplitToSequence whose pieces' sizes are known: a Split (each piece squeezed where keepdims is 0 without a split).
// The ops that only built it (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase, an Identity of a
// sequence) are removed once nothing reads what they built. A sequence op whose sequence or position is known only
// during the run stays, saying why. exec/control_flow_rewrite.h runs this after unrolling a model's loops, so that a
// TorchScript loop collecting a Python list runs as straight-line tensor ops. libtorch-free.
#include <map>
#include <string>
#include <vector>

#include "exec/inlined_rows.h"
#include "graph/graph.h"

namespace ridge::exec {

struct SequenceElimination {
  int rewritten = 0;              // sequence ops replaced by tensor ops or removed
  std::vector<std::string> kept;  // sequence ops left, each "NAME (OP): why"
  // Per value a node the rewrite adds writes (an Unsqueeze before a stack): the node of the graph as given it runs for.
  std::map<graph::ValueId, Origin> origin_of_output;
};

// `g` holds (outside subgraphs) one of ONNX's sequence ops.
bool has_sequence_ops(const graph::Graph& g);

// Rewrites the sequences of `model`'s graph (not its subgraphs') as above and infers its shapes again where anything
// changed. The model must be bound and inferred; its values keep their ids. `outer`: what an earlier rewrite made the
// graph's nodes run for (a Concat made of a ConcatFromSequence copied out of a loop runs for that loop).
SequenceElimination eliminate_sequences(graph::Model& model, const std::map<graph::ValueId, Origin>* outer = nullptr);

}  // namespace ridge::exec
