// ONNX's protobuf is walked field by field with protobuf's CodedInputStream rather than parsed
// into generated ModelProto classes: the generated parser copies every raw_data field, so a
// 1.5 GB model would cost 1.5 GB of memory just to read shapes. Here raw_data becomes an offset
// into the file and is skipped with lseek (FileInputStream), so weight bytes are neither read
// nor mapped: analysis memory stays small whatever the file size. Field numbers are onnx.proto's,
// named below as the generated classes name them (TensorProto::kRawDataFieldNumber, ...).
#include "onnx/model_reader.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>
#include <filesystem>
#include <limits>

#include "onnx/byte_sources.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::onnx {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using graph::Attribute;
using graph::DType;
using graph::Graph;
using graph::Model;
using graph::Node;
using graph::TensorRef;

constexpr int kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr int kFixed64 = WireFormatLite::WIRETYPE_FIXED64;
constexpr int kBytes = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr int kFixed32 = WireFormatLite::WIRETYPE_FIXED32;

// onnx.proto field numbers (/usr/include/onnx/onnx.proto).
struct TensorProto {
  enum : int {
    kDimsFieldNumber = 1,
    kDataTypeFieldNumber = 2,
    kFloatDataFieldNumber = 4,
    kInt32DataFieldNumber = 5,
    kInt64DataFieldNumber = 7,
    kNameFieldNumber = 8,
    kRawDataFieldNumber = 9,
    kDoubleDataFieldNumber = 10,
    kUint64DataFieldNumber = 11,
    kExternalDataFieldNumber = 13,
    kDataLocationFieldNumber = 14,
  };
  enum DataLocation : int64_t { kDefault = 0, kExternal = 1 };
};
struct StringStringEntryProto {
  enum : int { kKeyFieldNumber = 1, kValueFieldNumber = 2 };
};

class Reader {
 public:
  Reader(google::protobuf::io::ZeroCopyInputStream* stream, int size, std::shared_ptr<const graph::ByteSource> source,
         std::string name, const LoadOptions& options)
      : source_(std::move(source)), in_(stream), name_(std::move(name)), options_(options) {
    in_.SetRecursionLimit(INT_MAX);  // we track our own nesting depth
    in_.SetTotalBytesLimit(INT_MAX);
    in_.PushLimit(size);  // a stream has no natural end for BytesUntilLimit; the file size is it
  }

  // A file holding one TensorProto (the ONNX test-data layout: input_0.pb, output_0.pb).
  std::shared_ptr<TensorRef> read_tensor_message() {
    auto tensor = read_tensor();
    if (!in_.ConsumedEntireMessage() || in_.BytesUntilLimit() != 0) fail("malformed protobuf");
    return tensor;
  }

  void read_model(Model& model) {
    bool have_graph = false;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      int wire = WireFormatLite::GetTagWireType(tag);
      if (field == 1 && wire == kVarint) {
        model.ir_version = read_int64();
      } else if (field == 2 && wire == kBytes) {
        model.producer = read_string();
      } else if (field == 8 && wire == kBytes) {
        auto limit = push_message();
        std::string domain;
        int64_t version = 0;
        while (uint32_t t = in_.ReadTag()) {
          int f = WireFormatLite::GetTagFieldNumber(t);
          if (f == 1 && WireFormatLite::GetTagWireType(t) == kBytes)
            domain = read_string();
          else if (f == 2 && WireFormatLite::GetTagWireType(t) == kVarint)
            version = read_int64();
          else
            skip(t);
        }
        pop(limit);
        if (domain == "ai.onnx") domain.clear();
        model.opsets[domain] = version;
      } else if (field == 14 && wire == kBytes) {  // metadata_props: StringStringEntryProto
        auto limit = push_message();
        std::string key, value;
        while (uint32_t t = in_.ReadTag()) {
          int f = WireFormatLite::GetTagFieldNumber(t);
          if (f == 1 && WireFormatLite::GetTagWireType(t) == kBytes)
            key = read_string();
          else if (f == 2 && WireFormatLite::GetTagWireType(t) == kBytes)
            value = read_string();
          else
            skip(t);
        }
        pop(limit);
        model.metadata[key] = value;
      } else if (field == 7 && wire == kBytes) {
        auto limit = push_message();
        read_graph(model.graph, 0);
        pop(limit);
        have_graph = true;
      } else {
        skip(tag);
      }
    }
    if (!in_.ConsumedEntireMessage() || in_.BytesUntilLimit() != 0) fail("malformed protobuf");
    if (!have_graph) fail("no graph in the file (is it an ONNX model?)");
    if (model.opsets.empty()) model.opsets[""] = 1;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw Error(fmt::format("'{}' is not a valid ONNX model: {} (at byte {})", name_, what, in_.CurrentPosition()));
  }

  void skip(uint32_t tag) {
    if (WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_END_GROUP ||
        !WireFormatLite::SkipField(&in_, tag))
      fail("truncated or malformed protobuf");
  }

  int64_t read_int64() {
    uint64_t v = 0;
    if (!in_.ReadVarint64(&v)) fail("truncated varint");
    return static_cast<int64_t>(v);
  }

  float read_float() {
    uint32_t bits = 0;
    if (!in_.ReadLittleEndian32(&bits)) fail("truncated float");
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  int read_length() {
    int length = 0;
    if (!in_.ReadVarintSizeAsInt(&length) || length < 0 || length > in_.BytesUntilLimit())
      fail("truncated or malformed protobuf");
    return length;
  }

  std::string read_string() {
    int length = read_length();
    std::string s;
    if (!in_.ReadString(&s, length)) fail("truncated string");
    return s;
  }

  CodedInputStream::Limit push_message() { return in_.PushLimit(read_length()); }

  void pop(CodedInputStream::Limit limit) {
    if (!in_.ConsumedEntireMessage() || in_.BytesUntilLimit() != 0) fail("malformed nested message");
    in_.PopLimit(limit);
  }

  // Repeated integers: packed (one length-delimited run) or one varint per tag.
  void read_ints(int wire, std::vector<int64_t>& out) {
    if (wire == kVarint) {
      out.push_back(read_int64());
      return;
    }
    if (wire != kBytes) fail("bad wire type for a repeated integer");
    auto limit = in_.PushLimit(read_length());
    while (in_.BytesUntilLimit() > 0) out.push_back(read_int64());
    in_.PopLimit(limit);
  }

  void read_floats(int wire, std::vector<double>& out) {
    if (wire == kFixed32) {
      out.push_back(read_float());
      return;
    }
    if (wire != kBytes) fail("bad wire type for a repeated float");
    int length = read_length();
    if (length % 4) fail("packed floats of odd length");
    for (int i = 0; i < length / 4; ++i) out.push_back(read_float());
  }

  void read_doubles(int wire, std::vector<double>& out) {
    auto one = [&] {
      uint64_t bits = 0;
      if (!in_.ReadLittleEndian64(&bits)) fail("truncated double");
      double d;
      std::memcpy(&d, &bits, sizeof d);
      out.push_back(d);
    };
    if (wire == kFixed64) return one();
    if (wire != kBytes) fail("bad wire type for a repeated double");
    int length = read_length();
    if (length % 8) fail("packed doubles of odd length");
    for (int i = 0; i < length / 8; ++i) one();
  }

  // TensorProto, in three steps: its fields (raw data located, not copied), its header checked,
  // then where its values live (external file, raw data, typed fields).
  std::shared_ptr<TensorRef> read_tensor() {
    auto tensor = std::make_shared<TensorRef>();
    TensorFields fields;
    while (uint32_t tag = in_.ReadTag()) read_tensor_field(tag, *tensor, fields);
    check_tensor_header(*tensor, fields.data_type);
    if (fields.external)
      locate_external_data(*tensor, fields.external_entries);
    else if (fields.typed && tensor->location.kind == graph::TensorLocation::Kind::kNone) {
      tensor->location.kind = graph::TensorLocation::Kind::kTypedFields;
      if (!fields.typed_truncated)
        tensor->typed_values = constant_from_typed_fields(*tensor, std::move(fields.ints), std::move(fields.reals));
    }
    return tensor;
  }

  // What read_tensor collects besides the TensorRef itself.
  struct TensorFields {
    int32_t data_type = 0;
    bool external = false;      // data_location == EXTERNAL
    std::vector<int64_t> ints;  // int32_data / int64_data / uint64_data
    std::vector<double> reals;  // float_data / double_data
    bool typed = false, typed_truncated = false;
    std::vector<std::pair<std::string, std::string>> external_entries;  // external_data key/value pairs
  };

  void read_tensor_field(uint32_t tag, TensorRef& tensor, TensorFields& fields) {
    using T = TensorProto;
    int field = WireFormatLite::GetTagFieldNumber(tag);
    int wire = WireFormatLite::GetTagWireType(tag);
    switch (field) {
      case T::kDimsFieldNumber:
        read_ints(wire, tensor.dims);
        break;
      case T::kDataTypeFieldNumber:
        fields.data_type = static_cast<int32_t>(read_int64());
        break;
      case T::kNameFieldNumber:
        tensor.name = read_string();
        break;
      case T::kRawDataFieldNumber:
        locate_raw_data(tensor);
        break;
      case T::kFloatDataFieldNumber:
      case T::kInt32DataFieldNumber:
      case T::kInt64DataFieldNumber:
      case T::kDoubleDataFieldNumber:
      case T::kUint64DataFieldNumber:
        fields.typed = true;
        if (static_cast<int64_t>(fields.ints.size() + fields.reals.size()) > options_.max_typed_elements) {
          fields.typed_truncated = true;
          skip(tag);
        } else if (field == T::kFloatDataFieldNumber) {
          read_floats(wire, fields.reals);
        } else if (field == T::kDoubleDataFieldNumber) {
          read_doubles(wire, fields.reals);
        } else {
          read_ints(wire, fields.ints);
        }
        break;
      case T::kExternalDataFieldNumber:
        fields.external_entries.push_back(read_string_entry());
        break;
      case T::kDataLocationFieldNumber:
        fields.external = read_int64() == TensorProto::kExternal;
        break;
      default:
        skip(tag);
    }
  }

  // raw_data: remember where it is, do not copy or touch it.
  void locate_raw_data(TensorRef& tensor) {
    int length = read_length();
    tensor.location.kind = graph::TensorLocation::Kind::kInFile;
    tensor.location.source = source_;
    tensor.location.offset = in_.CurrentPosition();
    tensor.location.size = length;
    if (!in_.Skip(length)) fail("truncated raw_data");
  }

  // StringStringEntryProto: one key/value pair.
  std::pair<std::string, std::string> read_string_entry() {
    using E = StringStringEntryProto;
    auto limit = push_message();
    std::pair<std::string, std::string> entry;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      if (field == E::kKeyFieldNumber)
        entry.first = read_string();
      else if (field == E::kValueFieldNumber)
        entry.second = read_string();
      else
        skip(tag);
    }
    pop(limit);
    return entry;
  }

  void check_tensor_header(TensorRef& tensor, int32_t data_type) {
    if (!graph::is_known_dtype(data_type))
      fail(fmt::format("tensor '{}' has unknown data type {}", tensor.name, data_type));
    tensor.dtype = static_cast<DType>(data_type);
    for (auto d : tensor.dims)
      if (d < 0) fail(fmt::format("tensor '{}' has a negative dimension {}", tensor.name, d));
  }

  // external_data's location (a file next to the model), offset and length.
  void locate_external_data(TensorRef& tensor, const std::vector<std::pair<std::string, std::string>>& entries) {
    auto& loc = tensor.location;
    loc.kind = graph::TensorLocation::Kind::kExternal;
    for (const auto& [key, value] : entries) {
      try {
        if (key == "location")
          loc.external_path = value;
        else if (key == "offset")
          loc.external_offset = std::stoll(value);
        else if (key == "length") {
          loc.size = std::stoll(value);
          loc.external_length_given = true;
        }
      } catch (const std::exception&) {
        fail(fmt::format("tensor '{}' has a bad external_data {} '{}'", tensor.name, key, value));
      }
    }
    if (loc.external_path.empty()) fail(fmt::format("tensor '{}' is external but names no file", tensor.name));
    if (loc.external_offset < 0 || (loc.external_length_given && loc.size < 0))
      fail(fmt::format("tensor '{}' has a negative external_data offset or length", tensor.name));
  }

  // TypeProto -> dtype and shape: of a tensor, or of a sequence's elements (maps and optionals keep no shape).
  void read_type(graph::Value& value, int depth = 0) {
    // Sequences of sequences nest without bound in the format: a bound keeps a hostile file from the stack's end.
    if (depth > 8) fail(fmt::format("value '{}' has a type nested too deeply", value.name));
    while (uint32_t tag = in_.ReadTag()) {
      if (WireFormatLite::GetTagFieldNumber(tag) == 4 && WireFormatLite::GetTagWireType(tag) == kBytes) {
        read_sequence_type(value, depth);
        continue;
      }
      if (WireFormatLite::GetTagFieldNumber(tag) != 1 || WireFormatLite::GetTagWireType(tag) != kBytes) {
        skip(tag);
        continue;
      }
      auto tensor_limit = push_message();
      while (uint32_t t = in_.ReadTag()) {
        int f = WireFormatLite::GetTagFieldNumber(t);
        if (f == 1 && WireFormatLite::GetTagWireType(t) == kVarint) {
          auto code = static_cast<int32_t>(read_int64());
          if (!graph::is_known_dtype(code)) fail(fmt::format("value '{}' has unknown data type {}", value.name, code));
          value.dtype = static_cast<DType>(code);
        } else if (f == 2 && WireFormatLite::GetTagWireType(t) == kBytes) {
          auto shape_limit = push_message();
          value.has_shape = true;
          value.shape.clear();
          while (uint32_t st = in_.ReadTag()) {
            if (WireFormatLite::GetTagFieldNumber(st) != 1) {
              skip(st);
              continue;
            }
            auto dim_limit = push_message();
            graph::Dim dim;
            while (uint32_t dt = in_.ReadTag()) {
              int df = WireFormatLite::GetTagFieldNumber(dt);
              if (df == 1 && WireFormatLite::GetTagWireType(dt) == kVarint) {
                dim.value = read_int64();
                if (dim.value < 0) fail(fmt::format("value '{}' has a negative dimension {}", value.name, dim.value));
              } else if (df == 2 && WireFormatLite::GetTagWireType(dt) == kBytes) {
                dim.symbol = read_string();
              } else {
                skip(dt);
              }
            }
            pop(dim_limit);
            value.shape.push_back(std::move(dim));
          }
          pop(shape_limit);
        } else {
          skip(t);
        }
      }
      pop(tensor_limit);
    }
  }

  // TypeProto.Sequence: its elem_type (field 1) is the elements' TypeProto. A sequence of sequences keeps no element
  // type (ridge's sequence ops take tensors).
  void read_sequence_type(graph::Value& value, int depth) {
    auto limit = push_message();
    graph::Value element;
    element.name = value.name;
    while (uint32_t t = in_.ReadTag()) {
      if (WireFormatLite::GetTagFieldNumber(t) == 1 && WireFormatLite::GetTagWireType(t) == kBytes) {
        auto elem_limit = push_message();
        read_type(element, depth + 1);
        pop(elem_limit);
      } else {
        skip(t);
      }
    }
    pop(limit);
    value.is_sequence = true;
    value.elements.reset();
    value.element_shape = {};
    value.shape.clear();
    value.has_shape = true;  // a sequence's type is known; its elements' shape where declared
    if (element.is_sequence) return;
    value.dtype = element.dtype;
    if (element.has_shape) value.element_shape.shape = std::move(element.shape);
  }

  // ValueInfoProto: declares a value's type and shape.
  graph::ValueId read_value_info(Graph& g) {
    graph::Value info;
    bool have_type = false;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      if (field == 1 && WireFormatLite::GetTagWireType(tag) == kBytes) {
        info.name = read_string();
      } else if (field == 2 && WireFormatLite::GetTagWireType(tag) == kBytes) {
        auto limit = push_message();
        read_type(info);
        pop(limit);
        have_type = true;
      } else {
        skip(tag);
      }
    }
    if (info.name.empty()) fail("a graph input or output has no name");
    auto id = g.intern(info.name);
    auto& v = g.value(id);
    if (have_type) {
      v.dtype = info.dtype;
      v.shape = std::move(info.shape);
      v.has_shape = info.has_shape;
      v.is_sequence = info.is_sequence;
      v.element_shape = std::move(info.element_shape);
    }
    return id;
  }

  Attribute read_attribute(int depth) {
    Attribute attr;
    int32_t declared_type = 0;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      int wire = WireFormatLite::GetTagWireType(tag);
      switch (field) {
        case 1:
          attr.name = read_string();
          break;
        case 20:
          declared_type = static_cast<int32_t>(read_int64());
          break;
        case 2:
          attr.f = read_float();
          break;
        case 3:
          attr.i = read_int64();
          break;
        case 4:
          attr.s = read_string();
          break;
        case 5: {
          auto limit = push_message();
          attr.tensor = read_tensor();
          pop(limit);
          break;
        }
        case 6:
        case 11: {
          auto limit = push_message();
          auto sub = std::make_shared<Graph>();
          read_graph(*sub, depth + 1);
          pop(limit);
          attr.graphs.push_back(std::move(sub));
          break;
        }
        case 7:
          read_floats(wire, attr.floats);
          break;
        case 8:
          read_ints(wire, attr.ints);
          break;
        case 9:
          attr.strings.push_back(read_string());
          break;
        default:
          skip(tag);
      }
    }
    using K = Attribute::Kind;
    static constexpr K kByType[] = {K::kUndefined, K::kFloat,  K::kInt,   K::kString,  K::kTensor,
                                    K::kGraph,     K::kFloats, K::kInts,  K::kStrings, K::kTensors,
                                    K::kGraphs,    K::kOther,  K::kOther, K::kOther,   K::kOther};
    attr.kind = declared_type >= 0 && declared_type < 15 ? kByType[declared_type] : K::kOther;
    if (attr.kind == K::kUndefined) {  // IR v1 files omit the type: infer it from the field set
      if (attr.tensor)
        attr.kind = K::kTensor;
      else if (!attr.graphs.empty())
        attr.kind = K::kGraph;
      else if (!attr.ints.empty())
        attr.kind = K::kInts;
      else if (!attr.floats.empty())
        attr.kind = K::kFloats;
      else if (!attr.strings.empty())
        attr.kind = K::kStrings;
      else if (!attr.s.empty())
        attr.kind = K::kString;
      else if (attr.f != 0)
        attr.kind = K::kFloat;
      else
        attr.kind = K::kInt;
    }
    return attr;
  }

  void read_node(Graph& g, int depth) {
    Node node;
    std::vector<std::string> inputs, outputs;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      switch (field) {
        case 1:
          inputs.push_back(read_string());
          break;
        case 2:
          outputs.push_back(read_string());
          break;
        case 3:
          node.name = read_string();
          break;
        case 4:
          node.op_type = read_string();
          break;
        case 7:
          node.domain = read_string();
          break;
        case 5: {
          auto limit = push_message();
          node.attributes.push_back(read_attribute(depth));
          pop(limit);
          break;
        }
        default:
          skip(tag);
      }
    }
    if (node.op_type.empty()) fail("a node has no op_type");
    if (node.domain == "ai.onnx") node.domain.clear();
    for (auto& name : inputs) node.inputs.push_back(name.empty() ? graph::kNoValue : g.intern(name));
    for (auto& name : outputs) node.outputs.push_back(name.empty() ? graph::kNoValue : g.intern(name));
    if (node.name.empty()) node.name = fmt::format("{}_{}", node.op_type, g.nodes.size());
    g.nodes.push_back(std::move(node));
  }

  void read_graph(Graph& g, int depth) {
    if (depth > options_.max_subgraph_depth) fail("subgraphs nested too deeply");
    std::vector<graph::ValueId> declared_inputs;
    while (uint32_t tag = in_.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      int wire = WireFormatLite::GetTagWireType(tag);
      if (wire != kBytes) {
        skip(tag);
        continue;
      }
      switch (field) {
        case 1: {
          auto limit = push_message();
          read_node(g, depth);
          pop(limit);
          break;
        }
        case 2:
          g.name = read_string();
          break;
        case 5: {
          auto limit = push_message();
          auto tensor = read_tensor();
          pop(limit);
          if (tensor->name.empty()) fail("an initializer has no name");
          auto& v = g.value(g.intern(tensor->name));
          v.dtype = tensor->dtype;
          v.shape = graph::make_shape(tensor->dims);
          v.has_shape = true;
          v.initializer = std::move(tensor);
          break;
        }
        case 11: {
          auto limit = push_message();
          declared_inputs.push_back(read_value_info(g));
          pop(limit);
          break;
        }
        case 12: {
          auto limit = push_message();
          g.outputs.push_back(read_value_info(g));
          pop(limit);
          break;
        }
        case 13: {
          auto limit = push_message();
          read_value_info(g);
          pop(limit);
          break;
        }
        default:
          skip(tag);
      }
    }
    // Old IR versions also list initializers among the inputs; those stay weights.
    for (auto id : declared_inputs) {
      auto& v = g.value(id);
      if (!v.initializer) {
        v.is_graph_input = true;
        g.inputs.push_back(id);
      }
    }
    for (auto id : g.outputs) g.value(id).is_graph_output = true;
  }

  std::shared_ptr<const graph::ByteSource> source_;
  CodedInputStream in_;
  std::string name_;
  LoadOptions options_;
};

// A subgraph may read values of enclosing graphs; anything else undefined is an error.
void resolve_scopes(Graph& g, std::vector<const Graph*>& enclosing) {
  for (auto& v : g.values) {
    if (v.producer >= 0 || v.initializer || v.is_graph_input || v.consumers.empty()) continue;
    bool found = false;
    for (auto it = enclosing.rbegin(); it != enclosing.rend() && !found; ++it) found = (*it)->find(v.name).has_value();
    if (!found) {
      const auto& reader = g.nodes[static_cast<size_t>(v.consumers.front())];
      throw Error(fmt::format("node '{}' ({}) reads '{}', which no node, graph input or initializer provides",
                              reader.name, reader.op_type, v.name));
    }
    v.from_outer_scope = true;
  }
  enclosing.push_back(&g);
  for (auto& node : g.nodes)
    for (auto& attr : node.attributes)
      for (auto& sub : attr.graphs) {
        sub->link_and_sort();
        resolve_scopes(*sub, enclosing);
      }
  enclosing.pop_back();
}

}  // namespace

namespace {

Model read(google::protobuf::io::ZeroCopyInputStream* stream, std::shared_ptr<const graph::ByteSource> source,
           int64_t size, const std::string& name, const LoadOptions& options) {
  if (size <= 0) throw Error(fmt::format("'{}' is empty, not an ONNX model", name));
  if (size > INT_MAX)
    throw Error(fmt::format("'{}' is {} bytes; protobuf files cannot exceed 2 GiB (store weights as external data)",
                            name, size));
  Model model;
  model.path = name;
  model.file_bytes = size;
  model.source = source;
  Reader reader(stream, static_cast<int>(size), std::move(source), name, options);
  reader.read_model(model);
  model.graph.link_and_sort();
  std::vector<const Graph*> scopes;
  resolve_scopes(model.graph, scopes);
  for (auto id : model.graph.outputs) {
    const auto& v = model.graph.value(id);
    if (v.producer < 0 && !v.initializer && !v.is_graph_input)
      throw Error(fmt::format("graph output '{}' is produced by no node", v.name));
  }
  return model;
}

}  // namespace

Model load_model_from_bytes(const uint8_t* bytes, int64_t size, const std::string& name, const LoadOptions& options) {
  google::protobuf::io::ArrayInputStream stream(bytes, static_cast<int>(std::min<int64_t>(size, INT_MAX)));
  return read(&stream, std::make_shared<MemoryBytes>(bytes, size), size, name, options);
}

std::shared_ptr<graph::TensorRef> load_tensor_file(const std::string& path) {
  auto file = std::make_shared<FileBytes>(path);
  if (file->size() <= 0 || file->size() > INT_MAX) throw Error(fmt::format("'{}' is not a TensorProto file", path));
  google::protobuf::io::FileInputStream stream(file->fd());
  LoadOptions options;
  options.max_typed_elements = std::numeric_limits<int64_t>::max();
  Reader reader(&stream, static_cast<int>(file->size()), file, path, options);
  return reader.read_tensor_message();
}

std::shared_ptr<graph::TensorRef> load_tensor_from_bytes(const uint8_t* bytes, int64_t size, const std::string& name) {
  if (size <= 0 || size > INT_MAX) throw Error(fmt::format("'{}' is not a TensorProto file", name));
  google::protobuf::io::ArrayInputStream stream(bytes, static_cast<int>(size));
  LoadOptions options;
  options.max_typed_elements = std::numeric_limits<int64_t>::max();
  Reader reader(&stream, static_cast<int>(size), std::make_shared<MemoryBytes>(bytes, size), name, options);
  return reader.read_tensor_message();
}

Model load_model(const std::string& path, const LoadOptions& options) {
  auto file = std::make_shared<FileBytes>(path);
  google::protobuf::io::FileInputStream stream(file->fd());
  Model model = read(&stream, file, file->size(), path, options);
  model.directory = std::filesystem::path(path).parent_path().string();
  return model;
}

}  // namespace ridge::onnx
