// libFuzzer target: arbitrary bytes as a document stored in the results store (a damaged or
// hand-written store), through report::decode_document. Any input must end in a document or a
// ridge::Error; a decoded document must encode to JSON that decodes to the same encoding again, and
// must print in every format (`ridge results --show` prints stored documents).
// fuzz-max-len: 65536 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/document_codec.h"
#include "report/printer.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto json = nlohmann::ordered_json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  ridge::report::Document doc;
  try {
    doc = ridge::report::decode_document(json);
  } catch (const ridge::Error&) {
    return 0;
  }
  auto encoded = ridge::report::encode_document(doc);
  try {
    auto again = ridge::report::encode_document(ridge::report::decode_document(encoded));
    if (again != encoded) {
      std::fprintf(stderr, "re-encoding differs:\n%s\n%s\n", encoded.dump().c_str(), again.dump().c_str());
      std::abort();
    }
  } catch (const ridge::Error& e) {
    std::fprintf(stderr, "a document's own encoding does not decode: %s\n", e.what());
    std::abort();
  }
  for (auto format : {ridge::report::Format::kTable, ridge::report::Format::kCsv, ridge::report::Format::kJson,
                      ridge::report::Format::kMarkdown}) {
    std::ostringstream out;
    try {
      ridge::report::print(out, doc, format);
    } catch (const ridge::Error&) {  // a printer's refusal is one line, not a crash
    }
  }
  return 0;
}
