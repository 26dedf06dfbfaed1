#include "comm/rank_card.hpp"

#include <algorithm>
#include <charconv>

#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

constexpr std::string_view magic = "rcoll-card 1";

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The text up to the next newline, advancing `rest` past it; false when there is none.
bool take_line(std::string_view& rest, std::string_view& line) {
  const std::size_t end = rest.find('\n');
  if (end == std::string_view::npos) return false;
  line = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return true;
}

[[noreturn]] void malformed(int rank, int self, std::string_view why) {
  throw IoError(self, rank, "join",
                "rank " + std::to_string(rank) + "'s join card is unreadable (" + std::string(why) +
                    "): is every rank the same rcoll build?");
}

}  // namespace

std::string encode(const RankCard& card) {
  return std::string(magic) + "\n" + one_line(card.host) + "\n" + std::to_string(card.host_cpus) + "\n" +
         one_line(card.settings) + "\n" + card.endpoint;
}

RankCard decode_card(std::string_view blob, int rank, int self) {
  std::string_view rest = blob, line;
  if (!take_line(rest, line) || line != magic) malformed(rank, self, "no card header");
  RankCard card;
  if (!take_line(rest, line)) malformed(rank, self, "no host");
  card.host = line;
  if (!take_line(rest, line)) malformed(rank, self, "no CPU count");
  auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), card.host_cpus);
  if (error != std::errc() || end != line.data() + line.size() || card.host_cpus < 1)
    malformed(rank, self, "bad CPU count");
  if (!take_line(rest, line)) malformed(rank, self, "no settings");
  card.settings = line;
  card.endpoint = rest;
  return card;
}

std::vector<RankCard> read_cards(const std::vector<PeerEndpoint>& members, int self) {
  std::vector<RankCard> cards;
  cards.reserve(members.size());
  for (std::size_t r = 0; r < members.size(); ++r)
    cards.push_back(decode_card(members[r].blob, static_cast<int>(r), self));
  return cards;
}

std::vector<PeerEndpoint> transport_endpoints(const std::vector<PeerEndpoint>& members,
                                              const std::vector<RankCard>& cards) {
  std::vector<PeerEndpoint> endpoints;
  endpoints.reserve(members.size());
  for (std::size_t r = 0; r < members.size(); ++r) endpoints.push_back({members[r].address, cards[r].endpoint});
  return endpoints;
}

}  // namespace rcoll::comm
