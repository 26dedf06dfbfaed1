#include "buffers.hpp"

#include <string>

namespace rcoll::python {
namespace {

[[noreturn]] void throw_type(const std::string& call, const char* what, const std::string& why) {
  throw py::type_error(call + ": " + what + " buffer: " + why);
}

[[noreturn]] void throw_value(const std::string& call, const char* what, const std::string& why) {
  throw py::value_error(call + ": " + what + " buffer: " + why);
}

bool c_contiguous(const py::buffer_info& info) {
  py::ssize_t expected = info.itemsize;
  for (py::ssize_t axis = info.ndim - 1; axis >= 0; --axis) {
    const auto extent = info.shape[static_cast<std::size_t>(axis)];
    if (extent == 0) return true;  // empty: nothing to address
    if (extent != 1 && info.strides[static_cast<std::size_t>(axis)] != expected) return false;
    expected *= extent;
  }
  return true;
}

}  // namespace

DataType dtype_of_format(const std::string& format, std::size_t itemsize, const std::string& call, const char* what) {
  std::string code = format;
  // Native or little-endian byte order is this machine's (x86-64, aarch64).
  if (!code.empty() && (code[0] == '@' || code[0] == '=' || code[0] == '<')) code.erase(0, 1);
  if (code.size() == 1) {
    const char c = code[0];
    const bool signed_int = c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q';
    const bool unsigned_int = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q';
    if (signed_int || unsigned_int) {
      switch (itemsize) {
        case 1: return signed_int ? DataType::int8 : DataType::uint8;
        case 4: return signed_int ? DataType::int32 : DataType::uint32;
        case 8: return signed_int ? DataType::int64 : DataType::uint64;
        default: break;
      }
    }
    if (c == 'e' && itemsize == 2) return DataType::float16;
    if (c == 'f' && itemsize == 4) return DataType::float32;
    if (c == 'd' && itemsize == 8) return DataType::float64;
  }
  throw_type(call, what,
             "element format '" + format + "' (" + std::to_string(itemsize) +
                 " bytes) has no rcoll data type; rcoll has int8, uint8, int32, uint32, int64, uint64, float16, "
                 "float32 and float64 (little-endian)");
}

BufferView Buffers::view(const py::handle& object, const std::string& call, const char* what, bool writable) {
  if (!PyObject_CheckBuffer(object.ptr()))
    throw_type(call, what, "a " + std::string(py::str(py::type::handle_of(object).attr("__name__"))) +
                               " has no buffer protocol (pass a NumPy array, bytearray or memoryview)");
  auto info = std::make_unique<py::buffer_info>(py::reinterpret_borrow<py::buffer>(object).request());
  if (!c_contiguous(*info)) throw_value(call, what, "not C-contiguous (pass numpy.ascontiguousarray(...))");
  if (writable && info->readonly) throw_value(call, what, "read-only, but this call writes into it");
  BufferView view;
  view.type = dtype_of_format(info->format, static_cast<std::size_t>(info->itemsize), call, what);
  view.data = info->ptr;
  view.count = static_cast<std::size_t>(info->size);
  held_.push_back(std::move(info));
  return view;
}

}  // namespace rcoll::python
