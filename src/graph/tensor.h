#pragma once
// Tensors as the loader sees them: where their bytes are (never copied eagerly), and small
// constant values that shape inference propagates (shape vectors, axes, scalars).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/byte_source.h"
#include "graph/dtype.h"

namespace ridge::graph {

// Where a tensor's bytes live. In-file data (raw_data) is an offset into the model file,
// read back only when a value is needed.
struct TensorLocation {
  enum class Kind { kNone, kInFile, kTypedFields, kExternal };
  Kind kind = Kind::kNone;
  std::shared_ptr<const ByteSource> source;  // kInFile: the model's bytes
  int64_t offset = 0;                        // kInFile: where raw_data starts in `source`
  int64_t size = 0;                          // bytes (kInFile / kExternal)
  std::string external_path;                 // kExternal: path relative to the model's directory
  int64_t external_offset = 0;
  bool external_length_given = false;
};

// A constant's values, decoded; integers and floats kept apart so int64 stays exact.
struct ConstantData {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;  // integral and bool types
  std::vector<double> reals;  // floating types

  bool is_integral() const { return graph::is_integral(dtype); }
  int64_t size() const { return static_cast<int64_t>(is_integral() ? ints.size() : reals.size()); }
  double as_real(size_t i) const { return is_integral() ? static_cast<double>(ints[i]) : reals[i]; }
  int64_t as_int(size_t i) const { return is_integral() ? ints[i] : static_cast<int64_t>(reals[i]); }
};

// A TensorProto after loading: header plus location; values decoded only when needed.
struct TensorRef {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> dims;
  TensorLocation location;
  // Values carried in the typed repeated fields (float_data, int64_data, ...), decoded at load
  // time because they are not contiguous raw bytes; only small tensors use these in practice.
  std::shared_ptr<ConstantData> typed_values;
};

}  // namespace ridge::graph
