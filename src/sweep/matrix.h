#pragma once
// A run matrix from YAML: models, the axes bench varies (named as its options), devices to predict
// on, and the cells they expand to per stage. Each cell is one `ridge bench` or `ridge predict`
// command line, identified by a key that stays the same between runs (resuming skips stored keys).
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::sweep {

// sanity: one cell per model (the first value of every axis); quick: at most ten input sizes, spread
// over the axis; full: every cell.
enum class Stage { kSanity, kQuick, kFull };
Stage parse_stage(const std::string& name);
std::string stage_name(Stage stage);

struct Axis {
  std::string name;  // batch, input, mode, precision, memory_format, conv_algo, threads, training, optimizer
  std::vector<std::string> values;
};

struct Matrix {
  std::string name;  // `name:`, else the file's stem: the key of the sweep in the store
  std::string file;
  std::vector<std::string> models;  // as written, relative paths resolved against the file's directory
  std::vector<Axis> axes;           // in the order bench's options list them
  std::vector<std::string> devices;
  bool measure = true;  // bench cells (false: predict cells only)
};

struct Cell {
  std::string kind;                                           // bench or predict
  std::string model;                                          // the path
  std::string device;                                         // predict cells
  std::vector<std::pair<std::string, std::string>> settings;  // axis -> value
  std::string key;                                            // "bench alexnet.onnx batch=8 mode=eager"
  std::vector<std::string> args;                              // the ridge command line after "ridge"
  size_t index = 0;                                           // position in the full matrix
};

// Reads and checks FILE (unknown keys and axis values bench refuses are named, with the line).
Matrix read_matrix(const std::string& path);
// The cells of `stage`, in a fixed order (models outermost, then the axes as listed, then devices).
std::vector<Cell> expand(const Matrix& matrix, Stage stage);
// The cells shard `index` of `count` runs: every count-th, starting at index.
std::vector<Cell> shard(const std::vector<Cell>& cells, int index, int count);
// "K/N" (0 <= K < N) as {K, N}; ridge::Error naming the text otherwise.
std::pair<int, int> parse_shard(const std::string& text);
// The axes a sweep file may name.
const std::vector<std::string>& axis_names();

}  // namespace ridge::sweep
