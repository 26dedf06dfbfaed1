// The public rcoll::options_from_env (include/rcoll/options.hpp) over the
// environment module, which alone reads the environment.
#include "comm/environment.hpp"
#include "rcoll/options.hpp"

namespace rcoll {

Options options_from_env() { return comm::options_from_env(); }

}  // namespace rcoll
