// rcoll's C++ errors as Python exceptions of matching classes, with the
// same text and the same facts (rank, peer, ranks waited for):
//
//   rcoll.Error(RuntimeError)            rcoll::Error
//   rcoll.InvalidArgument(Error, ValueError)
//   rcoll.MismatchError(InvalidArgument)  .ranks
//   rcoll.MessageError(Error)             .rank .peer .bytes .capacity
//   rcoll.TimeoutError(Error, TimeoutError)  .waiting_for .not_joined
//   rcoll.IoError(Error)                  .rank .peer .step .cause
//   rcoll.ResourceError(Error, MemoryError)
#pragma once

#include <pybind11/pybind11.h>

namespace rcoll::python {

// Creates the classes in `module` and registers the translation.
void register_errors(pybind11::module_& module);

}  // namespace rcoll::python
