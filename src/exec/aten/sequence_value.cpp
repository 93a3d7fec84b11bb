#include "exec/aten/sequence_value.h"

#include <ATen/OpaqueTensorImpl.h>

#include "util/error.h"

namespace ridge::exec::aten {
namespace {

using Handle = std::shared_ptr<const TensorList>;
using SequenceImpl = at::OpaqueTensorImpl<Handle>;

// PrivateUse1: a dispatch key no kernel of Debian's libtorch is registered for, so that no ATen op runs on a sequence.
const c10::DispatchKeySet kSequenceKeys{c10::DispatchKey::PrivateUse1};

const SequenceImpl* impl_of(const at::Tensor& value) {
  // The tensor's own key set holds more than the one given (autograd's keys): the implementation's type says.
  if (!value.defined()) return nullptr;
  return dynamic_cast<const SequenceImpl*>(value.unsafeGetTensorImpl());
}

}  // namespace

at::Tensor make_sequence(TensorList elements, at::ScalarType element_type) {
  auto handle = std::make_shared<const TensorList>(std::move(elements));
  // Sized {length}, with no data: what a debugger or an error message shows of it.
  std::vector<int64_t> sizes{static_cast<int64_t>(handle->size())};
  return at::detail::make_tensor<SequenceImpl>(kSequenceKeys, caffe2::TypeMeta::fromScalarType(element_type),
                                               c10::Device(c10::kCPU), std::move(handle), sizes);
}

bool is_sequence(const at::Tensor& value) { return impl_of(value) != nullptr; }

const TensorList& sequence_elements(const at::Tensor& value) {
  const auto* impl = impl_of(value);
  if (!impl) throw Error("a sequence was expected, a tensor was given");
  return *const_cast<SequenceImpl*>(impl)->unsafe_opaque_handle();
}

}  // namespace ridge::exec::aten
