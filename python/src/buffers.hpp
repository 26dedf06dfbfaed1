// Python buffers as rcoll arguments: any object with the buffer protocol
// (NumPy arrays, bytearray, bytes, memoryview, array.array) that is
// C-contiguous and of an element type rcoll has.
//
// A Buffers object holds the views it made (Py_buffer, through
// pybind11::buffer_info) so that the memory stays valid and unmoved for
// the call: the length of a blocking call, or, kept by a Request, until an
// issued call completes. Create and destroy it with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "rcoll/types.hpp"

namespace rcoll::python {

namespace py = pybind11;

// One buffer's memory as a call sees it.
struct BufferView {
  void* data = nullptr;
  std::size_t count = 0;  // elements
  DataType type = DataType::uint8;
};

class Buffers {
 public:
  // The view of `object` for argument `what` of `call` ("rank 2:
  // allreduce", call_support.hpp's call_label). TypeError: no buffer protocol, or an element type rcoll does
  // not have (int16, bool, complex, ...). ValueError: not C-contiguous, or
  // read-only where `writable`.
  BufferView view(const py::handle& object, const std::string& call, const char* what, bool writable);

 private:
  std::vector<std::unique_ptr<py::buffer_info>> held_;
};

// rcoll's DataType of a buffer element format ('f', '<i8', 'B', ...) of
// `itemsize` bytes; TypeError naming the format when there is none.
DataType dtype_of_format(const std::string& format, std::size_t itemsize, const std::string& call, const char* what);

}  // namespace rcoll::python
