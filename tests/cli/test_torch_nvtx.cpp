// share/torch_nvtx.py, the helper that names a PyTorch program's modules with NVTX ranges as the TorchScript ONNX
// exporter names their nodes (so `ridge ncu run -m MODEL -- python3 infer.py` maps the kernels): its names checked
// against the bundled models' nodes with Debian's CPU PyTorch (python3-torch, python3-torchvision, python3-onnx,
// which scripts/setup.sh installs).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.h"

namespace ridge::test {
namespace {

// Debian's interpreter, where setup.sh installs PyTorch (a python3 earlier on PATH may lack it).
constexpr const char* kPython = "/usr/bin/python3";

CommandResult run_check(const std::string& onnx_model, const std::string& torchvision_model) {
  auto out = temp_dir() + "/torch_nvtx_" + torchvision_model + ".out";
  auto command = std::string(kPython) + " " + source_path("share/torch_nvtx.py") + " check " + onnx_model +
                 " torchvision:" + torchvision_model + " >" + out + " 2>&1";
  int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(out);
  std::stringstream s;
  s << in.rdbuf();
  r.out = s.str();
  return r;
}

bool torch_available() {
  auto command = std::string(kPython) + " -c 'import torch, torchvision, onnx' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// ResNet-50: 53 convolutions, 49 ReLU calls (each bottleneck's relu called three times: relu, relu_1, relu_2), the
// max pool, the global pool and the classifier are 105 nodes; its 53 BatchNorms are folded into the convolutions by
// the export, so their ranges name no node. MobileNetV2 (ReLU6 -> Clip, numbered scopes inside numbered scopes)
// and VGG-16 (its 7x7 adaptive pool an AveragePool) name only nodes the files have.
TEST(TorchNvtx, RangeNamesAreTheExportedNodeNames) {
  if (!torch_available()) GTEST_SKIP() << kPython << " lacks torch/torchvision/onnx: run scripts/setup.sh";
  auto resnet = run_check(model_path("resnet50"), "resnet50");
  EXPECT_EQ(resnet.exit_code, 0) << resnet.out;
  EXPECT_NE(resnet.out.find("105 of 158 range names are nodes"), std::string::npos) << resnet.out;
  EXPECT_NE(resnet.out.find("0 that should be are not"), std::string::npos) << resnet.out;
  for (const char* name : {"mobilenet_v2", "vgg16"}) {
    auto r = run_check(model_path(name), name);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.out;
  }
  // Another network's names are not this file's nodes: the check fails and names them.
  auto wrong = run_check(model_path("vgg16"), "resnet50");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  EXPECT_NE(wrong.out.find("not a node: /layer1/layer1.0/conv1/Conv"), std::string::npos) << wrong.out;
}

}  // namespace
}  // namespace ridge::test
