// The settings every rank of a job must share. A rank that differs in one
// of them would run other schedules than its peers (another algorithm,
// other pieces, an RCOLL_CHECK exchange the others skip) and hang or
// mismatch them; so each rank puts them on its join card and every rank
// checks all cards before the first message.
#pragma once

#include <string>
#include <vector>

#include "comm/rank_card.hpp"
#include "rcoll/options.hpp"
#include "transport/transport.hpp"

namespace rcoll::comm {

// "name=value" pairs separated by spaces: the transport, its eager limit
// and preferred segment, the algorithm and segment overrides,
// RCOLL_CALIBRATE and RCOLL_CHECK.
std::string shared_settings(const Options& options, const transport::Transport& transport);

// InvalidArgument, the same on every rank, when the cards' settings
// differ: it names each setting that differs, the variable that sets it,
// and which ranks hold which value.
void check_same_settings(const std::vector<RankCard>& cards, int self);

}  // namespace rcoll::comm
